"""Helpers the engine tests share: positions as a player reads them, dice, match states.

Plain Python and pytest only (no Django), like the engine itself.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.engine import (
    BAR,
    ROLLS,
    Action,
    Format,
    IllegalAction,
    InvalidInput,
    MatchRules,
    MatchState,
    Phase,
    Position,
    format_play,
    legal_plays,
)

# -- positions ------------------------------------------------------------


def board(mine: dict, theirs: dict | None = None) -> Position:
    """A position with both sides keyed by MY point numbers ("bar" for either bar).

    Checkers not listed are borne off. ``theirs={19: 2}`` puts two opposing
    checkers on my 19-point, i.e. their 6-point.
    """
    me = {BAR if point == "bar" else point: n for point, n in mine.items()}
    them = {BAR if point == "bar" else 25 - point: n for point, n in (theirs or {}).items()}
    return Position.from_points(me, them)


def plays(position: Position, dice: tuple[int, int]) -> set[str]:
    """The legal plays in standard notation, checking there is one per result."""
    found = legal_plays(position, dice)
    results = [position.apply(play) for play in found]
    assert len(set(results)) == len(results), "two plays reach the same position"
    return {format_play(position, play) for play in found}


# -- dice -----------------------------------------------------------------


class ScriptedDice:
    def __init__(self, *pairs: tuple[int, int]):
        self.pairs = list(pairs)

    def roll(self) -> tuple[int, int]:
        return self.pairs.pop(0)


class RandomDice:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def roll(self) -> tuple[int, int]:
        return self.rng.randint(1, 6), self.rng.randint(1, 6)


# -- match states ---------------------------------------------------------


def at(rules: MatchRules, phase: Phase = Phase.ROLL, side: int = 0, **fields) -> MatchState:
    """A state in the middle of a game, side `side` to act."""
    return replace(MatchState.new(rules), phase=phase, turn=side, on_roll=side, **fields)


def refused(state: MatchState, action: Action) -> IllegalAction:
    """The refusal of an action that reads fine but the rules do not allow here."""
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.reason
    return info.value


def unreadable(state: MatchState, action: Action) -> InvalidInput:
    """The refusal of an action the engine cannot read (a field missing, or one too many)."""
    with pytest.raises(InvalidInput) as info:
        state.apply(action)
    assert info.value.reason
    return info.value


def choose(state: MatchState, rng: random.Random) -> Action:
    """A random legal action for whoever must act now (the table's rolls aside)."""
    side = state.turn
    phase = state.phase
    if phase is Phase.GAME_OVER:
        if state.rules.format is Format.SESSION and rng.random() < 0.5:
            return Action("stop", rng.randint(0, 1))
        return Action("next_game", rng.randint(0, 1))
    if rng.random() < 0.002:
        return Action("forfeit", rng.randint(0, 1), reason=rng.choice(["resign", "absence"]))
    written = write_ahead(state, rng) if rng.random() < 0.15 else None
    if written is not None:
        return written
    if phase is Phase.ROLL:
        if state.may_double(side) and rng.random() < 0.4:
            return Action("double", side)
        if "resign_offer" in state.allowed_actions(side) and rng.random() < 0.04:
            return Action("resign_offer", side, value=rng.randint(1, 3))
        return Action("roll", side, (rng.randint(1, 6), rng.randint(1, 6)))
    if phase is Phase.MOVE:
        if "resign_offer" in state.allowed_actions(side) and rng.random() < 0.03:
            return Action("resign_offer", side, value=rng.randint(1, 3))
        return Action("play", side, play=rng.choice(state.legal_plays()))
    if phase is Phase.DOUBLED:
        if state.may_beaver() and rng.random() < 0.3:
            return Action("beaver", side)
        return Action("take" if rng.random() < 0.4 else "drop", side)
    if phase is Phase.RESIGN_OFFERED:
        return Action("resign_accept" if rng.random() < 0.6 else "resign_decline", side)
    raise AssertionError(f"nothing to choose in {phase}")


def write_ahead(state: MatchState, rng: random.Random) -> Action | None:
    """A random conditional answer or play table that one of the sides may write now."""
    side = rng.randint(0, 1)
    if state.may_record_answer(side):
        answers: list[str | None] = ["take", "drop", None]
        if state.rules.beavers and state.cube_value * 4 <= 64:
            answers.append("beaver")
        return Action("cond_answer", side, reason=rng.choice(answers))
    if state.may_record_plays(side):
        mine = state.position_for(side)
        table = []
        for roll in rng.sample(ROLLS, rng.randint(0, len(ROLLS))):
            options = legal_plays(mine, roll)
            if options:
                table.append((roll, rng.choice(options)))
        return Action("cond_plays", side, table=tuple(table))
    return None
