"""Rate limits counted in Django's cache, shared by every web process.

`allow` counts one hit of anything (a room created, a join, a game action:
games.web.throttle; a reset or confirmation mail here) per key in a fixed window.
The cache must be one all web workers share (settings.CACHES: Redis or the
database, never a per-process memory cache in production).

Failed log-ins are counted per username (by django-axes, with the numbers
here: accounts.lockout) and per address (here); a fixed window starts at the
first failure. Past the limit every attempt is refused before the password
is even checked, so guessing stops paying off. The per-address limit is
higher: several people behind one router mistype too, and it still stops one
machine trying many usernames.
"""

import hashlib
import logging

from django.core.cache import cache

# Every limit counts per client, decided once there (an IPv6 client is its /64:
# client_key, client_group); callers import them from here too.
from .client import client_address as client_address
from .client import client_group
from .client import client_key as client_key

log = logging.getLogger(__name__)

WINDOW_SECONDS = 15 * 60
MAX_FAILURES_PER_USERNAME = 5
MAX_FAILURES_PER_ADDRESS = 20


def _address_key(address: str) -> str:
    return f"mesa:login-fail:addr:{client_group(address) or '-'}"


def address_is_blocked(address: str) -> bool:
    """Whether this address failed too many log-ins (accounts.lockout counts them)."""
    failures: int = cache.get(_address_key(address), 0)
    return failures >= MAX_FAILURES_PER_ADDRESS


def _count(key: str, window: int) -> int:
    """Add one to a counter whose window starts at its first hit; the new count."""
    # add() starts the window only if it is not running yet.
    cache.add(key, 0, timeout=window)
    try:
        count: int = cache.incr(key)
        return count
    except ValueError:  # expired between add() and incr()
        cache.set(key, 1, timeout=window)
        return 1


def _digest(text: str | None) -> str:
    # Hash what identifies the client: it may be user input, and cache keys have a charset.
    return hashlib.sha256((text or "-").encode()).hexdigest()


def allow(scope: str, ident: str, *, limit: int, window: int) -> bool:
    """Count one hit of `ident` under `scope`; False once it reached `limit` in `window` s."""
    return allow_all([(scope, ident, limit, window)])


def allow_all(counters: list[tuple[str, str, int, int]]) -> bool:
    """Count one hit on every (scope, ident, limit, window) counter, or on none.

    A refused hit writes nothing: every counter is read first, and only when
    all are below their limits is each counted, so a client kept out cannot
    keep its own window open or fill the cache. On Redis this is one atomic
    script (config.cache.FailOpenRedisCache.count_all); elsewhere two requests
    at once may both pass the read, so a limit can be passed by the few in flight.
    """
    keys = [
        (f"mesa:rate:{scope}:{_digest(ident)}", limit, window)
        for scope, ident, limit, window in counters
    ]
    count_all = getattr(cache, "count_all", None)  # Redis (config.cache): one round trip
    if count_all is not None:
        return bool(count_all(keys))
    counts: dict[str, int] = cache.get_many([key for key, _limit, _window in keys])
    if any(counts.get(key, 0) >= limit for key, limit, _window in keys):
        return False
    return all([_count(key, window) <= limit for key, limit, window in keys])


def login_failed(*, address: str) -> None:
    """Count one failed log-in from `address` (the username's count is django-axes')."""
    _count(_address_key(address), WINDOW_SECONDS)


# Password reset mail: a few a day to one address (recipient_mail_allowed, below),
# a few more an hour from one client, so the form cannot be used to flood
# anyone's inbox. Past either the page looks the same but nothing is sent.
RESET_WINDOW_SECONDS = 60 * 60
MAX_RESETS_PER_ADDRESS = 10


def password_reset_allowed(*, email: str | None, address: str) -> bool:
    """Count one reset request; False once the client asked too often this hour,
    or the email got its resets of the day."""
    per_address = allow(
        "reset:addr",
        client_group(address),
        limit=MAX_RESETS_PER_ADDRESS,
        window=RESET_WINDOW_SECONDS,
    )
    return per_address and recipient_mail_allowed(kind="reset", email=email or "")


# Sign-up: every sign-up mails an address the form names (a confirmation, or
# a note to the owner of an account it already has), so an address may sign
# up a few times an hour, like the reset form.
MAX_SIGNUPS_PER_ADDRESS = 5


def signup_allowed(*, address: str) -> bool:
    """Count one sign-up from `address`; False past the hourly limit."""
    return allow(
        "signup:addr",
        client_group(address),
        limit=MAX_SIGNUPS_PER_ADDRESS,
        window=RESET_WINDOW_SECONDS,
    )


# Confirmation mail on request, from the profile: the same few per hour, so an
# account signed up with someone else's address cannot flood that inbox.
MAX_CONFIRMATIONS_PER_USER = 3


def confirmation_resend_allowed(*, user_id: int) -> bool:
    """Count one request to resend the confirmation; False past the hourly limit."""
    return allow(
        "confirm:user", str(user_id), limit=MAX_CONFIRMATIONS_PER_USER, window=RESET_WINDOW_SECONDS
    )


# Mail to an address someone else typed: a sign-up naming it (its confirmation,
# or a note to the owner of its account), a password reset, a confirmation of a
# changed address, an invitation by name, a guest's seat that asks for mail
# (each one mails it about its room, turn after turn). Whatever the clients
# and their limits above, one address gets at most this many of each kind a
# day; past it the request is answered as usual (nothing tells whether the
# address has an account) and the mail is held back (the guest's seat mails
# nothing), with a line in the log.
MAILS_PER_RECIPIENT = 3
MAIL_WINDOW_SECONDS = 24 * 60 * 60
RECIPIENT_MAIL_KINDS = ("signup", "reset", "confirm", "invitation", "guest_seat")


def mailbox(email: str) -> str:
    """The mailbox an address reaches: lower case, without a "+tag" (most
    providers deliver "ana+1@" to "ana@"), so the tags count as one recipient."""
    local, at, domain = (email or "").strip().lower().rpartition("@")
    if not at:
        return domain
    return f"{local.split('+', 1)[0] or local}@{domain}"


def recipient_mail_allowed(*, kind: str, email: str) -> bool:
    """Count one mail of `kind` to `email`; False (logged) once the address had
    MAILS_PER_RECIPIENT of that kind in the day."""
    if kind not in RECIPIENT_MAIL_KINDS:
        raise ValueError(f"unknown kind of mail: {kind}")
    box = mailbox(email)
    if allow(f"mail:{kind}", box, limit=MAILS_PER_RECIPIENT, window=MAIL_WINDOW_SECONDS):
        return True
    log.warning(
        "mail: %s to %s held back: %d a day to one address at most",
        kind,
        _masked(box),
        MAILS_PER_RECIPIENT,
    )
    return False


def _masked(email: str) -> str:
    # Enough for the operator to see one address is the target, not the address.
    local, _at, domain = email.rpartition("@")
    return f"{local[:1]}***@{domain}" if local else "***"
