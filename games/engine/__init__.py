"""Mesa's backgammon rules engine: pure Python, no Django, no I/O, no randomness inside.

Dice are an input: ``legal_plays(position, dice)``. The dice sources in
``dice`` are what the service layer rolls with.
"""

from .dice import (
    DiceSource,
    SecretsDice,
    SeededDice,
    commitment,
    new_seed,
    opening_starter,
)
from .match import (
    Action,
    Format,
    GameResult,
    IllegalAction,
    MatchRules,
    MatchState,
    Phase,
    advance,
)
from .matchid import gnubg_id, match_id
from .matfile import export_mat, parse_mat
from .moves import StepOption, check_play, legal_plays, legal_steps
from .notation import format_play, parse_play
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
    "Action",
    "Format",
    "GameResult",
    "IllegalAction",
    "MatchRules",
    "MatchState",
    "Phase",
    "advance",
    "export_mat",
    "gnubg_id",
    "match_id",
    "parse_mat",
    "BAR",
    "CHECKERS_PER_SIDE",
    "OFF",
    "DiceSource",
    "IllegalMove",
    "Outcome",
    "Play",
    "Position",
    "SecretsDice",
    "SeededDice",
    "Step",
    "StepOption",
    "WinKind",
    "check_play",
    "commitment",
    "format_play",
    "legal_plays",
    "legal_steps",
    "new_seed",
    "opening_starter",
    "parse_play",
]

# The match state machine lives in games.engine.match (its own owner); its
# public names are also reachable from here, loaded on first use so that
# importing the rules alone stays light.
_MATCH_NAMES = frozenset(
    {"Action", "Format", "GameResult", "IllegalAction", "MatchRules", "MatchState", "Phase",
     "advance"}
)  # fmt: skip


def __getattr__(name: str):
    if name in _MATCH_NAMES:
        from . import match

        return getattr(match, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
