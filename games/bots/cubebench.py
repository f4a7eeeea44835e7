"""Bot-against-bot matches with the cube, every cube decision graded (botcube, tests).

A decision is graded the way GNU Backgammon grades it: the equity the
player gave away against the evaluator's own cube decision, normalised to
the cube (a drop is worth 1.0). A double costs ``best - min(DT, DP)`` when
it was wrong, not doubling costs ``best - ND``; a take or a drop costs the
taker the difference to the better of the two. Pure: no Django, no I/O.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import Action, ActionKind, Format, MatchRules, MatchState, Phase, Position

from . import sage
from .arena import make_player
from .context import BotContext
from .players import Player
from .runner import context_for, next_action

MAX_ACTIONS = 20000  # a 5-point match takes a few hundred; stops a broken player


@dataclass(frozen=True, slots=True)
class CubeDecision:
    kind: str  # "double" (to double or not) or "take" (to take or drop)
    chosen: bool  # doubled / took
    error: float  # equity given away against the evaluator, >= 0
    cube_value: int  # the cube before the decision


@dataclass
class MatchRecord:
    games: int
    score: tuple[int, int]
    highest_cube: int
    decisions: list[CubeDecision] = field(default_factory=list)


def grade_double(position: Position, context: BotContext, doubled: bool, level: str) -> float:
    """Equity lost by doubling (or not) in ``position``, the decider on roll."""
    verdict = sage.cube_decision(position, level, context)
    double = min(verdict.equity_dt, verdict.equity_dp)
    best = max(verdict.equity_nd, double)
    return best - (double if doubled else verdict.equity_nd)


def grade_take(position: Position, context: BotContext, took: bool, level: str) -> float:
    """Equity lost by taking (or dropping); ``position`` and ``context`` are the taker's."""
    verdict = sage.cube_decision(position.flip(), level, context.flip())
    take, drop = -verdict.equity_dt, -verdict.equity_dp  # the taker's equities
    return max(take, drop) - (take if took else drop)


def _grade(state: MatchState, side: int, action: Action, level: str) -> CubeDecision | None:
    context = context_for(state, side)
    position = state.position_for(side)
    if state.phase is Phase.ROLL:
        if not (state.may_double(side) and sage.cube_is_alive(context)):
            return None
        doubled = action.kind == ActionKind.DOUBLE
        error = grade_double(position, context, doubled, level)
        return CubeDecision("double", doubled, error, state.cube_value)
    if (
        state.phase is Phase.DOUBLED
        and not state.beaver_pending
        and action.kind in (ActionKind.TAKE, ActionKind.DROP)
    ):
        took = action.kind == ActionKind.TAKE
        return CubeDecision(
            "take", took, grade_take(position, context, took, level), state.cube_value
        )
    return None


def play_match(
    players: Sequence[Player], length: int, seed: int, level: str = "1ply"
) -> MatchRecord:
    """One match to ``length`` between two bots, the dice from ``seed``."""
    dice = random.Random(f"mesa-botcube:{seed}")
    state = MatchState.new(MatchRules(format=Format.MATCH, length=length))
    record = MatchRecord(games=0, score=(0, 0), highest_cube=1)
    for _ in range(MAX_ACTIONS):
        if state.phase is Phase.MATCH_OVER:
            break
        if state.phase is Phase.GAME_OVER:
            state = state.apply(Action(ActionKind.NEXT_GAME, 0))
            continue
        roll = (dice.randint(1, 6), dice.randint(1, 6))
        if state.needs_auto_roll():
            side = 0 if state.phase is Phase.OPENING else state.turn
            state = state.apply(Action(ActionKind.ROLL, side, roll))
            continue
        side = state.turn
        action = next_action(players[side], state, side)
        if action is None:
            raise RuntimeError(f"no action for side {side} in phase {state.phase}")
        decision = _grade(state, side, action, level)
        if decision is not None:
            record.decisions.append(decision)
        if action.kind == ActionKind.ROLL:
            action = Action(ActionKind.ROLL, side, roll)
        state = state.apply(action)
        record.highest_cube = max(record.highest_cube, state.cube_value)
    else:
        raise RuntimeError(f"the match did not end after {MAX_ACTIONS} actions")
    record.games = len(state.games)
    record.score = state.score
    return record


@dataclass
class CubeReport:
    bot: str
    length: int
    matches: list[MatchRecord] = field(default_factory=list)

    @property
    def decisions(self) -> list[CubeDecision]:
        return [d for match in self.matches for d in match.decisions]

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "length": self.length,
            "matches": [
                {
                    "games": m.games,
                    "score": list(m.score),
                    "highest_cube": m.highest_cube,
                    "decisions": [[d.kind, d.chosen, d.error, d.cube_value] for d in m.decisions],
                }
                for m in self.matches
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CubeReport:
        report = cls(data["bot"], data["length"])
        for m in data["matches"]:
            decisions = [CubeDecision(*d) for d in m["decisions"]]
            record = MatchRecord(m["games"], tuple(m["score"]), m["highest_cube"], decisions)
            report.matches.append(record)
        return report

    def summary(self) -> dict[str, Any]:
        decisions = self.decisions
        errors = [d.error for d in decisions]
        wrong = [e for e in errors if e > 1e-9]
        cubes = [m.highest_cube for m in self.matches]
        return {
            "bot": self.bot,
            "matches": len(self.matches),
            "one_game_share": sum(m.games == 1 for m in self.matches) / len(self.matches),
            "highest_cube": max(cubes),
            "median_highest_cube": statistics.median(cubes),
            "games_per_match": statistics.fmean(m.games for m in self.matches),
            "decisions": len(decisions),
            "doubles": sum(d.kind == "double" and d.chosen for d in decisions),
            "takes": sum(d.kind == "take" and d.chosen for d in decisions),
            "drops": sum(d.kind == "take" and not d.chosen for d in decisions),
            "wrong_decisions": len(wrong),
            "mean_error": statistics.fmean(errors) if errors else 0.0,
            "mean_error_when_wrong": statistics.fmean(wrong) if wrong else 0.0,
            "max_error": max(errors, default=0.0),
        }


def self_play(
    bot: str,
    matches: int,
    length: int = 5,
    seed: int = 0,
    level: str = "1ply",
    on_match: Callable[[CubeReport], None] | None = None,
    first: int = 0,
) -> CubeReport:
    """``matches`` matches of ``bot`` against itself, each seat with its own seeded rng.

    Match ``n`` is the same whoever plays it, so a long run splits into
    ranges (``first``) played side by side and read back together.
    """
    report = CubeReport(bot, length)
    for number in range(first, first + matches):
        players = [
            make_player(bot, random.Random(f"mesa-botcube:{seed}:{number}:{side}"))
            for side in (0, 1)
        ]
        report.matches.append(play_match(players, length, seed * 100003 + number, level))
        if on_match is not None:
            on_match(report)
    return report
