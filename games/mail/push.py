"""Web Push: "Es tu turno" on the phone, next to the email (RFC 8030, 8291, 8292).

The same moment and the same quiet rules as the email (games.mail.messages
send_your_turn): only for the seat on turn in the turn it was owed for, never for the
computer, not while the person is on the board (NotNow: look again when the
quiet period ends). Each browser gets each turn once, under a SentEmail key
(games.mail.claims). pywebpush encrypts the message with the browser's keys
(aes128gcm) and signs a VAPID token with the site's key; a push service that
answers 404 or 410 no longer knows the browser, and its subscription goes.

At send time the endpoint's host name is resolved once, every address it
gives must be on the public internet (see `checked_address`: the name may
have pointed outward when the browser subscribed and inward now, DNS
rebinding), and the message goes to the address that was checked, never to
a second lookup of the name (`pinned_session`).
"""

import ipaddress
import json
import logging
import socket
from datetime import datetime
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from pywebpush import WebPushException, webpush
from requests import PreparedRequest, Session
from requests.adapters import HTTPAdapter

from games.lib import clock, deadlines
from games.mail import claims
from games.mail.messages import NotNow, board_link, is_on_the_board, turn_owed
from games.models import PushSubscription, Seat

log = logging.getLogger(__name__)

TTL_SECONDS = 24 * 3600  # a push service may keep it a day for a phone that is off
GONE = (404, 410)


def push_enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def send_turn_push(*, match_id: int, version: int, started: datetime | None = None) -> int:
    """Push "Es tu turno" to every browser the player on turn allowed; how many went out.

    Owed for the turn begun at `started`, as the email (turn_owed)."""
    if not push_enabled():
        return 0
    match = (
        turn_owed(match_id, version, started)
        .select_related("turn_seat__room", "turn_seat__user__profile")
        .first()
    )
    if match is None or match.turn_seat is None or match.turn_seat.is_bot:
        return 0
    seat = match.turn_seat
    if seat.user_id is None:
        return 0
    subscriptions = list(PushSubscription.objects.filter(user_id=seat.user_id))
    if not subscriptions:
        return 0
    if seat.last_seen_at is not None and is_on_the_board(seat, clock.now()):
        raise NotNow(deadlines.quiet_ends(seat.last_seen_at))
    payload = json.dumps(_message(seat), ensure_ascii=False)
    sent = 0
    for subscription in subscriptions:
        address = _address_or_forget(subscription)
        if address is None:
            continue
        claim = claims.claim_key(f"push:{match.pk}:{version}:{subscription.pk}")
        if claim is None:
            continue
        sent += claims.send_claimed([claim], partial(_push, subscription, payload, address))
    return sent


def _message(seat: Seat) -> dict[str, str]:
    opponent = Seat.objects.filter(room_id=seat.room_id).exclude(pk=seat.pk).first()
    language = getattr(getattr(seat.user, "profile", None), "language", None) or seat.language
    with translation.override(language):
        return {
            "title": _("Es tu turno en Mesa"),
            "body": _("%(name)s ya jugó y la mesa te espera.")
            % {"name": opponent.nickname if opponent else "?"},
            "url": board_link(seat),
            "tag": f"mesa-{seat.room.slug}",  # one notification per table, the newest
        }


class InwardEndpoint(Exception):
    """The endpoint's name resolves into the site's own network (or nowhere)."""


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def checked_address(hostname: str, port: int) -> Address:
    """The address to post to: `hostname` resolved once, every answer public.

    Raises InwardEndpoint when any address of the name is not global
    (loopback, private, link-local, shared, reserved...): one inward answer
    is enough to aim the server at itself. Loopback passes only where the
    test settings allow it (PUSH_ALLOW_LOOPBACK: the suite's push service
    listens on 127.0.0.1). A failed lookup raises OSError, retried like an
    unreachable mail server.
    """
    found = socket.getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    if not addresses:
        raise InwardEndpoint(f"{hostname} has no address")
    for address in addresses:
        plain = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        seen = plain or address
        if not (seen.is_global or (settings.PUSH_ALLOW_LOOPBACK and seen.is_loopback)):
            raise InwardEndpoint(f"{hostname} resolves to {address}")
    return addresses[0]


class _PinnedAdapter(HTTPAdapter):
    """Connects to one checked address, whatever host the URL names.

    TLS still speaks to the name: it is sent as SNI and the certificate is
    verified against it; the Host header carries it too.
    """

    def __init__(self, hostname: str, address: Address) -> None:
        super().__init__(max_retries=0)
        self.hostname = hostname
        self.address = str(address)

    def build_connection_pool_key_attributes(
        self, request: PreparedRequest, verify: Any, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        if host_params["host"] != self.hostname:
            raise InwardEndpoint(f"{host_params['host']} is not the checked {self.hostname}")
        host_params["host"] = self.address
        if host_params["scheme"] == "https":
            pool_kwargs["server_hostname"] = self.hostname
        return host_params, pool_kwargs

    def add_headers(self, request: PreparedRequest, **kwargs: Any) -> None:
        request.headers["Host"] = urlsplit(request.url or "").netloc.rpartition("@")[2]


def pinned_session(hostname: str, address: Address) -> Session:
    """A requests session whose every connection goes to `address` for `hostname`.

    No proxy from the environment (it would resolve the name again) and no
    redirect (to another host) is followed.
    """
    session = Session()
    session.trust_env = False
    session.max_redirects = 0
    adapter = _PinnedAdapter(hostname, address)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def _address_or_forget(subscription: PushSubscription) -> Address | None:
    """Where to post this subscription's message; None when it was forgotten.

    No push service lives inside the site's network: an endpoint that
    resolves there is a mistake or an attempt to aim the server inward.
    Skipping it would only try again at every turn, so the subscription goes
    (with a log line); the player may allow notifications again from a push
    service's URL.
    """
    parts = urlsplit(subscription.endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        return checked_address(parts.hostname or "", port)
    except InwardEndpoint as refused:
        log.warning("push subscription %s forgotten: %s", subscription.pk, refused)
        subscription.delete()
        return None


def _push(subscription: PushSubscription, payload: str, address: Address) -> None:
    hostname = urlsplit(subscription.endpoint).hostname or ""
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=payload,
            vapid_private_key=settings.VAPID_PRIVATE_KEY,
            vapid_claims={"sub": settings.VAPID_SUBJECT},  # a fresh dict: webpush fills it
            ttl=TTL_SECONDS,
            timeout=10,
            requests_session=pinned_session(hostname, address),
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in GONE:
            # The browser unsubscribed or the push service forgot it: nothing to retry.
            log.info("push subscription %s is gone (%s)", subscription.pk, status)
            subscription.delete()
            return
        raise
