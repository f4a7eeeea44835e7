"""Web Push: "Es tu turno" on the phone, next to the email (RFC 8030, 8291, 8292).

The same moment and the same quiet rules as the email (games.mail.messages
send_your_turn): only for the seat on turn at that version, never for the
computer, not while the person is on the board (NotNow: look again when the
quiet period ends). Each browser gets each turn once, under a SentEmail key
(games.mail.claims). pywebpush encrypts the message with the browser's keys
(aes128gcm) and signs a VAPID token with the site's key; a push service that
answers 404 or 410 no longer knows the browser, and its subscription goes.
"""

import json
import logging
from functools import partial

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from pywebpush import WebPushException, webpush

from games.lib import clock, deadlines
from games.mail import claims
from games.mail.messages import NotNow, board_link, is_on_the_board
from games.models import Match, PushSubscription, Seat

log = logging.getLogger(__name__)

TTL_SECONDS = 24 * 3600  # a push service may keep it a day for a phone that is off
GONE = (404, 410)


def push_enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def send_turn_push(*, match_id: int, version: int) -> int:
    """Push "Es tu turno" to every browser the player on turn allowed; how many went out."""
    if not push_enabled():
        return 0
    match = (
        Match.objects.select_related("turn_seat__room", "turn_seat__user__profile")
        .filter(pk=match_id, version=version, status=Match.Status.PLAYING)
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
        claim = claims.claim_key(f"push:{match.pk}:{version}:{subscription.pk}")
        if claim is None:
            continue
        sent += claims.send_claimed([claim], partial(_push, subscription, payload))
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


def _push(subscription: PushSubscription, payload: str) -> None:
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
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in GONE:
            # The browser unsubscribed or the push service forgot it: nothing to retry.
            log.info("push subscription %s is gone (%s)", subscription.pk, status)
            subscription.delete()
            return
        raise
