"""The read side of a word with each move: what each player reads.

Only ever for one of the two players: a spectator's state has no trace of the
messages (games.selectors.board adds them for a seat holder only).
"""

from typing import TypedDict

from django.db.models import Max, Q

from games.models import MESSAGE_MAX, Match, Message, Mute, Seat, Turn
from games.selectors.prepared import prepared

# How many words of the room a board shows, and of the opponent an email, at most.
MESSAGES_SHOWN = 50
MESSAGES_IN_EMAIL = 5


class MessageLine(TypedDict):
    seat: int
    nickname: str
    mine: bool
    text: str
    with_turn: bool
    version: int
    at: str


class TalkView(TypedDict):
    muted: bool
    max_length: int
    messages: list[MessageLine]


def mutes_opponent(seat: Seat, opponent: Seat | None) -> bool:
    """The holder of `seat` muted this opponent: in this room, or for good between accounts."""
    if opponent is None:
        return False
    muted = Q(seat_id=seat.pk)
    if seat.user_id is not None and opponent.user_id is not None:
        muted |= Q(user_id=seat.user_id, muted_user_id=opponent.user_id)
    return Mute.objects.filter(muted).exists()


def messages_for(seat: Seat, seats: dict[int, Seat]) -> TalkView:
    """The words of the room as this player reads them: theirs, and the opponent's
    unless muted. Only ever called for a seat holder: a spectator reads none.

    Two queries: the mute, the messages.
    """
    opponent = seats.get(3 - seat.number)
    muted = mutes_opponent(seat, opponent)
    names = {s.pk: (s.number, s.nickname) for s in seats.values()}
    if muted:
        rows = Message.objects.filter(room_id=seat.room_id, seat_id=seat.pk)
        latest = list(rows.order_by("-created_at", "-pk")[:MESSAGES_SHOWN])
    else:
        latest = _latest(seat.room_id)
    return {
        "muted": muted,
        "max_length": MESSAGE_MAX,
        "messages": [
            {
                "seat": names[m.seat_id][0],
                "nickname": names[m.seat_id][1],
                "mine": m.seat_id == seat.pk,
                "text": m.text,
                "with_turn": m.with_turn,
                "version": m.version,
                "at": m.created_at.isoformat(),
            }
            for m in reversed(latest)
        ],
    }


def _latest(room_id: int) -> list[Message]:
    """The room's newest words, newest first. Compiled once (games.selectors.prepared):
    every state a seat holder reads that is not a cache hit reads them, the answer
    to each of their actions too."""
    return prepared(
        "talk latest",
        Message,
        lambda room: Message.objects.filter(room_id=room).order_by("-created_at", "-pk")[
            :MESSAGES_SHOWN
        ],
    ).instances(room_id)


def messages_for_email(seat: Seat, match: Match) -> list[str]:
    """The opponent's words since this player last acted in the match, for their
    turn email (none when muted)."""
    opponent = Seat.objects.filter(room_id=seat.room_id).exclude(pk=seat.pk).first()
    if opponent is None or mutes_opponent(seat, opponent):
        return []
    since = Turn.objects.filter(game__match=match, seat=seat, automatic=False).aggregate(
        last=Max("created_at")
    )["last"]
    rows = Message.objects.filter(room_id=seat.room_id, seat=opponent)
    if since is not None:
        rows = rows.filter(created_at__gte=since)
    latest = list(
        rows.order_by("-created_at", "-pk").values_list("text", flat=True)[:MESSAGES_IN_EMAIL]
    )
    return list(reversed(latest))
