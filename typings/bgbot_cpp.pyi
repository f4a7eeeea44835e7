# bgsage's C++ extension, the functions Mesa calls directly (their pybind11
# signatures). Checked against the installed module by stubtest (make typecheck).

from collections.abc import Sequence
from typing import Any, SupportsFloat, SupportsIndex, SupportsInt

from pybind11_builtins import pybind11_object

# Despite its name, is_crawford=True reads the post-Crawford table:
# get_met(1, 2, True) is 0.512, the leader's chance after the Crawford game.
def get_met(
    away1: SupportsInt | SupportsIndex,
    away2: SupportsInt | SupportsIndex,
    is_crawford: bool = False,
) -> float: ...

# The deeper search of games/bots/deep.py: bgsage's strategies and N-ply trees.

_Int = SupportsInt | SupportsIndex

class CubeOwner(pybind11_object):
    CENTERED: CubeOwner
    PLAYER: CubeOwner
    OPPONENT: CubeOwner

class Strategy(pybind11_object):
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def evaluate_board(
        self, board: Sequence[_Int], pre_move_board: Sequence[_Int]
    ) -> dict[str, Any]: ...

class BearoffDB(pybind11_object):
    def __init__(self) -> None: ...
    def load(self, path: str) -> bool: ...

class BearoffStrategy(Strategy):
    def __init__(self, base: Strategy, db: BearoffDB) -> None: ...

class MultiPlyStrategy(Strategy):
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def evaluate_board(
        self, board: Sequence[_Int], pre_move_board: Sequence[_Int]
    ) -> dict[str, Any]: ...
    def clear_cache(self) -> None: ...

def create_strategy(
    strategy_type: str, weight_paths: Sequence[str], hidden_sizes: Sequence[_Int]
) -> Strategy: ...
def create_multipy(
    strategy_type: str,
    weight_paths: Sequence[str],
    hidden_sizes: Sequence[_Int],
    n_plies: _Int = 2,
    filter_max_moves: _Int = 5,
    filter_threshold: SupportsFloat | SupportsIndex = 0.08,
    full_depth_opponent: bool = False,
    parallel_evaluate: bool = False,
    parallel_threads: _Int = 0,
) -> MultiPlyStrategy: ...
def multipy_set_bearoff_db(strategy: MultiPlyStrategy, db: BearoffDB) -> None: ...
def flip_board(arg0: Sequence[_Int]) -> list[int]: ...
def cubeful_probs_and_equity_nply(
    board: Sequence[_Int],
    owner: CubeOwner,
    strategy: Strategy,
    n_plies: _Int = 2,
    filter_max_moves: _Int = 5,
    filter_threshold: SupportsFloat | SupportsIndex = 0.08,
    n_threads: _Int = 1,
    cube_value: _Int = 1,
    away1: _Int = 0,
    away2: _Int = 0,
    is_crawford: bool = False,
    jacoby: bool = True,
    beaver: bool = True,
    bearoff_db: BearoffDB | None = None,
    root_board: Sequence[_Int] = [],
) -> dict[str, Any]: ...

# The truncated rollouts of games/bots/deep.py.

class TrialEvalConfig(pybind11_object):
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

class RolloutStrategy(Strategy):
    def evaluate_board(
        self, board: Sequence[_Int], pre_move_board: Sequence[_Int], progress: object = None
    ) -> dict[str, Any]: ...
    def cubeful_evaluate_board(
        self,
        board: Sequence[_Int],
        pre_move_board: Sequence[_Int],
        cube_value: _Int = 1,
        owner: CubeOwner = ...,
        away1: _Int = 0,
        away2: _Int = 0,
        is_crawford: bool = False,
        cube_x_override: SupportsFloat | SupportsIndex = -1.0,
        jacoby: bool = True,
        beaver: bool = True,
        max_cube_value: _Int = 0,
        progress: object = None,
    ) -> dict[str, Any]: ...

def create_rollout(
    strategy_type: str,
    weight_paths: Sequence[str],
    hidden_sizes: Sequence[_Int],
    n_trials: _Int = 1296,
    truncation_depth: _Int = 0,
    decision_ply: _Int = 1,
    filter_max_moves: _Int = 5,
    filter_threshold: SupportsFloat | SupportsIndex = 0.08,
    n_threads: _Int = 1,
    seed: _Int = 42,
    late_ply: _Int = -1,
    late_threshold: _Int = 20,
    enable_vr: bool = True,
    parallelize_trials: bool = True,
    checker: TrialEvalConfig = ...,
    checker_late: TrialEvalConfig = ...,
    cube: TrialEvalConfig = ...,
    cube_late: TrialEvalConfig = ...,
    ultra_late_threshold: _Int = 2,
    cubeful_trial_moves: bool = True,
    cubeful_late_threshold: _Int = 0,
    target_se: SupportsFloat | SupportsIndex = 0.0,
    max_batches: _Int = 50,
    truncation_ply: _Int = -1,
) -> RolloutStrategy: ...
def rollout_set_bearoff_db(strategy: RolloutStrategy, db: BearoffDB) -> None: ...
