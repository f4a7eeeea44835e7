"""A word with each move: the writes. One function per action.

A message goes with a turn (`act_with_message`: the action and the words in
one transaction, so a refused action writes no message either) or on its own
(`message_send`). Either way it locks the room's current match, as every
action does; a word on its own leaves the version alone (the long poll
notices the new message by itself, games.web.longpoll.pulse). Only the two players ever
read messages (games.selectors.talk.messages_for); `messages_mute` hides an
opponent's words for good.
"""

from collections.abc import Callable

from django.db import transaction

from games.lib import clock
from games.lib.errors import Conflict, NotSeatHolder
from games.models import Match, Message, Mute, Room, Seat
from games.services import live
from games.services.cleaning import clean_message
from games.services.table import lock_current_match


def message_send(*, seat: Seat | None, text: object) -> Message:
    """Send a word to the opponent, on its own (not with a turn)."""
    text = clean_message(text)
    seat = _require_person_opposite(seat)
    with transaction.atomic():
        # Locked like an action, but the version stays: a word changes no game,
        # and the turn email owed for this version must still go out.
        match = lock_current_match(seat)
        return _write(seat, match, text, with_turn=False)


def act_with_message(*, seat: Seat | None, text: object, act: Callable[[], Match]) -> Match:
    """Run one game action and keep the word that goes with it, both or neither.

    `text` is checked before the action runs: a bad message changes nothing.
    """
    text = clean_message(text)
    seat = _require_person_opposite(seat)
    with transaction.atomic():
        match = act()
        _write(seat, match, text, with_turn=True)
        return match


def messages_mute(*, seat: Seat | None) -> Mute:
    """Stop reading the opponent's messages: in this room, and when both players
    have accounts, in every room they share. There is no undo."""
    if not isinstance(seat, Seat) or seat.pk is None:
        raise NotSeatHolder()
    opponent = Seat.objects.filter(room_id=seat.room_id).exclude(pk=seat.pk).first()
    if opponent is None:
        raise Conflict("no_match", "nobody to mute yet")
    both_accounts = seat.user_id is not None and opponent.user_id is not None
    with transaction.atomic():
        mute, _created = Mute.objects.get_or_create(
            seat=seat,
            defaults={
                "user_id": seat.user_id if both_accounts else None,
                "muted_user_id": opponent.user_id if both_accounts else None,
                "created_at": clock.now(),
            },
        )
        live.room_moved(seat.room_id)  # the muter's other tabs hide the words too
    return mute


def _require_person_opposite(seat: Seat | None) -> Seat:
    if not isinstance(seat, Seat) or seat.pk is None:
        raise NotSeatHolder()
    if Room.objects.filter(pk=seat.room_id).exclude(bot="").exists():
        raise Conflict("bot_reads_nothing", "no messages to the computer")
    return seat


def _write(seat: Seat, match: Match, text: str, *, with_turn: bool) -> Message:
    return Message.objects.create(
        room_id=seat.room_id,
        match=match,
        seat=seat,
        text=text,
        version=match.version,
        with_turn=with_turn,
        created_at=clock.now(),
    )
