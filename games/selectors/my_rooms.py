""" "Mis partidas": a person's rooms, the most urgent first, and how many wait for them."""

from collections.abc import Iterable
from datetime import datetime
from typing import NotRequired, TypedDict

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q

from games.engine import Format, MatchRules, MatchState
from games.lib import clock
from games.models import Match, Room, Seat
from games.selectors import results, review, vacations

YOUR_TURN, THEIR_TURN, FINISHED = "your_turn", "their_turn", "finished"


class RoomLine(TypedDict):
    """One line of "Mis partidas" (rooms_for_seats says what each key means)."""

    room: Room
    seat: Seat
    opponent: str | None
    status: str
    group: NotRequired[str]
    your_turn: bool
    turn_started_at: datetime | None
    deadline: datetime | None
    hours_left: int | None
    last_move_at: datetime
    ended_at: datetime | None
    finished_matches: int
    prs: list[review.SeatPR]
    score: dict[str, int | None] | None
    forfeit: str | None
    rival_deadline: datetime | None
    rival_hours_left: int | None


def rooms_for_seats(seats: Iterable[Seat]) -> list[RoomLine]:
    """One line per room of these seats, the most urgent first (four queries, and one
    for the vacations of the accounts at these tables).

    First the rooms where the seat owes an action, the nearest absence
    deadline first (a table with a bot, or a turn the rival chose to wait
    out, has none and comes after); then the rooms waiting on the rival or
    on a second player, the longest waiting first; then the finished ones,
    the last to end first. Each line: room, seat, opponent, status, group,
    your_turn, turn_started_at, deadline and hours_left (None without one),
    last_move_at, ended_at, finished_matches (how many matches the room
    keeps in its archive), prs (each analysed game of the latest match:
    your PR and your rival's), score ({mine, theirs, length} or None for a
    partida simple), forfeit (a finished match given up, in words, else
    None) and, on the rival's turn, rival_deadline and
    rival_hours_left (when you may close their game for absence).
    """
    now = clock.now()
    seats = list(seats)
    room_ids = [seat.room_id for seat in seats]
    rooms = {room.pk: room for room in Room.objects.filter(pk__in=room_ids)}
    latest: dict[int, Match] = {}
    finished: dict[int, int] = {}
    match: Match | None
    for match in Match.objects.filter(room_id__in=room_ids).order_by("room_id", "number"):
        latest[match.room_id] = match
        if match.status == Match.Status.FINISHED:
            finished[match.room_id] = finished.get(match.room_id, 0) + 1
    by_room: dict[int, dict[int, Seat]] = {}
    for seat in Seat.objects.filter(room_id__in=room_ids):
        by_room.setdefault(seat.room_id, {})[seat.number] = seat
    prs = review.match_prs(latest.values())
    # The vacations of everyone at these tables, for the clocks of the turns they owe.
    starts = [m.turn_started_at for m in latest.values() if m.turn_started_at is not None]
    players = (s.user_id for room_seats in by_room.values() for s in room_seats.values())
    away = vacations.pauses_by_user(players, min(starts, default=None))
    lines: list[RoomLine] = []
    for seat in seats:
        room = rooms[seat.room_id]
        match = latest.get(room.pk)
        opponent = by_room.get(room.pk, {}).get(3 - seat.number)
        line: RoomLine = {
            "room": room,
            "seat": seat,
            "opponent": opponent.nickname if opponent else None,
            "status": room.status,
            "your_turn": False,
            "turn_started_at": match.turn_started_at if match else None,
            "deadline": None,
            "hours_left": None,
            "last_move_at": room.last_move_at,
            "ended_at": (match.ended_at if match and match.ended_at else room.ended_at),
            "finished_matches": finished.get(room.pk, 0),
            "prs": review.seat_prs(prs, match, seat),  # analysed games: your PR, theirs
            "score": _seat_score(room, match, seat),
            "forfeit": _forfeit(match, by_room.get(room.pk, {})),
            "rival_deadline": None,
            "rival_hours_left": None,
        }
        if not room.is_active or (match and match.status == Match.Status.FINISHED):
            line["group"] = FINISHED
        elif match and match.turn_seat_id == seat.pk:
            # The deadline is when the match closes by itself: none in a room
            # against the computer, or once the rival chose to keep waiting.
            match.room = room
            turn = vacations.turn_clock(match, pauses=away.get(seat.user_id or 0, ()))
            line["group"], line["your_turn"], line["deadline"] = YOUR_TURN, True, turn.closes_at
            line["hours_left"] = turn.hours_left(now)  # whole hours, rounded down
        else:
            line["group"] = THEIR_TURN
            if match and match.turn_seat_id is not None:
                # The rival's clock too: when you may close their game for absence
                # (standing still while they are on vacation).
                match.room = room
                rival = opponent.user_id if opponent else None
                turn = vacations.turn_clock(match, pauses=away.get(rival or 0, ()))
                line["rival_deadline"] = turn.closes_at
                line["rival_hours_left"] = turn.hours_left(now)
        lines.append(line)
    lines.sort(key=_urgency)
    return lines


def _seat_score(room: Room, match: Match | None, seat: Seat) -> dict[str, int | None] | None:
    """{mine, theirs, length} for a match or a sesión libre; None for a partida simple."""
    if match is None:
        return None
    rules = MatchRules.from_json(room.rules)
    if rules.format == Format.SINGLE:
        return None
    score = MatchState.from_json(match.state).score
    mine = match.side_of(seat)
    length = rules.length if rules.format == Format.MATCH else None
    return {"mine": score[mine], "theirs": score[1 - mine], "length": length}


def _forfeit(match: Match | None, seats: dict[int, Seat]) -> str | None:
    """The sentence of a match given up (who, the score then, what the winner got)."""
    if match is None or match.status != Match.Status.FINISHED:
        return None
    names = {match.side_of(seat): seat.nickname for seat in seats.values()}
    return results.forfeit_sentence(MatchState.from_json(match.state), names)


def _urgency(line: RoomLine) -> tuple[int, bool, datetime | float, datetime | None]:
    if line["group"] == YOUR_TURN:
        deadline = line["deadline"]
        since = line["turn_started_at"] or line["last_move_at"]
        return (0, deadline is None, deadline or since, since)
    if line["group"] == THEIR_TURN:
        return (1, False, line["turn_started_at"] or line["last_move_at"], None)
    ended = line["ended_at"] or line["last_move_at"]
    return (2, False, -ended.timestamp(), None)


def waiting_for_me(
    user: AbstractBaseUser | AnonymousUser | None, session_tokens: dict[str, str]
) -> int:
    """How many matches owe an action from this person: their account's seats and the
    seats this browser holds by link. One query (tokens checked in Python)."""
    owned = Q(turn_seat__user=user) if user is not None and user.is_authenticated else Q()
    by_link = Q(turn_seat__room__slug__in=list(session_tokens)) if session_tokens else Q()
    if not owned and not by_link:
        return 0
    matches = Match.objects.filter(status=Match.Status.PLAYING).filter(owned | by_link)
    count = 0
    for match in matches.select_related("turn_seat__room"):
        seat = match.turn_seat
        assert seat is not None  # the filter reads turn_seat
        if owned and user is not None and seat.user_id == user.pk:
            count += 1
        elif seat.check_token(session_tokens.get(seat.room.slug, "")):
            count += 1
    return count
