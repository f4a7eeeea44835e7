# bgsage's C++ extension, the one function Mesa calls directly (its pybind11
# signature). Checked against the installed module by stubtest (make typecheck).

from typing import SupportsIndex, SupportsInt

def get_met(
    away1: SupportsInt | SupportsIndex, away2: SupportsInt | SupportsIndex, is_crawford: bool = False
) -> float: ...
