"""A deeper look at the plays that are close: bgsage's N-ply search on a few candidates.

bgsage's ``checker_play`` at N plies gives every legal play a cubeful N-ply
value, which costs seconds when there are dozens of plays (cubeful 3-ply
took up to 24 s for one move here). Most of those plays are clearly worse
after a cheaper pass, so Empresario ranks all plays first (``rank_plays``)
and then spends its time where the decision is close: each ``Stage``
re-evaluates the best few plays within a window of the best at more plies,
and the next stage looks deeper still at the few that stay close.

The evaluations are bgsage's own C++ ones (``bgbot_cpp``), on strategies
built here once per process from bgsage's production weights and its
one-sided bear-off database: the cube-aware N-ply tree with the match
score, the Crawford flag and the cube owner when the context has a cube or
a score (the value ``rank_plays`` reads at its own depth), and the cubeless
N-ply value otherwise. Plies are bgsage's (XG's) numbering: 3 is GNU
Backgammon's 2-ply.

A ``Rollout`` stage settles the closest plays by bgsage's truncated
rollout instead of a deeper tree: a few dozen games played a few turns on
from each candidate, with variance reduction, the same dice for every
candidate. Measured here on close decisions against a longer rollout, it
chose better than 4-ply at a lower cost (docs/BOTS.md). Pure: no Django.

The search is anytime: given a deadline (``deepen``'s, on a monotonic
clock), no evaluation starts that would end after it (judged by the
longest one so far in this move, and before the move has timed one, by
the longest of recent moves: ``expected_evaluation``), and a stage the
deadline cut short is dropped whole, so the play comes from the last stage
that finished (a deeper value is never compared with a shallower one). A
move overruns its deadline only when an evaluation takes longer than
those it is judged by.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from games.engine import Position

from .context import BotContext
from .sage import Candidate, to_board, uses_cube_equity

if TYPE_CHECKING:
    from bgbot_cpp import BearoffDB, CubeOwner, MultiPlyStrategy, RolloutStrategy, Strategy

build_count = 0  # strategies built in this process; the bench checks it stays put


@dataclass(frozen=True, slots=True)
class Stage:
    """Re-evaluate at ``plies`` the best ``top`` distinct plays within ``window`` of the best."""

    plies: int
    top: int
    window: float


@dataclass(frozen=True, slots=True)
class Rollout:
    """Settle the best ``top`` distinct plays within ``window`` of the best by a truncated rollout.

    The defaults are bgsage's ``truncated1`` (XG Roller's kind): ``trials``
    games, a multiple of 36 so the first roll is exactly stratified, each
    stopped after ``truncation`` plies and valued there by the network;
    every move inside a trial is chosen at 1-ply.
    """

    top: int
    window: float
    trials: int = 72
    truncation: int = 5


Search = Stage | Rollout
ROLLOUT_SEED = 42  # one seed: a play gets the same value every time, and every play the same dice

_lock = threading.Lock()  # building the strategies
_search_lock = threading.Lock()  # the cubeless search keeps a cache: one caller at a time
_rollout_lock = threading.Lock()  # so does a rollout, and its seeded dice
_base: tuple[Strategy, BearoffDB | None] | None = None
_multiply: dict[int, MultiPlyStrategy] = {}
_rollouts: dict[tuple[int, int], RolloutStrategy] = {}


def threads() -> int:
    """Threads for one search: bgsage's own setting (BGBOT_MULTIPLY_THREADS), else the cores."""
    try:
        wanted = int(os.environ.get("BGBOT_MULTIPLY_THREADS", "0"))
    except ValueError:
        wanted = 0
    return wanted if wanted > 0 else max(2, os.cpu_count() or 2)


def _base_strategy() -> tuple[Strategy, BearoffDB | None]:
    """The raw network with exact bear-off values, and the database; built on first use."""
    global _base, build_count
    with _lock:
        if _base is None:
            import bgbot_cpp
            from bgsage.weights import bearoff_db_path, default_weights

            weights = default_weights()
            strategy: Strategy = bgbot_cpp.create_strategy(
                weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list
            )
            db: BearoffDB | None = None
            path = bearoff_db_path()
            if path:
                db = bgbot_cpp.BearoffDB()
                if db.load(path):
                    strategy = bgbot_cpp.BearoffStrategy(strategy, db)
                else:
                    db = None
            _base = (strategy, db)
            build_count += 1
        return _base


def _multiply_strategy(plies: int) -> MultiPlyStrategy:
    """bgsage's cubeless N-ply search (its own move filter inside), built on first use."""
    global build_count
    _, db = _base_strategy()
    with _lock:
        found = _multiply.get(plies)
        if found is None:
            import bgbot_cpp
            from bgsage.weights import default_weights

            weights = default_weights()
            count = threads()
            found = bgbot_cpp.create_multipy(
                weights.strategy_type,
                weights.weight_paths_list,
                weights.hidden_sizes_list,
                n_plies=plies,
                parallel_evaluate=count > 1,
                parallel_threads=max(2, count) if count > 1 else 0,
            )
            if db is not None:
                bgbot_cpp.multipy_set_bearoff_db(found, db)
            _multiply[plies] = found
            build_count += 1
        return found


def _rollout_strategy(rollout: Rollout) -> RolloutStrategy:
    """bgsage's truncated rollout with these trials and depth, built on first use."""
    global build_count
    _, db = _base_strategy()
    key = (rollout.trials, rollout.truncation)
    with _lock:
        found = _rollouts.get(key)
        if found is None:
            import bgbot_cpp
            from bgsage.weights import default_weights

            weights = default_weights()
            count = threads()
            # bgsage's truncated1 settings, as its analyzer builds them.
            found = bgbot_cpp.create_rollout(
                weights.strategy_type,
                weights.weight_paths_list,
                weights.hidden_sizes_list,
                n_trials=rollout.trials,
                truncation_depth=rollout.truncation,
                decision_ply=1,
                n_threads=count,
                seed=ROLLOUT_SEED,
                parallelize_trials=count > 1,
                ultra_late_threshold=2,
            )
            if db is not None:
                bgbot_cpp.rollout_set_bearoff_db(found, db)
            _rollouts[key] = found
            build_count += 1
        return found


def warm_up(stages: Sequence[Search]) -> None:
    """Build what ``stages`` search with now (a worker may do it at start, not on a first move)."""
    _base_strategy()
    for stage in stages:
        if isinstance(stage, Rollout):
            _rollout_strategy(stage)
        else:
            _multiply_strategy(stage.plies)  # the cubeless search; the cubeful one needs the base


Spent = Callable[[], bool]  # whether the move's time is up


def _never() -> bool:
    return False


def _cubeful(
    position: Position,
    chosen: list[Candidate],
    plies: int,
    context: BotContext,
    spent: Spent = _never,
) -> list[Candidate] | None:
    import bgbot_cpp

    strategy, db = _base_strategy()
    # After my play the opponent is on roll: the tree is theirs, the cube seen by them.
    owner = {
        "centered": bgbot_cpp.CubeOwner.CENTERED,
        "me": bgbot_cpp.CubeOwner.OPPONENT,
        "them": bgbot_cpp.CubeOwner.PLAYER,
    }[context.cube_owner]
    away_me, away_them = context.away()
    money = context.is_money
    root = to_board(position)

    def evaluate(candidate: Candidate) -> Candidate | None:
        if spent():
            return None
        found = bgbot_cpp.cubeful_probs_and_equity_nply(
            bgbot_cpp.flip_board(to_board(candidate.after)),
            owner,
            strategy,
            plies,
            n_threads=1,
            cube_value=context.cube_value,
            away1=away_them,
            away2=away_me,
            is_crawford=context.crawford,
            jacoby=context.jacoby and money,
            beaver=context.beavers and money,
            bearoff_db=db,
            root_board=root,
        )
        theirs = [float(p) for p in found["probs"]]  # win, gammon, backgammon; then losses
        return replace(
            candidate,
            equity=-float(found["equity"]),
            win=1.0 - theirs[0],
            gammon_win=theirs[3],
            gammon_loss=theirs[1],
        )

    workers = min(threads(), len(chosen))
    if workers <= 1:
        looked = [evaluate(candidate) for candidate in chosen]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            looked = list(pool.map(evaluate, chosen))
    return _whole(looked)


def _whole(looked: list[Candidate | None]) -> list[Candidate] | None:
    """Every candidate's value, or None when the deadline left one out."""
    done = [candidate for candidate in looked if candidate is not None]
    return done if len(done) == len(looked) else None


def _cubeless(
    position: Position,
    chosen: list[Candidate],
    plies: int,
    context: BotContext,
    spent: Spent = _never,
) -> list[Candidate] | None:
    strategy = _multiply_strategy(plies)
    root = to_board(position)
    winning_only = context.away() == (1, 1)
    found: list[Candidate] = []
    with _search_lock:
        try:
            for candidate in chosen:
                if spent():
                    return None
                result = strategy.evaluate_board(to_board(candidate.after), root)
                mine = [float(p) for p in result["probs"]]
                equity = 2 * mine[0] - 1 if winning_only else float(result["equity"])
                found.append(
                    replace(candidate, equity=equity, win=mine[0], gammon_win=mine[1],
                            gammon_loss=mine[3])
                )  # fmt: skip
        finally:
            strategy.clear_cache()
    return found


def movers_cube_owner(context: BotContext) -> CubeOwner:
    """The cube's owner as bgsage's rollouts read it: from the side of the player who moved."""
    import bgbot_cpp

    return {
        "centered": bgbot_cpp.CubeOwner.CENTERED,
        "me": bgbot_cpp.CubeOwner.PLAYER,
        "them": bgbot_cpp.CubeOwner.OPPONENT,
    }[context.cube_owner]


def _rolled_out(
    position: Position,
    chosen: list[Candidate],
    rollout: Rollout,
    context: BotContext,
    spent: Spent = _never,
) -> list[Candidate] | None:
    strategy = _rollout_strategy(rollout)
    root = to_board(position)
    cubeful = uses_cube_equity(context)
    winning_only = context.away() == (1, 1)
    # The rollout values the position after my play from my side: the cube as I see it.
    owner = movers_cube_owner(context)
    away_me, away_them = context.away()
    money = context.is_money
    found: list[Candidate] = []
    with _rollout_lock:
        for candidate in chosen:
            if spent():
                return None
            board = to_board(candidate.after)
            if cubeful:
                result = strategy.cubeful_evaluate_board(
                    board,
                    root,
                    cube_value=context.cube_value,
                    owner=owner,
                    away1=away_me,
                    away2=away_them,
                    is_crawford=context.crawford,
                    jacoby=context.jacoby and money,
                    beaver=context.beavers and money,
                )
            else:
                result = strategy.evaluate_board(board, root)
            mine = [float(p) for p in result["probs"]]  # win, gammon, backgammon; then losses
            if cubeful:
                equity = float(result["cubeful_equity"])
            elif winning_only:
                equity = 2 * mine[0] - 1
            else:
                equity = float(result["equity"])
            found.append(
                replace(candidate, equity=equity, win=mine[0], gammon_win=mine[1],
                        gammon_loss=mine[3])
            )  # fmt: skip
    return found


def deepen(
    position: Position,
    ranked: list[Candidate],
    context: BotContext,
    stages: Sequence[Search],
    *,
    deadline: float | None = None,
    now: Callable[[], float] = time.monotonic,
) -> list[Candidate]:
    """``ranked`` (best first) with its close plays re-evaluated stage by stage.

    The plays a stage looked at come first, in the order of their deeper
    values, then the rest as they were: a play left out was already worse
    by more than the window, and a deeper value is never compared with a
    shallower one to pick the best. A stage with fewer than two close plays
    ends the search: the decision is clear.

    With a ``deadline`` (on the clock ``now``) the search stops there: a
    stage not finished by then is dropped, and the ranking of the last
    finished one is the answer.
    """
    cubeful = uses_cube_equity(context)

    # The first evaluation of a move is judged by the longest of recent moves.
    last, seen, longest = now(), 0.0, expected_evaluation()

    def spent() -> bool:
        # Called as each evaluation starts: the longest gap between two calls is
        # the longest evaluation so far, and one that would end past the
        # deadline is not begun.
        nonlocal last, seen, longest
        if deadline is None:
            return False
        moment = now()
        seen, last = max(seen, moment - last), moment
        longest = max(longest, seen)
        return moment + longest >= deadline

    for stage in stages:
        if not ranked or spent():
            break
        best = ranked[0].equity
        chosen: list[Candidate] = []
        for candidate in ranked:
            if best - candidate.equity > stage.window or len(chosen) == stage.top:
                break
            if all(candidate.after != other.after for other in chosen):
                chosen.append(candidate)
        if len(chosen) < 2:
            break
        if isinstance(stage, Rollout):
            looked = _rolled_out(position, chosen, stage, context, spent)
        else:
            evaluate = _cubeful if cubeful else _cubeless
            looked = evaluate(position, chosen, stage.plies, context, spent)
        if looked is None:
            break  # out of time mid-stage: the last finished stage's ranking stands
        deeper = {c.after: c for c in looked}
        front = [
            replace(deeper[candidate.after], play=candidate.play)
            for candidate in ranked
            if candidate.after in deeper
        ]
        front.sort(key=lambda c: -c.equity)
        ranked = front + [candidate for candidate in ranked if candidate.after not in deeper]
    if seen > 0:
        _record_evaluation(seen)
    return ranked


# The longest evaluation of a move (one candidate at one stage), wall time, as a
# running mean over the recent moves of this process (each weighing
# EVALUATION_WEIGHT): what a move's first evaluation is judged by before it has
# timed one of its own. On a loaded machine it grows, and the search stops sooner.
EVALUATION_WEIGHT = 0.2
_evaluation = 0.0


def expected_evaluation() -> float:
    return _evaluation


def _record_evaluation(longest: float) -> None:
    global _evaluation
    _evaluation += EVALUATION_WEIGHT * (longest - _evaluation)
