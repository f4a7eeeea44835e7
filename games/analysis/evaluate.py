"""Rate each decision with bgsage: the equity of the choice made, of the best, the loss. Pure.

Equity is always the deciding player's, per unit of cube (so errors are
comparable across cube values, as GNU Backgammon and XG report them):

- partida simple: cubeless, by winning chance alone (2·P(win) − 1), since a
  gammon there counts as one game (the double-match-point evaluation);
- match: bgsage's cubeful match equity at the score (its match equity table,
  Crawford and post-Crawford included), in money-equivalent units;
- sesión libre: cubeful money equity, with the room's Jacoby and beaver rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING, TypeAlias

from games.bots import sage
from games.bots.context import BotContext
from games.engine import ActionKind, Play, Position, format_play

from .decisions import NO_DOUBLE, Decision, DecisionKind

if TYPE_CHECKING:  # bgsage is imported on first use only (games.bots.sage)
    from bgsage import CubeActionResult

# One cube verdict per position and context: a double and its answer share it.
_Verdicts: TypeAlias = "dict[tuple[Position, BotContext], CubeActionResult]"

# Marks, by equity lost (the page states them): more than each bound.
DOUBTFUL = 0.04
ERROR = 0.08
BLUNDER = 0.16
# Rolling without doubling counts as a cube decision only when doubling was
# right or within this much of right: otherwise every quiet turn would be an
# easy "decision" that dilutes the rate (GNU Backgammon's rule, same bound).
CLOSE_CUBE = 0.16
TOP = 5  # alternatives kept per checker play


@dataclass(frozen=True, slots=True)
class Settings:
    """The evaluator's settings; their ``version`` is stored with every result."""

    play_level: str = "3ply"  # checker play without a cube or score (partida simple)
    cubeful_play_level: str = "2ply"  # checker play with a cube or a match score
    cube_level: str = "3ply"  # cube decisions: XG's 3-ply, GNU Backgammon's 2-ply
    luck_level: str = "1ply"  # each roll's luck (games.analysis.luck): gnubg's 0-ply, its default
    revision: int = 1  # bump when the way decisions are rated changes
    # A quick first pass, shown until the full one replaces it (docs/ANALYSIS.md):
    # its rows are told apart by the version's suffix even at the same levels.
    quick: bool = False

    @property
    def version(self) -> str:
        return (
            f"bgsage-{_bgsage_version()}:play-{self.play_level}:cubeful-{self.cubeful_play_level}"
            f":cube-{self.cube_level}:luck-{self.luck_level}:r{self.revision}"
            + (QUICK_SUFFIX if self.quick else "")
        )


QUICK_SUFFIX = ":quick"
NO_LUCK = "none"  # a luck_level: the luck of the rolls is not measured
DEFAULT_SETTINGS = Settings()
# The first pass when analyses queue up (games.services.analysis): bgsage's
# 1-ply (gnubg's 0-ply, the raw networks) for every decision, and no luck (in a
# match it cost more than the decisions): 0.03 s of CPU for a partida simple
# against 3.7 s, 0.9 s for a match game against 3.8 (bench/analysis_quick.py).
QUICK_SETTINGS = Settings(
    play_level="1ply", cubeful_play_level="1ply", cube_level="1ply", luck_level=NO_LUCK, quick=True
)


@cache  # read on every state request (its cache's key): the installed package, once
def _bgsage_version() -> str:
    try:
        return metadata.version("bgsage")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, slots=True)
class Alternative:
    play: Play
    notation: str
    equity: float


@dataclass(frozen=True, slots=True)
class Rating:
    """bgsage's verdict on one decision, from the deciding player's side."""

    decision: Decision
    forced: bool  # one choice only (or none): never an error
    counted: bool  # counts in the player's error rate and PR
    played_equity: float
    best_equity: float
    best: str  # the best play in notation, or the best cube action (a kind)
    best_play: Play | None = None
    played_notation: str = ""
    alternatives: tuple[Alternative, ...] = ()
    cube: dict[str, float] | None = field(default=None)  # nd, dt, dp: the doubler's equities

    @property
    def loss(self) -> float:
        return max(0.0, self.best_equity - self.played_equity)

    @property
    def mark(self) -> str:
        return mark_of(self.loss) if self.counted else ""


def mark_of(loss: float) -> str:
    """ "blunder", "error", "doubtful" or "" for an equity loss."""
    if loss > BLUNDER:
        return "blunder"
    if loss > ERROR:
        return "error"
    if loss > DOUBTFUL:
        return "doubtful"
    return ""


def analyse(decisions: Iterable[Decision], settings: Settings = DEFAULT_SETTINGS) -> list[Rating]:
    """A rating for each decision, in order; a double and its answer share one cube verdict."""
    verdicts: _Verdicts = {}
    ratings = []
    for decision in decisions:
        if decision.kind == ActionKind.PLAY:
            ratings.append(_rate_play(decision, settings))
        else:
            ratings.append(_rate_cube(decision, settings, verdicts))
    return ratings


def rank(
    position: Position,
    dice: tuple[int, int],
    context: BotContext,
    force: Sequence[Play] = (),
    settings: Settings = DEFAULT_SETTINGS,
) -> list[sage.Candidate]:
    """Every legal play, best first, at the settings' depth; ``force``: plays searched fully."""
    level = settings.cubeful_play_level if sage.uses_cube_equity(context) else settings.play_level
    return sage.rank_plays(position, dice, level, context, force=force)


def _rate_play(decision: Decision, settings: Settings) -> Rating:
    position, played = decision.position, decision.play or ()
    assert decision.dice is not None, "a checker play is made with dice"
    ranked = rank(position, decision.dice, decision.context, (played,), settings)
    notation = format_play(position, played)
    # Different step orders can reach the same position: a choice is a result.
    distinct = {candidate.after for candidate in ranked}
    if len(distinct) <= 1:
        equity = ranked[0].equity if ranked else 0.0
        return Rating(decision, True, False, equity, equity, notation, played, notation)
    after = position.apply(played)
    played_equity = next(c.equity for c in ranked if c.after == after)
    best = ranked[0]
    alternatives, seen = [], set()
    for candidate in ranked:
        if candidate.after in seen:
            continue
        seen.add(candidate.after)
        alternatives.append(
            Alternative(candidate.play, format_play(position, candidate.play), candidate.equity)
        )
        if len(alternatives) == TOP:
            break
    return Rating(
        decision,
        forced=False,
        counted=True,
        played_equity=played_equity,
        best_equity=best.equity,
        best=format_play(position, best.play),
        best_play=best.play,
        played_notation=notation,
        alternatives=tuple(alternatives),
    )


def _rate_cube(decision: Decision, settings: Settings, verdicts: _Verdicts) -> Rating:
    # Every verdict is the doubler's, before the roll.
    if decision.kind in (NO_DOUBLE, ActionKind.DOUBLE):
        position, context = decision.position, decision.context
    else:
        position, context = decision.position.flip(), decision.context.flip()
    key = (position, context)
    verdict = verdicts.get(key)
    if verdict is None:
        verdict = verdicts[key] = sage.cube_decision(position, settings.cube_level, context)
    nd, dt, dp = verdict.equity_nd, verdict.equity_dt, verdict.equity_dp
    cube = {"nd": nd, "dt": dt, "dp": dp}
    doubled = min(dt, dp)  # the taker answers as well as they can
    best_kind: DecisionKind
    if decision.kind in (NO_DOUBLE, ActionKind.DOUBLE):
        best_kind = ActionKind.DOUBLE if doubled > nd else NO_DOUBLE
        played = doubled if decision.kind == ActionKind.DOUBLE else nd
        best = max(nd, doubled)
        counted = decision.kind == ActionKind.DOUBLE or doubled - nd > -CLOSE_CUBE
        if decision.kind == NO_DOUBLE and not sage.cube_is_alive(decision.context):
            counted = False  # a dead cube: nothing to decide
        return Rating(decision, False, counted, played, best, best_kind, cube=cube)
    # The taker's side: the doubler's equities with the sign turned.
    take, drop = -dt, -dp
    best_kind = ActionKind.TAKE if take >= drop else ActionKind.DROP
    if verdict.is_beaver and decision.context.beavers:
        best_kind = ActionKind.BEAVER  # bgsage's take equity is then the beaver's
    played = drop if decision.kind == ActionKind.DROP else take
    return Rating(decision, False, True, played, max(take, drop), best_kind, cube=cube)
