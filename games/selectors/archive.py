"""Read side of a room's archive: every match it played, kept after each rematch.

Nothing here writes. Each function costs a fixed number of queries, however
many matches, games and turns the room holds; the room comes with its seats
prefetched (games.web.seats.load_room). A game's dice seed shows only once
that game is over (Game.revealed_seed); its commitment shows always.
"""

from datetime import datetime
from typing import TypedDict

from games.engine import MatchState
from games.lib.errors import NotFound
from games.models import Game, Match, Room
from games.selectors.board import GameInfo, MatchView, game_infos, spectator_match_state
from games.selectors.results import forfeit_sentence


class SideLine(TypedDict):
    side: int
    nickname: str


class SideScore(SideLine):
    score: int


class MatchSummary(TypedDict):
    number: int
    format: str
    finished: bool
    sides: list[SideScore]
    winner: str | None
    end_reason: str | None
    forfeit: str | None  # a match given up: who, the score then, what the winner got
    games: list[GameInfo]
    game_count: int
    created_at: datetime
    ended_at: datetime | None


class PastMatch(TypedDict):
    summary: MatchSummary
    match: MatchView
    seats: list[SideLine]


def room_matches(
    room: Room, *, finished_only: bool = False, games: bool = True
) -> list[MatchSummary]:
    """Every match of the room, first to last, with its score, winner and games.

    Two queries: the matches, then the games of all of them; one with
    `games=False` (the room page's list needs only how many there were).
    """
    seats = {seat.number: seat for seat in room.seats.all()}
    names = {number: seat.nickname for number, seat in seats.items()}
    rows = Match.objects.filter(room=room).order_by("number")
    if finished_only:
        rows = rows.filter(status=Match.Status.FINISHED)
    matches = list(rows)
    if not games:
        return [_summary(match, names, None) for match in matches]
    by_match: dict[int, list[Game]] = {match.pk: [] for match in matches}
    games_rows = Game.objects.filter(match__in=[match.pk for match in matches]).order_by("number")
    for game in games_rows:
        by_match[game.match_id].append(game)
    return [
        _summary(match, names, game_infos(match, by_match[match.pk], seats)) for match in matches
    ]


def _summary(match: Match, names: dict[int, str], games: list[GameInfo] | None) -> MatchSummary:
    sides = [names.get(match.seat_number_of(side), "?") for side in (0, 1)]
    score = match.state["score"]
    winner = match.winner_side
    return {
        "number": match.number,
        "format": match.state["rules"]["format"],
        "finished": match.status == Match.Status.FINISHED,
        "sides": [{"side": side, "nickname": sides[side], "score": score[side]} for side in (0, 1)],
        "winner": sides[winner] if winner is not None else None,
        "end_reason": match.state.get("end_reason"),
        "forfeit": forfeit_sentence(MatchState.from_json(match.state), dict(enumerate(sides))),
        "games": games or [],
        # A finished match's state lists every game it played; a running one's
        # lists the finished games only, so count the rows when we have them.
        "game_count": len(games) if games is not None else len(match.state["games"]),
        "created_at": match.created_at,
        "ended_at": match.ended_at,
    }


def past_match(room: Room, number: int) -> PastMatch:
    """One finished match of the room for its own page: summary, games and history.

    Three queries: the match, its games, its turns. NotFound for a match the
    room does not have or one still being played (the board shows that one).
    """
    match = Match.objects.filter(room=room, number=number).first()
    if match is None or match.status != Match.Status.FINISHED:
        raise NotFound("no_match", f"no finished match {number} in {room.slug}")
    match.room = room
    seats = {seat.number: seat for seat in room.seats.all()}
    state = spectator_match_state(match, seats)
    names = {seat.number: seat.nickname for seat in seats.values()}
    return {
        "summary": _summary(match, names, state["games"]),
        "match": state,
        # The shape games.web.presenters.history_lines reads: the match and who plays which side.
        "seats": [
            {"side": match.side_of(seat), "nickname": seat.nickname} for seat in seats.values()
        ],
    }
