"""Read-side queries for views, templates, emails and tests.

Nothing here writes. `room_state` answers the board page and the JSON state
endpoint with a fixed number of queries however long the history is.
"""

from collections.abc import Iterable
from datetime import datetime

from django.db.models import F, Q
from django.utils import timezone

from games import clock, deadlines, review
from games.engine import SeededDice, commitment, format_play, legal_steps
from games.engine.match import CUBE_LIMIT, Action, ActionKind, MatchRules, MatchState, Phase
from games.engine.matchid import gnubg_id, match_id
from games.engine.matfile import export_mat
from games.errors import NotFound
from games.history import sheet_lines
from games.models import Game, Match, Room, Seat, Turn, hash_token
from games.results import game_results
from games.turns import turn_action

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


def current_match(room: Room) -> Match | None:
    return room.matches.order_by("-number").first()


def room_state(room: Room, viewer_seat: Seat | None = None) -> dict:
    """Everything the board shows, as plain JSON-ready data, for one viewer.

    `viewer_seat` is the seat the request holds (None for a spectator; a seat
    of another room counts as None). The position is seen from the viewer's
    side (side 0 for spectators). Four queries: seats, current match, its
    games (with their analysis), its turns, however long the history.

    Keys: room {slug, status, rules, bot, last_move_at}; version (of the
    current match, growing across rematches); viewer {seat, side}; seats
    [{number, nickname, is_bot, is_you, side}]; match (None while waiting):
    number, status, format, length, score [side0, side1], away, end_reason,
    game_number, crawford, phase, turn (side owing an action or None),
    turn_seat, turn_started_at, dice, cube {value, owner}, resign_offered,
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
    its play writes; see games.history)}], side0_seat.
    """
    seats = {seat.number: seat for seat in Seat.objects.filter(room=room)}
    for seat in seats.values():
        seat.room = room  # no query per seat for is_bot
    viewer = seats.get(viewer_seat.number) if viewer_seat is not None else None
    if viewer is not None and viewer.pk != viewer_seat.pk:
        viewer = None
    match = current_match(room)
    if match is not None:
        match.room = room
    data = {
        "room": {
            "slug": room.slug,
            "status": room.status,
            "rules": room.rules,
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
            }
            for seat in sorted(seats.values(), key=lambda s: s.number)
        ],
        "match": None,
    }
    if match is None:
        return data
    view_side = match.side_of(viewer) if viewer else None
    data["viewer"]["side"] = view_side
    data["match"] = _match_state(match, seats, view_side)
    return data


def _match_state(match: Match, seats: dict[int, Seat], view_side: int | None) -> dict:
    state = MatchState.from_json(match.state)
    rules = MatchRules.from_json(match.room.rules)
    games = list(review.with_analysis(Game.objects.filter(match=match)).order_by("number"))
    names = {match.side_of(seat): seat.nickname for seat in seats.values()}
    history = _history(games, names, view_side)
    side = view_side if view_side is not None else 0
    position = state.position_for(side)
    mine, theirs = position.pips()
    current = games[-1] if games else None
    results = game_results(state.games, names)
    owing = state.owing_side()
    if match.status == Match.Status.FINISHED:
        owing = None
    return {
        "number": match.number,
        "status": match.status,
        "format": str(rules.format),
        "length": rules.length,
        "score": list(state.score),
        "away": list(state.away()) if state.away() else None,  # points still needed
        "end_reason": state.end_reason,  # "won", "stop", "resign" or "absence" once over
        "game_number": state.game_number,
        "crawford": state.crawford_game,
        "phase": str(state.phase),
        "turn": owing,
        "turn_seat": match.seat_number_of(owing) if owing is not None else None,
        "turn_started_at": _iso(match.turn_started_at),
        "dice": list(state.dice) if state.dice else None,
        "cube": {"value": state.cube_value, "owner": state.cube_owner},
        "resign_offered": state.resign_value,
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
        "allowed": _allowed(match, state, seats, view_side, owing),
        "absence": _absence(match, view_side, owing),
        "rematch_offered_by": _seat_number(seats, match.rematch_offered_by_id),
        "game": _game_info(current, results) if current else None,
        "games": [_game_info(game, results) for game in games],
        "analysis": review.games_analysis(games),  # each finished game's PR, both players
        "history": history,
        "side0_seat": match.side0_seat_number,
        "conditional": _conditional(state, view_side) if owing is not None else None,
    }


def _conditional(state: MatchState, view_side: int | None) -> dict | None:
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
        "may_beaver": state.rules.beavers and state.cube_value * 4 <= CUBE_LIMIT,
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


def _history(games: list[Game], names: dict[int, str], view_side: int | None = None) -> list[dict]:
    """Every turn of the match's games in order, each with its line in words.

    A player's written notes (conditional answers and plays) are listed to
    that player only.
    """
    number_of_game = {game.pk: game.number for game in games}
    turns = Turn.objects.filter(game__in=[g.pk for g in games]).values(
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
    history = sorted(
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
                "blocked": t["kind"] == "roll" and t["steps"] == [],
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


def _allowed(match, state, seats, view_side, owing) -> list[str]:
    """The actions the viewer may take now, engine actions and the site's own."""
    if view_side is None:
        return []
    if match.status == Match.Status.FINISHED:
        offered = match.rematch_offered_by_id
        if offered is None:
            return ["rematch_offer"]
        viewer_id = seats[match.seat_number_of(view_side)].pk
        return [] if offered == viewer_id else ["rematch_accept"]
    allowed = set(state.allowed_actions(view_side))
    if ActionKind.CONDITIONAL_PLAYS in allowed and state.position_for(view_side).is_bearing_off():
        allowed.add("cond_greedy")
    absence = _absence(match, view_side, owing)
    if absence and absence["can_claim"]:
        allowed.add("claim_absence")
    if absence and not absence["kept_waiting"]:
        allowed.add("keep_waiting")
    return sorted(allowed)


def _absence(match: Match, view_side: int | None, owing: int | None) -> dict | None:
    """For the waiting player: when the absent one may be closed out, and whether
    the board names that moment yet (show_deadline)."""
    if view_side is None or owing is None or owing == view_side:
        return None
    turn = deadlines.TurnClock.of(match, against_bot=bool(match.room.bot))
    if turn.due_at is None:
        return None
    now = clock.now()
    return {
        "claimable_at": _iso(turn.due_at),
        "can_claim": turn.claimable(now),
        "kept_waiting": turn.waived,
        "show_deadline": turn.show_deadline(now),
    }


def _game_info(game: Game, results: dict[int, dict]) -> dict:
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


def spectator_match_state(match: Match, seats: dict[int, Seat]) -> dict:
    """Any match of a room as a spectator sees it (the archive's past matches): the
    same keys as room_state's "match", in two queries (games, turns)."""
    return _match_state(match, seats, None)


def game_infos(match: Match, games: Iterable[Game], seats: dict[int, Seat]) -> list[dict]:
    """Each game's number, status, commitment, seed (hex once over, else None) and
    result in words, for a match whose games the caller already loaded."""
    state = MatchState.from_json(match.state)
    names = {match.side_of(seat): seat.nickname for seat in seats.values()}
    results = game_results(state.games, names)
    return [_game_info(game, results) for game in games]


# --- "Mis partidas" --------------------------------------------------------------


YOUR_TURN, THEIR_TURN, FINISHED = "your_turn", "their_turn", "finished"


def rooms_for_seats(seats: Iterable[Seat]) -> list[dict]:
    """One line per room of these seats, the most urgent first (four queries).

    First the rooms where the seat owes an action, the nearest absence
    deadline first (a table with a bot, or a turn the rival chose to wait
    out, has none and comes after); then the rooms waiting on the rival or
    on a second player, the longest waiting first; then the finished ones,
    the last to end first. Each line: room, seat, opponent, status, group,
    your_turn, turn_started_at, deadline and hours_left (None without one),
    last_move_at, ended_at, finished_matches (how many matches the room
    keeps in its archive) and prs (each analysed game of the latest match:
    your PR and your rival's).
    """
    now = clock.now()
    seats = list(seats)
    room_ids = [seat.room_id for seat in seats]
    rooms = {room.pk: room for room in Room.objects.filter(pk__in=room_ids)}
    latest: dict[int, Match] = {}
    finished: dict[int, int] = {}
    for match in Match.objects.filter(room_id__in=room_ids).order_by("room_id", "number"):
        latest[match.room_id] = match
        if match.status == Match.Status.FINISHED:
            finished[match.room_id] = finished.get(match.room_id, 0) + 1
    by_room: dict[int, dict[int, Seat]] = {}
    for seat in Seat.objects.filter(room_id__in=room_ids):
        by_room.setdefault(seat.room_id, {})[seat.number] = seat
    prs = review.match_prs(latest.values())
    lines = []
    for seat in seats:
        room = rooms[seat.room_id]
        match = latest.get(room.pk)
        opponent = by_room.get(room.pk, {}).get(3 - seat.number)
        line = {
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
        }
        if not room.is_active or (match and match.status == Match.Status.FINISHED):
            line["group"] = FINISHED
        elif match and match.turn_seat_id == seat.pk:
            # The deadline is when the match closes by itself: none in a room
            # against the computer, or once the rival chose to keep waiting.
            turn = deadlines.TurnClock.of(match, against_bot=bool(room.bot))
            line.update(group=YOUR_TURN, your_turn=True, deadline=turn.closes_at)
            line["hours_left"] = turn.hours_left(now)  # whole hours, rounded down
        else:
            line["group"] = THEIR_TURN
        lines.append(line)
    lines.sort(key=_urgency)
    return lines


def _urgency(line: dict) -> tuple:
    if line["group"] == YOUR_TURN:
        deadline = line["deadline"]
        since = line["turn_started_at"] or line["last_move_at"]
        return (0, deadline is None, deadline or since, since)
    if line["group"] == THEIR_TURN:
        return (1, False, line["turn_started_at"] or line["last_move_at"], None)
    ended = line["ended_at"] or line["last_move_at"]
    return (2, False, -ended.timestamp(), None)


def waiting_for_me(user, session_tokens: dict[str, str]) -> int:
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
        if owned and seat.user_id == user.pk:
            count += 1
        elif seat.check_token(session_tokens.get(seat.room.slug, "")):
            count += 1
    return count


# --- what the sweeps look for (each uses a partial index; see games.models) ------


def absent_due(*, limit: int = 100) -> list[int]:
    """Matches past their absence deadline that the waiting player did not choose
    to keep waiting: for services.absence_close."""
    matches = (
        Match.objects.filter(status=Match.Status.PLAYING, absence_due_at__lte=clock.now())
        .exclude(absence_waived_for=F("turn_started_at"))
        .order_by("absence_due_at")
    )
    return list(matches.values_list("pk", flat=True)[:limit])


def reminder_due(*, limit: int = 100) -> list[int]:
    """Matches whose player on turn is 24 h from the deadline (the reminder sweep)."""
    after, until = deadlines.reminder_window(clock.now())
    matches = (
        Match.objects.filter(
            status=Match.Status.PLAYING, absence_due_at__gt=after, absence_due_at__lte=until
        )
        .exclude(reminder_sent_for=F("turn_started_at"))
        .order_by("absence_due_at")
    )
    return list(matches.values_list("pk", flat=True)[:limit])


def idle_rooms_due(*, limit: int = 100) -> list[int]:
    """Active rooms with no move for seven days: for services.room_expire."""
    cutoff = deadlines.idle_cutoff(clock.now())
    rooms = Room.objects.filter(status__in=Room.ACTIVE, last_move_at__lte=cutoff)
    return list(rooms.order_by("last_move_at").values_list("pk", flat=True)[:limit])


def stuck_bot_turns(*, older_than, limit: int = 100) -> list[tuple[int, int]]:
    """(match id, version) of bot games where the bot has owed an action for
    longer than `older_than` (nothing moved in the room since): the bot sweep."""
    cutoff = clock.now() - older_than
    matches = Match.objects.filter(
        status=Match.Status.PLAYING,
        turn_seat__number=2,
        room__last_move_at__lte=cutoff,
        room__status=Room.Status.PLAYING,
    ).exclude(room__bot="")
    return list(matches.order_by("room__last_move_at").values_list("pk", "version")[:limit])


# --- replay and dice verification ------------------------------------------------


ACTION_FIELDS = ("kind", "side", "dice", "steps", "value", "reason", "table")


def match_actions(match: Match) -> list[Action]:
    """The match's recorded actions in order, across its games, in one query."""
    turns = (
        Turn.objects.filter(game__match=match)
        .order_by("game__number", "number")
        .only(*ACTION_FIELDS)
    )
    return [turn_action(turn) for turn in turns]


def replay_match(match: Match) -> MatchState:
    """Rebuild a match's state from its Turn rows alone."""
    rules = MatchRules.from_json(match.room.rules)
    return MatchState.replay(rules, match_actions(match))


def match_mat(room: Room, number: int | None = None) -> tuple[Match, str]:
    """The room's current match (or its match `number`) as a Jellyfish .mat text.

    Built from the Turn rows alone (never a dice seed: a running game's next
    rolls stay unknown), with the players' nicknames, side 0 first. Three
    queries (current match, seats unless prefetched, turns); NotFound while
    the room has no match, or no match of that number.
    """
    if number is None:
        match = current_match(room)
    else:
        match = room.matches.filter(number=number).first()
    if match is None:
        raise NotFound("no_match")
    nicknames = {seat.number: seat.nickname for seat in room.seats.all()}
    names = (nicknames[match.seat_number_of(0)], nicknames[match.seat_number_of(1)])
    text = export_mat(
        MatchRules.from_json(room.rules),
        match_actions(match),
        names,
        played_on=timezone.localdate(match.created_at),
    )
    return match, text


def game_rolls(game: Game) -> list[tuple[int, int]]:
    """The dice of every roll of the game in order, the opening roll(s) first."""
    turns = game.turns.filter(kind="roll").order_by("number")
    return [tuple(turn.dice) for turn in turns]


def verify_game_dice(game: Game) -> bool:
    """True when the revealed seed matches the commitment and yields every roll."""
    if not game.revealed:
        return False
    seed = bytes(game.seed)
    if commitment(seed) != game.commitment:
        return False
    dice = SeededDice(seed)
    rolls = game_rolls(game)
    return len(rolls) == game.rolls_drawn and all(
        tuple(dice.roll_at(n)) == pair for n, pair in enumerate(rolls)
    )


def step_options(room: Room, seat: Seat, taken: list[tuple[int, int]]) -> dict:
    """The legal next steps for the seat on turn, after the steps already taken.

    The interactive board marks only what this returns; the engine decides it.
    Each option carries the Position ID once it is taken, for the board to show.
    """
    match = current_match(room)
    if match is None:
        return {"version": 0, "options": []}
    state = MatchState.from_json(match.state)
    side = match.side_of(seat)
    if state.phase is not Phase.MOVE or state.turn != side:
        return {"version": match.version, "options": []}
    position = state.position_for(side)
    options = legal_steps(position, state.dice, taken)
    # legal_steps refused a `taken` that is not a legal beginning, so it applies.
    here = position.apply(taken)
    return {
        "version": match.version,
        "taken": [list(step) for step in taken],
        "options": [
            {
                "from": option.src,
                "to": option.dst,
                "dice": list(option.dice),
                "label": option.label,
                "path": [list(step) for step in option.path],
                "hits": option.hits,
                "position_id": here.apply(option.path).position_id(),
            }
            for option in options
        ],
    }
