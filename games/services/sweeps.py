"""The sweeps' writes (periodic tasks): close a game by absence, expire an idle room.

Each takes one id found by a games.selectors.due query, locks the row
(due.lock_for_sweep, which waits for another worker holding it rather than
skip it), re-checks everything and acts at most once.
"""

from django.db import transaction

from games.engine import Action, ActionKind, EndReason
from games.lib import clock, deadlines
from games.models import Game, Match, Room
from games.selectors import due, vacations
from games.services import live, outbox
from games.services.table import open_table
from games.services.tournaments import tournament_match_ended


def absence_close(*, match_id: int) -> Match | None:
    """Close a game whose player on turn has owed an action for 48 h: the waiting player wins.

    Not when the waiting player chose to keep waiting this turn, and never in a
    room against the computer (its games may sleep until the room expires).
    """
    with transaction.atomic():
        match = due.lock_for_sweep(match_id)
        if match is None or match.turn_seat_id is None:
            return None
        # Re-checked under the lock: the turn may have passed, or been waived.
        turn = vacations.turn_clock(match)  # stands still while the player is away
        if turn.due_at != match.absence_due_at:
            # Moved while another transaction held the row: the sweeps read it.
            Match.objects.filter(pk=match.pk).update(absence_due_at=turn.due_at)
        if turn.closes_at is None:
            return None
        table = open_table(match)
        absent = table.owing_side()
        if not turn.closes(table.now) or absent is None:
            return None
        table.apply(Action(ActionKind.FORFEIT, absent, reason=EndReason.ABSENCE))
        saved = table.save()
        tournament_match_ended(match=saved)
        return saved


def room_expire(*, room_id: int) -> Room | None:
    """Expire a room with no move for seven days; its match ends with no winner."""
    now = clock.now()
    with transaction.atomic():
        # Lock the current match first, as every action does, then the room.
        latest = Match.objects.filter(room_id=room_id).order_by("-number").values("pk").first()
        match = due.lock_for_sweep(latest["pk"]) if latest else None
        if latest and match is None:
            return None  # its match ended meanwhile: the room is no longer idle
        room = Room.objects.select_for_update().filter(pk=room_id).first()
        if room is None or not room.is_active:
            return None
        # The idle days stand still while the player the room waits for is away.
        pauses = vacations.room_pauses(room, match)
        if not deadlines.room_expired(room.last_move_at, now, pauses):
            return None
        room.status = Room.Status.EXPIRED
        room.ended_at = now
        room.save(update_fields=["status", "ended_at"])
        live.room_moved(room_id)  # locked by the sweep's own query, not by table
        if match is not None and match.status == Match.Status.PLAYING:
            # In a tournament the room's end decides the match: the player it
            # waited for loses (seat 1's side when it waited for nobody).
            waited_for = match.turn_seat
            loser = match.side_of(waited_for) if waited_for is not None else 1
            match.status = Match.Status.FINISHED
            match.ended_at = now
            match.turn_seat = None
            match.turn_started_at = None
            match.absence_due_at = None
            match.version += 1
            match.save()
            # No roll will ever be drawn again: the seed can be checked.
            match.games.filter(status=Game.Status.PLAYING).update(
                status=Game.Status.FINISHED, revealed=True, ended_at=now
            )
            outbox.schedule("games.tasks.match_ended_email", match.pk)
            tournament_match_ended(match=match, winner_side=1 - loser)
        return room
