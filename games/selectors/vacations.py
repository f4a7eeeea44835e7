"""Vacations, read: the pauses of a player's clocks, and who is away now.

A vacation (accounts.Vacation) stops the absence clock of its player in
every match, and the room's idle days with it (games.lib.deadlines). The
services write the deadlines from `turn_clock`; the board, the emails and the
sweeps read the same clock, so they all agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db.models import Q, QuerySet

from accounts import vacation
from accounts.models import Vacation
from games.lib import clock, deadlines
from games.models import Match, Room


def _overlapping(since: datetime) -> Q:
    """Vacations still running at `since`, or started after it."""
    return Q(ended_at__isnull=True, ends_at__gt=since) | Q(ended_at__gt=since)


def pauses_of(user_id: int | None, since: datetime | None) -> tuple[deadlines.Pause, ...]:
    """The user's vacations that reach past `since`, as the clock's pauses."""
    if user_id is None or since is None:
        return ()
    rows = Vacation.objects.filter(_overlapping(since), user_id=user_id)
    return tuple(row.span for row in rows)


def _turn_user_id(match: Match) -> int | None:
    if match.turn_seat_id is None:
        return None
    seat = match.turn_seat  # loaded already by the table; one query otherwise
    return seat.user_id if seat is not None else None


def turn_clock(
    match: Match, *, pauses: Iterable[deadlines.Pause] | None = None
) -> deadlines.TurnClock:
    """The absence clock of the match's current turn, the vacations of its player included.

    `pauses`: that player's vacations when the caller read them already
    (pauses_by_user); otherwise one query here.
    """
    if pauses is None:
        pauses = pauses_of(_turn_user_id(match), match.turn_started_at)
    return deadlines.TurnClock.of(match, against_bot=bool(match.room.bot), pauses=pauses)


def pauses_by_user(
    user_ids: Iterable[int | None], since: datetime | None
) -> dict[int, tuple[deadlines.Pause, ...]]:
    """{user id: their vacations reaching past `since`} for many players in one query."""
    ids = {i for i in user_ids if i is not None}
    if not ids or since is None:
        return {}
    found: dict[int, list[deadlines.Pause]] = {}
    for row in Vacation.objects.filter(_overlapping(since), user_id__in=ids):
        found.setdefault(row.user_id, []).append(row.span)
    return {user_id: tuple(spans) for user_id, spans in found.items()}


def room_pauses(room: Room, match: Match | None) -> tuple[deadlines.Pause, ...]:
    """The pauses of a room's idle days: the vacations of the player its match waits for."""
    if match is None or match.status != Match.Status.PLAYING:
        return ()
    return pauses_of(_turn_user_id(match), room.last_move_at)


def current(user_id: int, now: datetime | None = None) -> Vacation | None:
    """The user's vacation running now, if any."""
    now = now or clock.now()
    return (
        Vacation.objects.filter(user_id=user_id, starts_at__lte=now)
        .filter(_overlapping(now))
        .order_by("-starts_at")
        .first()
    )


def away_until(user_ids: Iterable[int | None], now: datetime | None = None) -> dict[int, datetime]:
    """{user id: when their vacation ends} for those of `user_ids` away now (one query)."""
    now = now or clock.now()
    ids = [i for i in user_ids if i is not None]
    if not ids:
        return {}
    rows = Vacation.objects.filter(_overlapping(now), user_id__in=ids, starts_at__lte=now)
    return {row.user_id: row.until for row in rows}


def away_now() -> QuerySet[Vacation]:
    """Vacations running now (for the sweeps' queries)."""
    now = clock.now()
    return Vacation.objects.filter(_overlapping(now), starts_at__lte=now)


def spans_of(user_id: int) -> list[vacation.Span]:
    return [row.span for row in Vacation.objects.filter(user_id=user_id)]


def allowance(user_id: int, now: datetime | None = None) -> dict[str, int]:
    """This calendar year's vacation: hours used and left (30 days a year, to the hour)."""
    now = now or clock.now()
    spans = spans_of(user_id)
    used = vacation.hours_used(spans, now.year)
    return {
        "hours_used": used,
        "hours_left": vacation.hours_left(spans, now.year),
        "days_left": vacation.hours_left(spans, now.year) // 24,
    }


def matches_on_turn(user_id: int) -> QuerySet[Match]:
    """The playing matches that wait for this user now: the deadlines a vacation moves."""
    return Match.objects.filter(status=Match.Status.PLAYING, turn_seat__user_id=user_id)
