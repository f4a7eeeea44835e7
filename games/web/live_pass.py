"""The live pass: who a board is, signed by Django, for the held waits' wake-up.

When a room moves, every board waiting on it wakes at once. Django finding
out again who each of them is (the session from the database, the seat among
the room's) would take the one thread an ASGI process has for synchronous
code, one board after another. So Django, when it answers a board's state,
also hands it a pass (the ``X-Mesa-Pass`` header; static/js/board/api.js
sends it back with its next ``?wait=``): the room, the role it found for
this request ("1", "2" or "-" for a spectator), the language it answered
in, a fingerprint of the seat, and a digest of what it read these from (the
session and language cookies, Accept-Language), signed with SECRET_KEY
(django.core.signing) and good for PASS_SECONDS.

games.web.live checks a pass without the database: its signature and age,
its room, and that the request still carries the very cookies and header it
was issued for (a pass copied into another browser, or kept after a logout
or a language change, does not match them: that board goes to Django as
before). The woken waiters of one (room, role, language) then share one
computation of the state (games.web.live.fanout), which also checks the
seat's fingerprint against the room's seats as read then.

What a pass cannot know is a session deleted on the server meanwhile (a
logout in another browser, sessions purged): a board holding both the old
cookie and its pass sees its seat's state for at most PASS_SECONDS after.
The answers the pass brings never renew it: only Django does.
A client-sent ETag never says who anybody is; a forged or altered pass fails
its signature, and a pass for a spectator only ever gets the spectators'
state, which every visitor may read.
"""

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, parse_cookie
from django.utils.translation import get_language

from games.models import Seat

HEADER = "X-Mesa-Pass"
SALT = "mesa.live.pass"
PASS_SECONDS = 600
SPECTATOR = "-"
ROLES = ("1", "2", SPECTATOR)


@dataclass(frozen=True)
class Pass:
    """A board's role in a room, as Django found it, checked."""

    slug: str
    role: str  # "1", "2", or SPECTATOR
    seat: str  # the seat's fingerprint ("" for a spectator)
    language: str


def seat_fingerprint(seat: Seat | None) -> str:
    """What a pass names a seat by: its id, its secret's hash and its account. Any of
    them changed (a seat made again, a new secret, an account gone) and the pass
    no longer fits."""
    if seat is None:
        return ""
    text = f"{seat.pk}:{seat.token_hash}:{seat.user_id or 0}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _binding(session: str, language_cookie: str, accept_language: str) -> str:
    """A digest of what Django read the role and the language from."""
    text = "\x1f".join((session, language_cookie, accept_language))
    return hashlib.sha256(text.encode()).hexdigest()[:22]


def issue(request: HttpRequest, slug: str, seat: Seat | None) -> str:
    """The pass for what Django found answering `request` (the room's state): `seat`
    is the one it answered for (None: a spectator), in the active language."""
    role = str(seat.number) if seat is not None else SPECTATOR
    binding = _binding(
        request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""),
        request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""),
        request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
    )
    value = f"{slug}|{role}|{seat_fingerprint(seat)}|{get_language()}|{binding}"
    return _signed(value, int(time.time()), settings.SECRET_KEY)


@lru_cache(maxsize=4096)
def _signed(value: str, second: int, key: str) -> str:
    """The value signed with this second's timestamp: what TimestampSigner gives for
    it within that second (its timestamp counts whole seconds), made once for the
    spectators of a room asking in the same second instead of once a request
    (a key derivation and an HMAC: a tenth of a state GET's CPU)."""
    del second, key  # the cache's key: a new second, or a new SECRET_KEY, signs again
    return signing.TimestampSigner(salt=SALT).sign(value)


def read(headers: Iterable[tuple[bytes, bytes]], slug: str) -> Pass | None:
    """The request's pass for room `slug`, checked against its cookies and headers
    (an ASGI scope's); None without one that is good for this very request."""
    passes: list[bytes] = []
    cookies: list[bytes] = []
    accept: list[bytes] = []
    for name, value in headers:
        if name == b"x-mesa-pass":
            passes.append(value)
        elif name == b"cookie":
            cookies.append(value)
        elif name == b"accept-language":
            accept.append(value)
    if len(passes) != 1 or len(accept) > 1:
        return None
    try:
        signed = signing.TimestampSigner(salt=SALT).unsign(
            passes[0].decode("latin-1"), max_age=PASS_SECONDS
        )
    except signing.BadSignature:  # SignatureExpired included
        return None
    parts = signed.split("|")
    if len(parts) != 5:
        return None
    room, role, seat, language, binding = parts
    if room != slug or role not in ROLES or (role == SPECTATOR) != (seat == ""):
        return None
    if language not in {code for code, _name in settings.LANGUAGES}:
        return None
    jar = parse_cookie(b"; ".join(cookies).decode("latin-1"))  # as request.COOKIES
    found = _binding(
        jar.get(settings.SESSION_COOKIE_NAME, ""),
        jar.get(settings.LANGUAGE_COOKIE_NAME, ""),
        accept[0].decode("latin-1") if accept else "",
    )
    if found != binding:
        return None
    return Pass(room, role, seat, language)
