"""Rooms and seats: open a room, take its free seat, claim a browser's seats, seen.

Each function is a transaction; a room's first match starts here
(games.services.table.start_match), the opening roll included.
"""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TypedDict

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from accounts.ratelimit import recipient_mail_allowed
from games.bots import BOT_NAMES
from games.engine import MatchRules
from games.lib import clock
from games.lib.errors import BadInput, Conflict, NotFound
from games.models import Room, Seat
from games.services import cleaning, live, outbox
from games.services.table import start_match


class PlayerDetails(TypedDict):
    """Who sits down, as room_create and room_join take it (the account apart, as
    `user`): read from the API's JSON body (games.web.api.parse_player) or from the
    home page's and the invitation's forms (games.web.forms.PlayerFields.player)."""

    nickname: str
    email: str
    email_consent: bool
    time_zone: str


# How often a seat's last_seen_at is written at most (the board polls).
SEEN_EVERY = timedelta(seconds=30)


def room_create(
    *,
    rules: MatchRules | dict[str, object],
    nickname: str,
    email: str = "",
    email_consent: bool = False,
    user: User | None = None,
    bot: str | None = None,
    language: str = "es",
    rated: bool = True,
    time_zone: str = "",
    days_per_move: object = None,
    vacation_cap_days: int | None = None,
    rematch: bool = True,
) -> Seat:
    """Open a room and sit its host at seat 1; against a bot the match starts at once.

    `days_per_move`: the player on turn's time before absence (None: the seeds' two
    days); `vacation_cap_days`: the most a vacation stops one turn (a tournament's).

    `rated`: False when the host chose a match that changes nobody's rating
    (games.selectors.ratings says which matches are rated at all).

    The returned seat carries `.token`, the private seat secret, this one time.
    """
    rules = cleaning.clean_rules(rules)
    nickname = cleaning.clean_nickname(nickname)
    email, email_consent = cleaning.clean_email(email, email_consent)
    if bot is not None and bot not in BOT_NAMES:
        raise BadInput("bad_bot", f"unknown bot {bot!r}")
    if not isinstance(rated, bool):
        raise BadInput("bad_rated", f"rated must be true or false, got {rated!r}")
    email_consent = _consent_within_cap(email, email_consent, user)
    days = cleaning.clean_days_per_move(days_per_move)
    now = clock.now()
    with transaction.atomic():
        room = Room.objects.create(
            rules=rules.to_json(),
            bot=bot or "",
            rated=rated,
            created_at=now,
            last_move_at=now,
            days_per_move=days,
            vacation_cap_days=vacation_cap_days,
            rematch=rematch,
        )
        host = _new_seat(
            room, 1, nickname, email, email_consent, user, language, now, time_zone=time_zone
        )
        if bot:
            _new_seat(room, 2, bot.capitalize(), "", False, None, "es", now)
            room.status = Room.Status.PLAYING
            room.save(update_fields=["status"])
            start_match(room, number=1, side0_seat_number=1, now=now)
    return host


def room_join(
    *,
    room: Room,
    nickname: str,
    email: str = "",
    email_consent: bool = False,
    user: User | None = None,
    language: str = "es",
    time_zone: str = "",
) -> Seat:
    """Take the free seat of a waiting room and start the match (opening roll included).

    The returned seat carries `.token`, the private seat secret, this one time.
    """
    nickname = cleaning.clean_nickname(nickname)
    email, email_consent = cleaning.clean_email(email, email_consent)
    email_consent = _consent_within_cap(email, email_consent, user)
    now = clock.now()
    with transaction.atomic():
        try:
            room = Room.objects.select_for_update().get(pk=room.pk)
        except Room.DoesNotExist:
            raise NotFound("not_found") from None
        if room.status != Room.Status.WAITING:
            raise Conflict("room_full", f"room is {room.status}")
        if user is not None and room.seats.filter(user=user).exists():
            raise Conflict("already_seated")
        seat = _new_seat(
            room, 2, nickname, email, email_consent, user, language, now, time_zone=time_zone
        )
        room.status = Room.Status.PLAYING
        room.last_move_at = now
        room.save(update_fields=["status", "last_move_at"])
        start_match(room, number=1, side0_seat_number=1, now=now)
        outbox.schedule("games.tasks.opponent_joined_email", room.pk)
    return seat


def seats_claim_for_user(*, user: User, seat_ids: Sequence[object]) -> int:
    """Attach this browser's guest seats to an account; seats of another account stay put."""
    ids = [i for i in seat_ids if isinstance(i, int) and not isinstance(i, bool)]
    with transaction.atomic():
        claimed = Seat.objects.filter(pk__in=ids, user__isnull=True)
        rooms = set(claimed.values_list("room_id", flat=True))
        count: int = claimed.update(user=user)
        for room_id in rooms:
            live.room_moved(room_id)  # the boards show the account's name now
        return count


def seat_seen(*, seat: Seat) -> None:
    """Note that the seat's holder is looking at the board (no email while they are)."""
    now = clock.now()
    if seat.last_seen_at and now - seat.last_seen_at < SEEN_EVERY:
        return
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=now)
    seat.last_seen_at = now


def _consent_within_cap(email: str, consent: bool, user: User | None) -> bool:
    """A guest's consent to mail, unless its address was named by enough new
    seats today (whoever typed it: each one mails it about its room); the
    seat then plays without mail, and the log says so."""
    if not consent or user is not None:
        return consent
    return recipient_mail_allowed(kind="guest_seat", email=email)


def _new_seat(
    room: Room,
    number: int,
    nickname: str,
    email: str,
    email_consent: bool,
    user: User | None,
    language: str,
    now: datetime,
    *,
    time_zone: str = "",
) -> Seat:
    seat = Seat(
        room=room,
        number=number,
        nickname=nickname,
        email=email,
        email_consent=email_consent,
        user=user,
        language=language if language in ("es", "en") else "es",
        # The browser's time zone, for the deadlines in this seat's emails (UTC without one).
        time_zone=cleaning.clean_time_zone(time_zone),
        created_at=now,
        last_seen_at=now,  # the person is on the site right now: no email at once
    )
    token = seat.set_token()
    try:
        with transaction.atomic():
            seat.save()
    except IntegrityError:
        raise Conflict("room_full", "seat taken") from None
    seat.token = token
    return seat
