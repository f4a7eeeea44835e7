# The part of bgsage 2.0 that Mesa calls, typed from its sources (it ships no
# py.typed). mypy reads this instead of the package, so a call with a wrong
# argument name or type, or a misread result field, is an error;
# `make typecheck` runs stubtest to check this file against the installed
# bgsage. A name missing here is an error where it is used: add it here.

from dataclasses import dataclass
from typing import Any

@dataclass
class Probabilities:
    win: float
    gammon_win: float
    backgammon_win: float
    gammon_loss: float
    backgammon_loss: float

@dataclass
class MoveAnalysis:
    board: list[int]
    equity: float
    cubeless_equity: float
    probs: Probabilities
    equity_diff: float
    eval_level: str
    player_game_plan: str | None = None
    opponent_game_plan: str | None = None
    std_error: float | None = None
    prob_std_errors: list[float] | None = None

@dataclass
class CheckerPlayResult:
    moves: list[MoveAnalysis]
    board: list[int]
    die1: int
    die2: int
    eval_level: str

@dataclass
class PostMoveAnalysis:
    probs: Probabilities
    cubeless_equity: float
    cubeful_equity: float
    eval_level: str
    cubeless_se: float | None = None
    cubeful_se: float | None = None

@dataclass
class CubeActionResult:
    probs: Probabilities
    cubeless_equity: float
    equity_nd: float
    equity_dt: float
    equity_dp: float
    should_double: bool
    should_take: bool
    optimal_equity: float
    optimal_action: str
    eval_level: str
    is_beaver: bool = False
    cubeless_se: float | None = None
    equity_nd_se: float | None = None
    equity_dt_se: float | None = None
    details: dict[str, Any] | None = None

class BgBotAnalyzer:
    def __init__(
        self,
        weights: Any | None = None,
        eval_level: str = "1ply",
        cubeful: bool = True,
        *,
        filter_max_moves: int = 5,
        filter_threshold: float = 0.08,
        parallel_threads: int = 0,
        n_trials: int = 1296,
        truncation_depth: int = 0,
        decision_ply: int = 1,
        truncation_ply: int = -1,
        late_ply: int = -1,
        late_threshold: int = 20,
        seed: int = 42,
        bearoff_db: bool | str = True,
        checker: Any | None = None,
        checker_late: Any | None = None,
        cube: Any | None = None,
        cube_late: Any | None = None,
        ultra_late_threshold: int = 9999,
        cubeful_trial_moves: bool = True,
        cubeful_late_threshold: int = 0,
        prefilter_threshold: float | None = None,
        target_se: float = 0.0,
        max_batches: int = 50,
    ) -> None: ...
    def checker_play(
        self,
        board: list[int],
        die1: int,
        die2: int,
        cube_value: int = 1,
        cube_owner: str = "centered",
        include_game_plans: bool = False,
        progress_callback: Any | None = None,
        *,
        away1: int = 0,
        away2: int = 0,
        is_crawford: bool = False,
        jacoby: bool = True,
        beaver: bool = True,
        force_boards: list[list[int]] | None = None,
        finalize_progress: Any | None = None,
    ) -> CheckerPlayResult: ...
    def post_move_analytics(
        self,
        board: list[int],
        cube_owner: str = "centered",
        cube_value: int = 1,
        *,
        away1: int = 0,
        away2: int = 0,
        is_crawford: bool = False,
        jacoby: bool = True,
        progress_callback: Any | None = None,
    ) -> PostMoveAnalysis: ...
    def cube_action(
        self,
        board: list[int],
        cube_value: int = 1,
        cube_owner: str = "centered",
        *,
        away1: int = 0,
        away2: int = 0,
        is_crawford: bool = False,
        jacoby: bool = True,
        beaver: bool = True,
        incl_2ply_details: bool = False,
        progress_callback: Any | None = None,
    ) -> CubeActionResult: ...
    def cancel(self) -> None: ...
    def reset_cancel(self) -> None: ...

class RolloutCancelled(Exception): ...

def create_analyzer(
    level: str = "1ply",
    weights: Any | None = None,
    cubeful: bool = True,
    **kwargs: Any,
) -> BgBotAnalyzer: ...
def can_double_match(
    away1: int, away2: int, cube_value: int, owner: str, is_crawford: bool = False
) -> bool: ...
def possible_moves(board: list[int], die1: int, die2: int) -> list[list[int]]: ...
