"""The rematch after a match: offer, accept, and the new match with sides swapped."""

from django.db import transaction

from games.lib import clock
from games.lib.errors import Conflict, IllegalMoveError
from games.models import Match, Room, Seat
from games.services import outbox
from games.services.table import lock_current_match, start_match


def rematch_offer(*, seat: Seat) -> Match:
    """Offer a rematch after the match; when the other seat already offered, it starts."""
    with transaction.atomic():
        match = lock_current_match(seat)
        if match.status != Match.Status.FINISHED:
            raise Conflict("match_not_over")
        _not_in_a_tournament(match)
        offered = match.rematch_offered_by_id
        if offered is not None and offered != seat.pk:
            return _start_rematch(match)
        if offered is None:
            match.rematch_offered_by = seat
            match.version += 1
            match.save(update_fields=["rematch_offered_by", "version"])
            if match.room.bot:
                outbox.schedule("games.tasks.bot_turn", match.pk, match.version)
        return match


def rematch_accept(*, seat: Seat) -> Match:
    """Accept the other seat's rematch offer: a new match, sides swapped."""
    with transaction.atomic():
        match = lock_current_match(seat)
        if match.status != Match.Status.FINISHED:
            raise Conflict("match_not_over")
        _not_in_a_tournament(match)
        if match.rematch_offered_by_id in (None, seat.pk):
            raise IllegalMoveError("nothing_offered", "no rematch offer from the other seat")
        return _start_rematch(match)


def _start_rematch(match: Match) -> Match:
    # A second accept (another tab) waited on this match's lock while the first
    # started the rematch: the locked match is no longer the room's current one.
    if Match.objects.filter(room_id=match.room_id, number__gt=match.number).exists():
        raise Conflict("stale_version", "the rematch has already started")
    now = clock.now()
    room = match.room
    room.status = Room.Status.PLAYING
    room.ended_at = None
    room.last_move_at = now
    room.save(update_fields=["status", "ended_at", "last_move_at"])
    # The old match's version moves too, so a board showing it reloads.
    match.version += 1
    match.save(update_fields=["version"])
    return start_match(
        room,
        number=match.number + 1,
        side0_seat_number=3 - match.side0_seat_number,
        now=now,
        # Versions keep growing across the room's matches, so a client's
        # "newer than what I saw" stays true after a rematch.
        version=match.version,
    )


def _not_in_a_tournament(match: Match) -> None:
    if not match.room.rematch:
        raise Conflict("tournament_room", "a tournament's next match comes by itself")
