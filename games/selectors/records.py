"""The records of a match: its actions replayed, its .mat file, its dice checked,
and the legal next steps the board may mark. Nothing here writes.
"""

from django.utils import timezone

from games.engine import (
    Action,
    ActionKind,
    MatchRules,
    MatchState,
    Phase,
    SeededDice,
    commitment,
    export_mat,
    legal_steps,
    table_from_json,
)
from games.lib.errors import NotFound
from games.models import Game, Match, Room, Seat, Turn
from games.selectors.board import current_match

ACTION_FIELDS = ("kind", "side", "dice", "steps", "value", "reason", "table")


def turn_action(turn: Turn) -> Action:
    """A recorded Turn row back into the engine's Action: what every replay reads."""
    return Action(
        kind=turn.kind,
        side=turn.side,
        dice=tuple(turn.dice) if turn.dice is not None else None,
        play=tuple(tuple(step) for step in turn.steps) if turn.steps is not None else None,
        value=turn.value,
        reason=turn.reason or None,
        table=None if turn.table is None else table_from_json(turn.table),
    )


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
    turns = game.turns.filter(kind=ActionKind.ROLL).order_by("number")
    rolls = []
    for turn in turns:
        assert turn.dice is not None, "a roll always records its dice"
        rolls.append((turn.dice[0], turn.dice[1]))
    return rolls


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


def step_options(room: Room, seat: Seat, taken: list[tuple[int, int]]) -> dict[str, object]:
    """The legal next steps for the seat on turn, after the steps already taken.

    The interactive board marks only what this returns; the engine decides it.
    Each option carries the Position ID once it is taken, for the board to show.
    """
    match = current_match(room)
    if match is None:
        return {"version": 0, "options": []}
    state = MatchState.from_json(match.state)
    side = match.side_of(seat)
    # In the move phase the dice are always there (the check is for the type checker).
    if state.phase is not Phase.MOVE or state.turn != side or state.dice is None:
        return {"version": match.version, "options": []}
    position = state.position_for(side)
    options = legal_steps(position, state.dice, taken)
    # legal_steps refused a `taken` that is not a legal beginning, so it applies.
    here = position.apply(tuple(taken))
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
