"""Mesa's backgammon rules engine: pure Python, no Django, no I/O, no randomness inside."""

from .moves import StepOption, legal_plays
from .position import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    IllegalMove,
    Outcome,
    Play,
    Position,
    Step,
    WinKind,
)

__all__ = [
    "BAR",
    "CHECKERS_PER_SIDE",
    "OFF",
    "IllegalMove",
    "Outcome",
    "Play",
    "Position",
    "Step",
    "StepOption",
    "WinKind",
    "legal_plays",
]
