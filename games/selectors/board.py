"""The board's state: what the board page and the JSON state endpoint show.

Nothing here writes. `room_state` answers with a fixed number of queries
however long the history is.
"""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NotRequired, TypedDict, cast

from games.engine import (
    ActionKind,
    EndReason,
    MatchRules,
    MatchState,
    format_play,
    gnubg_id,
    match_id,
)
from games.lib import clock, deadlines, evaluator
from games.lib.site_actions import SiteAction
from games.models import Game, Match, Room, Seat, Turn, hash_token
from games.selectors import review, talk, vacations
from games.selectors.history import HistoryEntry, sheet_lines
from games.selectors.prepared import prepared
from games.selectors.results import (
    GameResultWords,
    ResignOfferWords,
    game_results,
    match_outcome,
    resign_offers,
)

# The room state's JSON shapes (room_state's docstring says what each key means).


class RoomInfo(TypedDict):
    slug: str
    status: str
    rules: Any  # MatchRules.to_json(), as stored (a JSONField)
    rated: bool
    bot: str | None
    last_move_at: str | None
    days_per_move: int


class ViewerInfo(TypedDict):
    seat: int | None
    side: int | None


class SeatInfo(TypedDict):
    number: int
    nickname: str
    is_bot: bool
    is_you: bool
    side: int | None
    away_until: str | None


class CubeInfo(TypedDict):
    value: int
    owner: int | None


class PositionInfo(TypedDict):
    side: int
    id: str
    other_side_id: str
    me: list[int]
    them: list[int]


class AbsenceInfo(TypedDict):
    claimable_at: str | None
    can_claim: bool
    kept_waiting: bool
    show_deadline: bool


class GameInfo(TypedDict):
    number: int
    status: str
    commitment: str
    seed: str | None
    rolls: int
    winner: int | None
    points: int | None
    result: GameResultWords | None


class WrittenPlayView(TypedDict):
    dice: list[int]
    play: list[list[int]]
    notation: str


class ConditionalView(TypedDict):
    """The viewer's written answer and plays, and what they may write now."""

    answer: str | None
    may_answer: bool
    may_beaver: bool
    plays: list[WrittenPlayView] | None
    may_plays: bool
    may_greedy: bool


class MatchView(TypedDict):
    number: int
    status: str
    format: str
    length: int
    score: list[int]
    away: list[int] | None
    end_reason: EndReason | None
    outcome: str | None  # how the match ended, in words (games.selectors.results)
    game_number: int
    crawford: bool
    phase: str
    turn: int | None
    turn_seat: int | None
    turn_started_at: str | None
    dice: list[int] | None
    cube: CubeInfo
    resign_offered: int | None
    resign_offers: list[ResignOfferWords]
    resign_declined: bool
    position: PositionInfo
    match_id: str
    gnubg_id: str
    pips: list[int]
    winner: int | None
    allowed: list[str]
    absence: AbsenceInfo | None
    rematch_offered_by: int | None
    game: GameInfo | None
    games: list[GameInfo]
    analysis: list[review.AnalysisLine]
    history: list[HistoryEntry]
    side0_seat: int
    conditional: ConditionalView | None  # the viewer's own written answer and plays


class RoomState(TypedDict):
    room: RoomInfo
    version: int
    viewer: ViewerInfo
    seats: list[SeatInfo]
    match: MatchView | None
    talk: NotRequired[talk.TalkView]  # only for one of the two players, never a spectator


# Turn kinds that are a player's private notes, not moves (see _history).
NOTE_KINDS = frozenset({ActionKind.CONDITIONAL_ANSWER, ActionKind.CONDITIONAL_PLAYS})


def seat_by_token(token: str) -> Seat | None:
    """The seat whose private link holds `token`, or None (compared in constant time)."""
    if not isinstance(token, str) or not token or len(token) > 100:
        return None
    seat = Seat.objects.select_related("room").filter(token_hash=hash_token(token)).first()
    if seat is None or not seat.check_token(token):
        return None
    return seat


def seat_held(seats: Iterable[Seat], *, token: str | None, user_id: int | None) -> Seat | None:
    """The seat among a room's `seats` that the asker holds: by the private link's
    `token` their browser keeps (compared in constant time), else by their account."""
    candidates = list(seats)
    if token:
        for seat in candidates:
            if seat.check_token(token):
                return seat
    if user_id is not None:
        for seat in candidates:
            if seat.user_id == user_id:
                return seat
    return None


# The room state's own reads, compiled once (games.selectors.prepared): a state
# cache miss is mostly these, and building and compiling their querysets was
# nearly half of its CPU.


def current_match(room: Room) -> Match | None:
    """The room's newest match, its room set."""
    query = prepared(
        "current match",
        Match,
        lambda room_id: Match.objects.filter(room_id=room_id).order_by("-number")[:1],
    )
    found = query.instances(room.pk)
    if not found:
        return None
    found[0].room = room
    return found[0]


TURN_COLUMNS = (
    "game_id",
    "number",
    "side",
    "kind",
    "automatic",
    "dice",
    "value",
    "reason",
    "notation",
    "steps",
    "cube_value",
    "created_at",
    "table",
)


def _state_games(match: Match) -> "list[review.AnalysedGame]":
    """The match's games in order, with their analyses (review.with_analysis)."""
    versions = (evaluator.current_version(), evaluator.quick_version())
    query = prepared(
        ("state games", versions),
        Game,
        lambda match_id: review.with_analysis(Game.objects.filter(match_id=match_id)).order_by(
            "number"
        ),
    )
    games = query.instances(match.pk)
    for game in games:
        game.match = match
    return cast("list[review.AnalysedGame]", games)


def _state_turns(match: Match) -> list[dict[str, Any]]:
    """Every turn of the match's games, TURN_COLUMNS of each, in no order."""
    query = prepared(
        "state turns",
        Turn,
        lambda match_id: Turn.objects.filter(game__match_id=match_id).values(*TURN_COLUMNS),
    )
    return query.dicts(match.pk)


def room_state(room: Room, viewer_seat: Seat | None = None) -> RoomState:
    """Everything the board shows, as plain JSON-ready data, for one viewer.

    `viewer_seat` is the seat the request holds (None for a spectator; a seat
    of another room counts as None). The position is seen from the viewer's
    side (side 0 for spectators). Four queries (five for a seated viewer:
    the players' vacations): seats, current match, its
    games (with their analysis), its turns, however long the history.

    Keys: room {slug, status, rules, rated, bot, last_move_at}; version (of the
    current match, growing across rematches); viewer {seat, side}; seats
    [{number, nickname, is_bot, is_you, side, away_until (the end of the
    seat's vacation, for the two players only; None when not away)}]; match (None while waiting):
    number, status, format, length, score [side0, side1], away, end_reason,
    outcome (the finished match's end in words, else None),
    game_number, crawford, phase, turn (side owing an action or None),
    turn_seat, turn_started_at, dice, cube {value, owner}, resign_offered,
    resign_offers [{value, points, score, text}] (each resignation's worth now),
    position {side, id, me, them}, match_id and gnubg_id (GNU Backgammon's
    Match ID, and "PositionID:MatchID" seen from the side on roll; a partida
    simple is a 1-point match to GNU Backgammon, a sesión libre money play),
    pips [side0, side1], winner, allowed
    (engine actions for the viewer plus claim_absence, keep_waiting,
    rematch_offer, rematch_accept), absence (for the waiting player:
    claimable_at, can_claim, kept_waiting, show_deadline), rematch_offered_by (seat number),
    game and games [{number, status, commitment, seed (hex once revealed,
    else None), rolls, winner, points, result (None while the game runs, else
    {winner, points, kind, ending, score, text, score_text})}], resign_declined,
    history [{game, number, side, kind, automatic, dice, notation, steps,
    blocked, value, reason, cube_value, at, opening, text (the entry's line
    on the board's score sheet in the request's language, None for a roll
    its play writes; see games.selectors.history)}], side0_seat.
    """
    return room_state_and_until(room, viewer_seat)[0]


def room_state_and_until(
    room: Room, viewer_seat: Seat | None = None, *, seats: Iterable[Seat] | None = None
) -> tuple[RoomState, datetime | None]:
    """room_state, and the first moment after now at which the clock alone changes
    it: a vacation starts or ends, the absence deadline passes or is shown. None
    when only the rows can: always for a spectator, who sees no clock. The
    state's cache (games.web.state_cache) keeps it no longer. The vacations are
    read once for both (one query, for a seated viewer only). `seats`: the room's
    seats when the caller has just read them (one query fewer)."""
    read = Seat.objects.filter(room=room) if seats is None else seats
    by_number = {seat.number: seat for seat in read}
    for seat in by_number.values():
        seat.room = room  # no query per seat for is_bot
    viewer = by_number.get(viewer_seat.number) if viewer_seat is not None else None
    if viewer is not None and viewer_seat is not None and viewer.pk != viewer_seat.pk:
        viewer = None
    match = current_match(room)
    # The players' vacations: for the table only, not for spectators (one query, when seated).
    now = clock.now()
    pauses: dict[int, tuple[deadlines.Pause, ...]] = {}
    if viewer is not None:
        since = match.turn_started_at if match and match.turn_started_at else now
        pauses = vacations.pauses_by_user((s.user_id for s in by_number.values()), min(since, now))
    away = {
        user_id: end
        for user_id, spans in pauses.items()
        for start, end in spans
        if start <= now < end
    }
    data: RoomState = {
        "room": {
            "slug": room.slug,
            "status": room.status,
            "rules": room.rules,
            "rated": room.rated,
            "days_per_move": room.days_per_move,
            "bot": room.bot or None,
            "last_move_at": _iso(room.last_move_at),
        },
        "version": match.version if match else 0,
        "viewer": {"seat": viewer.number if viewer else None, "side": None},
        "seats": [
            {
                "number": seat.number,
                "nickname": seat.nickname,
                "is_bot": seat.is_bot,
                "is_you": viewer is not None and seat.pk == viewer.pk,
                "side": match.side_of(seat) if match else None,
                "away_until": _iso(away.get(seat.user_id)) if seat.user_id else None,
            }
            for seat in sorted(by_number.values(), key=lambda s: s.number)
        ],
        "match": None,
    }
    if viewer is not None and not room.bot:
        # The words between the two players: never in a spectator's state.
        data["talk"] = talk.messages_for(viewer, by_number)
    # What the clock alone changes, for a seated viewer (a spectator sees no clock).
    started = match.turn_started_at if match else None
    until = _clock_edge(started, pauses, now, room) if viewer is not None else None
    if match is None:
        return data, until
    view_side = match.side_of(viewer) if viewer else None
    data["viewer"]["side"] = view_side
    data["match"] = _match_state(match, by_number, view_side, pauses)
    return data, until


def _clock_edge(
    started: datetime | None,
    pauses: dict[int, tuple[deadlines.Pause, ...]],
    now: datetime,
    room: Room,
) -> datetime | None:
    """The first moment after `now` at which a seated viewer's state changes by the
    clock alone: a vacation's start or end (away_until, the turn clock), the
    absence deadline (can_claim), the moment the board names it (show_deadline)."""
    # Whichever player owes the turn, with their own pauses: one clock per player
    # (and one without pauses), a few moments too many at worst.
    clocks = [
        deadlines.TurnClock(
            started,
            pauses=spans,
            absence_after=deadlines.absence_after(room.days_per_move),
            vacation_cap=deadlines.vacation_cap(room.vacation_cap_days),
        )
        for spans in (*pauses.values(), ())
    ]
    edges = [moment for turn in clocks for moment in turn.changes()]
    later = [moment for moment in edges if moment > now]
    return min(later) if later else None


def _match_state(
    match: Match,
    seats: dict[int, Seat],
    view_side: int | None,
    pauses: dict[int, tuple[deadlines.Pause, ...]] | None = None,
) -> MatchView:
    state = MatchState.from_json(match.state)
    rules = MatchRules.from_json(match.room.rules)
    games = _state_games(match)
    names = {match.side_of(seat): seat.nickname for seat in seats.values()}
    history = _history(games, _state_turns(match), names, view_side)
    side = view_side if view_side is not None else 0
    position = state.position_for(side)
    mine, theirs = position.pips()
    current = games[-1] if games else None
    results = game_results(state.games, names)
    owing = state.owing_side()
    if match.status == Match.Status.FINISHED:
        owing = None
    away = state.away()
    return {
        "number": match.number,
        "status": match.status,
        "format": str(rules.format),
        "length": rules.length,
        "score": list(state.score),
        "away": list(away) if away else None,  # points still needed
        "end_reason": state.end_reason,  # "won", "stop", "resign" or "absence" once over
        "outcome": match_outcome(state, names) if match.status == Match.Status.FINISHED else None,
        "game_number": state.game_number,
        "crawford": state.crawford_game,
        "phase": str(state.phase),
        "turn": owing,
        "turn_seat": match.seat_number_of(owing) if owing is not None else None,
        "turn_started_at": _iso(match.turn_started_at),
        "dice": list(state.dice) if state.dice else None,
        "cube": {"value": state.cube_value, "owner": state.cube_owner},
        "resign_offered": state.resign_value,
        # What each resignation is worth now (the cube, the score it leaves), in words.
        "resign_offers": resign_offers(state, names) if owing is not None else [],
        # The player on roll had a resignation declined this turn: no new offer until the next.
        "resign_declined": state.resign_declined,
        "position": {
            "side": side,
            "id": position.position_id(),
            # The same checkers seen from the other side: a spectator's board turned round.
            "other_side_id": position.flip().position_id(),
            "me": list(position.me),
            "them": list(position.them),
        },
        # The Match ID belongs to the match, not to the viewer. GNU Backgammon
        # reads a Position ID from the side on roll: gnubg_id pairs the two so.
        "match_id": match_id(state),
        "gnubg_id": gnubg_id(state),
        "pips": [mine, theirs] if side == 0 else [theirs, mine],
        "winner": match.winner_side,
        "allowed": _allowed(match, state, seats, view_side, owing, pauses or {}),
        "absence": _absence(match, seats, view_side, owing, pauses or {}),
        "rematch_offered_by": _seat_number(seats, match.rematch_offered_by_id),
        "game": _game_info(current, results) if current else None,
        "games": [_game_info(game, results) for game in games],
        "analysis": review.games_analysis(games),  # each finished game's PR, both players
        "history": history,
        "side0_seat": match.side0_seat_number,
        "conditional": _conditional(state, view_side) if owing is not None else None,
    }


def _conditional(state: MatchState, view_side: int | None) -> ConditionalView | None:
    """What the viewer has written for the table to play, and what they may write now.

    The viewer's own notes only: the opponent never learns an answer before it
    is played (it would tell them whether to double).
    """
    if view_side is None:
        return None
    answer = state.cube_answers[view_side]
    table = state.play_tables[view_side]
    mine = state.position_for(view_side)
    may_plays = state.may_record_plays(view_side)
    return {
        "answer": None if answer is None else str(answer),
        "may_answer": state.may_record_answer(view_side),
        "may_beaver": state.may_write_beaver(),
        "plays": None
        if table is None
        else [
            {
                "dice": list(roll),
                "play": [list(step) for step in play],
                "notation": format_play(mine, play),
            }
            for roll, play in table
        ],
        "may_plays": may_plays,
        "may_greedy": may_plays and mine.is_bearing_off(),
    }


def _history(
    games: Sequence[Game],
    turns: Iterable[dict[str, Any]],
    names: dict[int, str],
    view_side: int | None = None,
) -> list[HistoryEntry]:
    """Every turn of the match's games in order, each with its line in words.

    A player's written notes (conditional answers and plays) are listed to
    that player only.
    """
    number_of_game = {game.pk: game.number for game in games}
    history: list[HistoryEntry] = sorted(
        (
            {
                "game": number_of_game[t["game_id"]],
                "number": t["number"],
                "side": t["side"],
                "kind": t["kind"],
                "automatic": t["automatic"],
                "dice": t["dice"],
                "notation": t["notation"],
                "steps": t["steps"],  # from the mover's side; the board marks the last play
                # A roll with no legal play: the turn passed at once.
                "blocked": t["kind"] == ActionKind.ROLL and t["steps"] == [],
                "value": t["value"],
                "reason": t["reason"] or None,
                "cube_value": t["cube_value"],
                "at": _iso(t["created_at"]),
                "plays_written": len(t["table"]) if t["table"] is not None else None,
            }
            for t in turns
            if t["kind"] not in NOTE_KINDS or t["side"] == view_side
        ),
        key=lambda t: (t["game"], t["number"]),
    )
    sheet_lines(history, names)  # each entry's line on the board's score sheet, in words
    return history


def _allowed(
    match: Match,
    state: MatchState,
    seats: dict[int, Seat],
    view_side: int | None,
    owing: int | None,
    pauses: dict[int, tuple[deadlines.Pause, ...]],
) -> list[str]:
    """The actions the viewer may take now, engine actions and the site's own."""
    if view_side is None:
        return []
    if match.status == Match.Status.FINISHED:
        if not match.room.rematch:
            return []  # a tournament's match: the next one comes by itself
        offered = match.rematch_offered_by_id
        if offered is None:
            return [SiteAction.REMATCH_OFFER]
        viewer_id = seats[match.seat_number_of(view_side)].pk
        return [] if offered == viewer_id else [SiteAction.REMATCH_ACCEPT]
    allowed: set[str] = set(state.allowed_actions(view_side))
    if ActionKind.CONDITIONAL_PLAYS in allowed and state.position_for(view_side).is_bearing_off():
        allowed.add(SiteAction.CONDITIONAL_GREEDY)
    turn = _waiting_clock(match, seats, view_side, owing, pauses)
    now = clock.now()
    if turn is not None and turn.claimable(now):
        allowed.add(SiteAction.CLAIM_ABSENCE)
    if turn is not None and turn.may_keep_waiting(now):
        allowed.add(SiteAction.KEEP_WAITING)
    return sorted(allowed)


def _waiting_clock(
    match: Match,
    seats: dict[int, Seat],
    view_side: int | None,
    owing: int | None,
    pauses: dict[int, tuple[deadlines.Pause, ...]],
) -> deadlines.TurnClock | None:
    """The absence clock the waiting viewer runs against; None for anyone else,
    or when no absence applies."""
    if view_side is None or owing is None or owing == view_side:
        return None
    absent = seats.get(match.seat_number_of(owing))
    own = pauses.get(absent.user_id, ()) if absent and absent.user_id else ()
    turn = vacations.turn_clock(match, pauses=own)
    return turn if turn.due_at is not None else None


def _absence(
    match: Match,
    seats: dict[int, Seat],
    view_side: int | None,
    owing: int | None,
    pauses: dict[int, tuple[deadlines.Pause, ...]],
) -> AbsenceInfo | None:
    """For the waiting player: when the absent one may be closed out, and whether
    the board names that moment yet (show_deadline)."""
    turn = _waiting_clock(match, seats, view_side, owing, pauses)
    if turn is None:
        return None
    now = clock.now()
    return {
        "claimable_at": _iso(turn.due_at),
        "can_claim": turn.claimable(now),
        "kept_waiting": turn.waived,
        "show_deadline": turn.show_deadline(now),
    }


def _game_info(game: Game, results: dict[int, GameResultWords]) -> GameInfo:
    return {
        "number": game.number,
        "status": game.status,
        "commitment": game.commitment,
        "seed": game.revealed_seed,  # None while the game runs
        "rolls": game.rolls_drawn,
        "winner": game.winner_side,
        "points": game.points,
        # In words for the board and the history: "Dani gana 2 puntos (gammon)".
        "result": results.get(game.number),
    }


def _seat_number(seats: dict[int, Seat], seat_id: int | None) -> int | None:
    return next((n for n, s in seats.items() if s.pk == seat_id), None)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def spectator_match_state(match: Match, seats: dict[int, Seat]) -> MatchView:
    """Any match of a room as a spectator sees it (the archive's past matches): the
    same keys as room_state's "match", in two queries (games, turns)."""
    return _match_state(match, seats, None)


def game_infos(match: Match, games: Iterable[Game], seats: dict[int, Seat]) -> list[GameInfo]:
    """Each game's number, status, commitment, seed (hex once over, else None) and
    result in words, for a match whose games the caller already loaded."""
    state = MatchState.from_json(match.state)
    names = {match.side_of(seat): seat.nickname for seat in seats.values()}
    results = game_results(state.games, names)
    return [_game_info(game, results) for game in games]
