# bgsage's C++ extension, the one function Mesa calls directly (its pybind11
# signature). Checked against the installed module by stubtest (make typecheck).

from typing import SupportsIndex, SupportsInt

# Despite its name, is_crawford=True reads the post-Crawford table:
# get_met(1, 2, True) is 0.512, the leader's chance after the Crawford game.
def get_met(
    away1: SupportsInt | SupportsIndex,
    away2: SupportsInt | SupportsIndex,
    is_crawford: bool = False,
) -> float: ...
