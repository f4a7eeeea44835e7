"""The bridge to bgsage: board conversion and one analyzer per level per process.

bgsage sees a board as 26 signed counts from the side of the player on roll:
index p (1..24) is my point p, positive for my checkers and negative for the
opponent's; 25 counts my checkers on the bar and 0 the opponent's, both as
positive numbers. Loading the networks takes a noticeable moment and a few
megabytes, so each analyzer is built lazily, the first time a bot needs it,
and then shared by every bot in the process (a Celery worker builds each one
once, not once per move).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, TypedDict

from games.engine import BAR, Play, Position, legal_plays

from .context import BotContext

if TYPE_CHECKING:  # bgsage is imported on first use only
    from bgsage import BgBotAnalyzer, CubeActionResult

# N-ply searches, and bgsage's 1T truncated rollout (72 trials, 5 plies, 1-ply moves).
LEVELS = ("1ply", "2ply", "3ply", "4ply", "truncated1")

_analyzers: dict[tuple[str, bool], BgBotAnalyzer] = {}
_lock = threading.Lock()
build_count = 0  # how many analyzers this process has built; tests read it


def analyzer(level: str, cubeful: bool) -> BgBotAnalyzer:
    """The process-wide analyzer for ``level``, built on first use."""
    global build_count
    key = (level, cubeful)
    found = _analyzers.get(key)
    if found is not None:
        return found
    if level not in LEVELS:
        raise ValueError(f"unknown evaluation level {level!r}; known: {', '.join(LEVELS)}")
    with _lock:
        found = _analyzers.get(key)
        if found is None:
            from bgsage import create_analyzer

            found = create_analyzer(level, cubeful=cubeful)
            _analyzers[key] = found
            build_count += 1
    return found


def to_board(position: Position) -> list[int]:
    """The position as a bgsage board, from the side of the player on roll."""
    me, them = position.me, position.them
    board = [0] * 26
    for point in range(1, 25):
        board[point] = me[point] - them[25 - point]
    board[25] = me[BAR]
    board[0] = them[BAR]
    return board


@dataclass(frozen=True, slots=True)
class Candidate:
    """A legal play with bgsage's verdict on it, from the mover's side."""

    play: Play
    after: Position
    equity: float  # cubeful if the context has a cube or a match score, else cubeless
    win: float
    gammon_win: float
    gammon_loss: float


class _CubeArgs(TypedDict):
    """The cube and the score as bgsage's keyword arguments (its beaver flag apart:
    ``post_move_analytics`` has none)."""

    cube_value: int
    cube_owner: str
    away1: int
    away2: int
    is_crawford: bool
    jacoby: bool


def _cube_args(context: BotContext) -> _CubeArgs:
    away_me, away_them = context.away()
    owner = {"centered": "centered", "me": "player", "them": "opponent"}[context.cube_owner]
    return {
        "cube_value": context.cube_value,
        "cube_owner": owner,
        "away1": away_me,
        "away2": away_them,
        "is_crawford": context.crawford,
        "jacoby": context.jacoby,
    }


def uses_cube_equity(context: BotContext) -> bool:
    """Whether plays must be judged by cubeful (or match) equity rather than cubeless.

    A match score changes what gammons are worth even when no cube is in play.
    The one exception is a game that decides everything (a single game, or
    both players at 1-away): there only winning counts, which the cubeless
    winning chance measures exactly.
    """
    if context.away() == (1, 1):
        return False
    return context.cube_in_play or not context.is_money


def rank_plays(
    position: Position,
    dice: tuple[int, int],
    level: str,
    context: BotContext,
    force: Sequence[Play] = (),
) -> list[Candidate]:
    """Every legal play, best first by bgsage at ``level``; [] when nothing can be played.

    Beyond 1-ply bgsage searches deeply only the plays its 1-ply pass finds
    close to the best; ``force`` names plays to search deeply anyway (the
    analysis forces the play a player made, so its loss is measured at full depth).
    """
    plays = legal_plays(position, dice)
    if not plays:
        return []
    cubeful = uses_cube_equity(context)
    winning_only = context.away() == (1, 1)
    board = to_board(position)
    forced = [to_board(position.apply(play)) for play in force] if force else None
    if cubeful:
        result = analyzer(level, cubeful).checker_play(
            board,
            dice[0],
            dice[1],
            **_cube_args(context),
            beaver=context.beavers,
            force_boards=forced,
        )
    else:
        result = analyzer(level, cubeful).checker_play(board, dice[0], dice[1], force_boards=forced)
    by_board = {tuple(move.board): move for move in result.moves}
    ranked: list[Candidate] = []
    for play in plays:
        after = position.apply(play)
        move = by_board.get(tuple(to_board(after)))
        if move is None:
            # bgsage's move generator and ours disagree: judge this play on its own
            # rather than lose it (it is legal by our rules).
            candidate = _judge_alone(play, after, cubeful, context)
        else:
            probs = move.probs
            candidate = Candidate(
                play, after, move.equity, probs.win, probs.gammon_win, probs.gammon_loss
            )
        if winning_only:
            candidate = replace(candidate, equity=2 * candidate.win - 1)
        ranked.append(candidate)
    ranked.sort(key=lambda c: -c.equity)
    return ranked


def _judge_alone(play: Play, after: Position, cubeful: bool, context: BotContext) -> Candidate:
    board = to_board(after)
    if cubeful:
        analysis = analyzer("1ply", cubeful).post_move_analytics(board, **_cube_args(context))
    else:
        analysis = analyzer("1ply", cubeful).post_move_analytics(board)
    equity = analysis.cubeful_equity if cubeful else analysis.cubeless_equity
    probs = analysis.probs
    return Candidate(play, after, equity, probs.win, probs.gammon_win, probs.gammon_loss)


def cube_decision(position: Position, level: str, context: BotContext) -> CubeActionResult:
    """bgsage's cube verdict for the player on roll in ``position`` (before rolling)."""
    return _cube_decision(tuple(to_board(position)), level, context)


@lru_cache(maxsize=4096)
def _cube_decision(board: tuple[int, ...], level: str, context: BotContext) -> CubeActionResult:
    # A verdict takes tens of milliseconds and the same question comes twice
    # (the bot decides, botcube grades the decision): remember recent answers.
    with _rollout_lock if level in ROLLOUTS else nullcontext():
        return analyzer(level, True).cube_action(
            list(board), **_cube_args(context), beaver=context.beavers
        )


ROLLOUTS = frozenset({"truncated1"})
# A cancelled rollout cancels whatever its analyzer runs: one rollout at a time.
_rollout_lock = threading.Lock()
# What a cube rollout takes, wall time, in this process: a running mean of the
# finished ones (each weighing ROLLOUT_WEIGHT) from the 0.7-0.9 s measured on
# one thread of this 2-core machine.
ROLLOUT_PRIOR = 0.8
ROLLOUT_WEIGHT = 0.2
_cube_rollout = ROLLOUT_PRIOR


def expected_cube_rollout() -> float:
    return _cube_rollout


def cube_decision_until(
    position: Position,
    level: str,
    context: BotContext,
    deadline: float,
    now: Callable[[], float],
) -> CubeActionResult | None:
    """``cube_decision``, or None when it would end past ``deadline`` (on ``now``).

    An N-ply verdict (tens of milliseconds) is asked for while time is left.
    A rollout begins only when the time left covers what a cube rollout is
    expected to take (``expected_cube_rollout``): with one thread, as the
    bots worker runs, bgsage cannot stop it once begun. With more threads
    it reports every batch of trials (8 of the 72), and one still running at
    the deadline is cancelled there and its analyzer made ready for the
    next. A verdict given up is not remembered.
    """
    global _cube_rollout
    begun = now()
    if level not in ROLLOUTS:
        return cube_decision(position, level, context) if begun < deadline else None
    if begun + _cube_rollout >= deadline:
        return None
    from bgsage import RolloutCancelled

    found = analyzer(level, True)

    def progress(done: int, total: int, results: object) -> None:
        if now() >= deadline:
            found.cancel()

    with _rollout_lock:
        try:
            verdict = found.cube_action(
                to_board(position),
                **_cube_args(context),
                beaver=context.beavers,
                progress_callback=progress,
            )
        except RolloutCancelled:
            return None
        finally:
            found.reset_cancel()
    _cube_rollout += ROLLOUT_WEIGHT * (now() - begun - _cube_rollout)
    return verdict


def cube_is_alive(context: BotContext) -> bool:
    """Whether doubling can change anything for the player on roll.

    False in the Crawford game, when the opponent owns the cube, and when the
    cube already covers every point the player still needs (a dead cube).
    """
    if not context.cube_in_play or context.crawford or context.cube_owner == "them":
        return False
    if context.is_money:
        return True
    from bgsage import can_double_match

    away_me, away_them = context.away()
    owner = {"centered": "centered", "me": "player"}[context.cube_owner]
    return can_double_match(away_me, away_them, context.cube_value, owner, context.crawford)


def match_winning_chance(away_me: int, away_them: int, post_crawford: bool) -> float:
    """bgsage's match equity table: my chance to win the match from this score."""
    if away_me <= 0:
        return 1.0
    if away_them <= 0:
        return 0.0
    import bgbot_cpp

    return bgbot_cpp.get_met(away_me, away_them, post_crawford)


def best_equity(
    position: Position, dice: tuple[int, int], level: str, context: BotContext
) -> float:
    """The roller's equity after playing ``dice`` as well as bgsage sees at ``level``.

    Cheaper than ``rank_plays``: bgsage's own move list, no cross-check with
    the engine's (the luck of a roll needs only the best play's value, for
    all 21 rolls). A roll with no legal play leaves the position as it is.
    """
    board = to_board(position)
    if uses_cube_equity(context):
        result = analyzer(level, True).checker_play(
            board, dice[0], dice[1], **_cube_args(context), beaver=context.beavers
        )
        return max(move.equity for move in result.moves)
    result = analyzer(level, False).checker_play(board, dice[0], dice[1])
    if context.away() == (1, 1):
        # Only winning counts: the best play is the one that wins most often.
        return max(2 * move.probs.win - 1 for move in result.moves)
    return max(move.equity for move in result.moves)
