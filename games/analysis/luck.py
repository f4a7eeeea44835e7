"""The luck of each roll, and each player's luck in a game. Pure: no Django.

A roll's luck is what the dice gave before any choice was made: the roller's
equity after the roll, played as well as the evaluator sees, minus their
equity before it, which is the mean of the same over every roll they could
have had (the 21 rolls, a double weighing 1/36 and any other roll 2/36).
The opening roll also decides who starts: before it, each side starts with
each of the 15 rolls that are not doubles, so its luck is the starter's
equity after it minus the mean of those 30 outcomes (GNU Backgammon's rule;
about the equity after the roll itself when the score is even).

Equity is the one the decisions are rated by (games.analysis.evaluate): the
roller's, per unit of cube; cubeless by winning chance in a partida simple,
cubeful money equity in a sesión libre, cubeful match equity in a match
(money-equivalent units, EMG). The depth is bgsage 1-ply, GNU Backgammon's
0-ply: gnubg's own default for luck, and 21 searches per roll stay cheap.
Luck in the result's units (``RollLuck.value``) is points (× the cube) in a
partida simple and a sesión libre, and match-winning chance in a match.
docs/ANALYSIS.md states the thresholds and the agreement with gnubg.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

from games.bots import sage
from games.bots.runner import context_for
from games.engine import Action, ActionKind, Format, MatchRules, MatchState, Phase, opening_starter

# Marks, by luck in equity (GNU Backgammon's defaults): at least this much either way.
VERY_LUCKY: Final = 0.6
LUCKY: Final = 0.3
ROLLS: Final = tuple((high, low) for high in range(1, 7) for low in range(1, high + 1))
OPENING_ROLLS: Final = tuple(roll for roll in ROLLS if roll[0] != roll[1])


def luck_mark(luck: float) -> str:
    """ "very_lucky", "lucky", "unlucky", "very_unlucky" or "" for a roll's luck in equity."""
    if luck >= VERY_LUCKY:
        return "very_lucky"
    if luck >= LUCKY:
        return "lucky"
    if luck <= -VERY_LUCKY:
        return "very_unlucky"
    if luck <= -LUCKY:
        return "unlucky"
    return ""


@dataclass(frozen=True, slots=True)
class RollLuck:
    """One roll's luck, from the roller's side.

    ``index`` is the roll's place in the match's actions (the caller maps it
    to its Turn row). ``scale`` turns equity into the result's units: the
    cube's value for points, half the match-winning chance between winning
    and losing the cube's points in a match; ``middle`` is what equity 0 is
    worth in those units (0 for points, the midpoint's MWC in a match).
    """

    index: int
    side: int
    dice: tuple[int, int]
    before: float
    after: float
    scale: float = 1.0
    middle: float = 0.0

    @property
    def luck(self) -> float:
        return self.after - self.before

    @property
    def mark(self) -> str:
        return luck_mark(self.luck)

    @property
    def value(self) -> float:
        """The luck in the result's units: points, or match-winning chance."""
        return self.luck * self.scale

    @property
    def level_before(self) -> float:
        """The roller's standing before the roll in the result's units (the chart's line)."""
        return self.middle + self.before * self.scale


@dataclass(slots=True)
class LuckSummary:
    """One player's luck in a game: their own rolls only."""

    rolls: int = 0
    luck: float = 0.0  # in equity (EMG), summed
    value: float = 0.0  # in the result's units, summed
    very_lucky: int = 0
    lucky: int = 0
    unlucky: int = 0
    very_unlucky: int = 0
    result: float | None = None  # what the game gave them, same units; None: not known

    def add(self, roll: RollLuck) -> None:
        self.rolls += 1
        self.luck += roll.luck
        self.value += roll.value
        mark = roll.mark
        if mark:
            setattr(self, mark, getattr(self, mark) + 1)

    def adjusted(self, opponent: LuckSummary) -> float | None:
        """The result with both players' luck taken out (GNU Backgammon's "luck adjusted")."""
        if self.result is None:
            return None
        return self.result - (self.value - opponent.value)

    def to_json(self, opponent: LuckSummary) -> dict[str, Any]:
        data = asdict(self)
        adjusted = self.adjusted(opponent)
        data.update(
            luck=round(self.luck, 4),
            value=round(self.value, 4),
            result=None if self.result is None else round(self.result, 4),
            adjusted=None if adjusted is None else round(adjusted, 4),
        )
        return data


@dataclass(slots=True)
class GameLuck:
    """The luck of every roll of one game, and what the game gave each side."""

    unit: str  # "points" or "mwc"
    rolls: list[RollLuck] = field(default_factory=list)
    result: tuple[float, float] | None = None
    end: float | None = None  # side 0's standing once the game is over (points won, or MWC)

    def summaries(self) -> tuple[LuckSummary, LuckSummary]:
        sides = (LuckSummary(), LuckSummary())
        for roll in self.rolls:
            sides[roll.side].add(roll)
        if self.result is not None:
            for side, summary in enumerate(sides):
                summary.result = self.result[side]
        return sides


def game_luck(
    rules: MatchRules, actions: Iterable[Action], wanted: Iterable[int], level: str = "1ply"
) -> GameLuck:
    """The luck of each roll among ``actions`` (a whole match) at the ``wanted`` indices.

    ``wanted`` are one game's actions; the match is replayed from its start,
    so the cube and the score are as they were at each roll.
    """
    keep = set(wanted)
    found = GameLuck("mwc" if rules.format is Format.MATCH else "points")
    state = MatchState.new(rules)
    start: MatchState | None = None
    for index, action in enumerate(actions):
        if index in keep:
            start = start or state
            if action.kind == ActionKind.ROLL and action.dice is not None:
                roll = roll_luck(state, action, level, index)
                if roll is not None:
                    found.rolls.append(roll)
        after = state.apply(action)
        if index in keep and start is not None and len(after.games) > len(state.games):
            found.result = _result(start, after)
            found.end = _mwc(after, 0) if found.unit == "mwc" else found.result[0]
        state = after
    return found


def roll_luck(
    state: MatchState, action: Action, level: str = "1ply", index: int = 0
) -> RollLuck | None:
    """The luck of ``action`` (a roll) in ``state``; None for an opening tie, or no roll."""
    assert action.dice is not None
    dice = (max(action.dice), min(action.dice))
    if state.phase is Phase.OPENING:
        side = opening_starter(action.dice)
        if side is None:
            return None  # a tie: nobody moves, the table rolls again
        started = state.apply(action)  # the starter's position and context
        mine = _equities(started, side, OPENING_ROLLS, level)
        # Before the opening roll either side may start, with any of the 15 rolls,
        # each one 2 ways in 30: who starts is part of the luck (as gnubg counts it).
        theirs = _equities(replace(started, turn=1 - side), 1 - side, OPENING_ROLLS, level)
        before = (sum(mine.values()) - sum(theirs.values())) / (2 * len(OPENING_ROLLS))
        scale, middle = _units(started, side)
        return RollLuck(index, side, dice, before, mine[dice], scale, middle)
    if state.phase is not Phase.ROLL:
        return None
    side = action.side
    equity = _equities(state, side, ROLLS, level)
    before = sum(equity[r] * (1 if r[0] == r[1] else 2) for r in ROLLS) / 36
    scale, middle = _units(state, side)
    return RollLuck(index, side, dice, before, equity[dice], scale, middle)


def _equities(
    state: MatchState, side: int, rolls: Iterable[tuple[int, int]], level: str
) -> dict[tuple[int, int], float]:
    """``side``'s equity after each of ``rolls`` played well, ``side`` on roll in ``state``."""
    position, context = state.position_for(side), context_for(state, side)
    return {roll: sage.best_equity(position, roll, level, context) for roll in rolls}


def _units(state: MatchState, side: int) -> tuple[float, float]:
    """(scale, middle): equity into the result's units for ``side``, at the cube as it stands."""
    if state.rules.format is not Format.MATCH:
        return float(state.cube_value), 0.0
    # Equity is normalised between winning and losing the cube's points (a
    # single game), as GNU Backgammon and bgsage normalise match equity.
    length, cube = state.rules.length, state.cube_value
    mine, theirs = length - state.score[side], length - state.score[1 - side]
    post = state.post_crawford or state.crawford_game  # after this game, if it is not over
    win = sage.match_winning_chance(mine - cube, theirs, post)
    lose = sage.match_winning_chance(mine, theirs - cube, post)
    return (win - lose) / 2, (win + lose) / 2


def _result(start: MatchState, end: MatchState) -> tuple[float, float]:
    """What the game that ``end`` finished gave each side: points, or MWC gained."""
    game = end.games[-1]
    if start.rules.format is not Format.MATCH:
        won = float(game.points)
        return (won, -won) if game.winner == 0 else (-won, won)
    return (_mwc(end, 0) - _mwc(start, 0), _mwc(end, 1) - _mwc(start, 1))


def _mwc(state: MatchState, side: int) -> float:
    length = state.rules.length
    mine, theirs = length - state.score[side], length - state.score[1 - side]
    if state.phase is Phase.MATCH_OVER:
        return 1.0 if state.winner == side else 0.0
    post = state.post_crawford
    if state.phase is Phase.GAME_OVER:
        post = post or state.crawford_game  # the flags are still the game just over's
    return sage.match_winning_chance(mine, theirs, post)
