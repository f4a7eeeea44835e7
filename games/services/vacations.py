"""Vacations, written: start one, come back early, and move the deadlines they stop.

While a player is away (accounts.Vacation), the absence clock of every match
that waits for them stands still (games.lib.deadlines.run_clock), so each of
those matches' stored deadline (Match.absence_due_at, which the sweeps read)
moves when a vacation starts or ends. A move by the player ends their
vacation (games.services.table calls `vacation_end_on_move`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from accounts import vacation
from accounts.models import Vacation
from games.lib import clock
from games.lib.errors import BadInput, Conflict, NotSeatHolder
from games.models import Match, Room, Seat
from games.selectors import vacations
from games.services import live


def clean_days(days: object) -> int:
    """A whole number of days from 1 to 30 (a form's text or the API's number)."""
    if isinstance(days, str) and days.strip().isdigit():
        days = int(days.strip())
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= vacation.MAX_DAYS:
        raise BadInput("bad_vacation_days", f"days must be 1-{vacation.MAX_DAYS}, got {days!r}")
    return days


def vacation_start(*, user: User | AnonymousUser | None, days: object) -> Vacation:
    """Go on vacation from now for `days` days, mid-turn too.

    1. Lock the account's row: one vacation change per account at a time.
    2. Refuse a second vacation while one runs, and one longer than what is
       left of the year's 30 days (counted to the hour, accounts.vacation).
    3. Write the vacation; move the deadline of every match waiting for the player.
    """
    if user is None or not user.is_authenticated:
        raise NotSeatHolder("login_required")
    assert isinstance(user, User)
    days = clean_days(days)
    now = clock.now()
    with transaction.atomic():
        _lock_account(user)
        if vacations.current(user.pk, now) is not None:
            raise Conflict("on_vacation")
        span = (now, now + timedelta(days=days))
        if not vacation.fits(vacations.spans_of(user.pk), span):
            raise Conflict("no_vacation_left")
        row = Vacation.objects.create(user=user, starts_at=span[0], ends_at=span[1])
        refresh_deadlines(user_id=user.pk)
        _wake_boards(user.pk)
    return row


def vacation_end(*, user: User | AnonymousUser | None) -> Vacation:
    """Come back before the planned end: the clocks run again from now."""
    if user is None or not user.is_authenticated:
        raise NotSeatHolder("login_required")
    assert isinstance(user, User)
    with transaction.atomic():
        _lock_account(user)
        row = _end(user.pk, clock.now())
        if row is None:
            raise Conflict("not_on_vacation")
        refresh_deadlines(user_id=user.pk)
        _wake_boards(user.pk)
    return row


def vacation_end_on_move(*, user_id: int, now: datetime, match_id: int) -> Vacation | None:
    """The player moved in a match: their vacation, if one runs, ends now.

    Runs in the caller's transaction (the table's save). The acting match's
    deadline is the caller's to write; the others waiting for the player are
    moved here.
    """
    row = _end(user_id, now)
    if row is not None:
        refresh_deadlines(user_id=user_id, skip=match_id)
    return row


def refresh_deadlines(*, user_id: int, skip: int | None = None) -> int:
    """Write again the absence deadline of every match waiting for the user.

    Waits for a match another transaction holds, in id order: skipping it
    (as before) left its old deadline in place when the holder was a sweep,
    which writes no deadline, or an action that read the vacations before
    this one committed; the reminder of the moved deadline then never came.
    """
    matches = (
        vacations.matches_on_turn(user_id)
        .select_for_update(of=("self",))
        .select_related("room", "turn_seat")
        .order_by("pk")
    )
    if skip is not None:
        matches = matches.exclude(pk=skip)
    moved = 0
    for match in matches:
        due = vacations.turn_clock(match).due_at
        if due != match.absence_due_at:
            Match.objects.filter(pk=match.pk).update(absence_due_at=due)
            moved += 1
    return moved


def _end(user_id: int, now: datetime) -> Vacation | None:
    row = vacations.current(user_id, now)
    if row is None:
        return None
    row.ended_at = now
    row.save(update_fields=["ended_at"])
    return row


def _wake_boards(user_id: int) -> None:
    """Every open room of the player shows their vacation: its boards are woken
    (games.services.live, on commit), as by a move."""
    rooms = Seat.objects.filter(user_id=user_id, room__status__in=Room.ACTIVE)
    for room_id in rooms.values_list("room_id", flat=True):
        live.room_moved(room_id)


def _lock_account(user: User) -> None:
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
