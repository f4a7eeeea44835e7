"""Mesa's backgammon rules engine: pure Python, no Django, no I/O, no randomness inside.

Dice are an input: ``legal_plays(position, dice)``. ``dice`` holds the
verifiable seeded dice; where the seeds come from (the operating system's
secure random source) is the site's business (``games.services.dice``).
Everything the engine refuses is an ``EngineError`` (see ``errors``).
"""

from .conditional import (
    ROLLS,
    PlayTable,
    forced_play,
    greedy_bearoff_play,
    greedy_bearoff_table,
    has_contact,
    is_closed_out,
    opponent_cannot_change,
    roll_key,
)
from .dice import DiceSource, SeededDice, commitment, opening_starter
from .enums import ActionKind, Ending, EndReason, Format, Phase
from .errors import EngineError, IllegalAction, IllegalMove, InvalidInput
from .match import CONDITIONAL, FORCED, MatchState, advance
from .matchid import gnubg_id, match_id
from .matfile import export_mat, parse_mat
from .moves import StepOption, check_play, legal_plays, legal_steps
from .notation import format_play, parse_play
from .position import BAR, CHECKERS_PER_SIDE, OFF, Outcome, Play, Position, Step, WinKind
from .record import Action, GameResult, table_from_json, table_to_json
from .rules import MatchRules

__all__ = [
    "BAR",
    "CHECKERS_PER_SIDE",
    "CONDITIONAL",
    "FORCED",
    "OFF",
    "ROLLS",
    "Action",
    "ActionKind",
    "DiceSource",
    "Ending",
    "EndReason",
    "EngineError",
    "Format",
    "GameResult",
    "IllegalAction",
    "IllegalMove",
    "InvalidInput",
    "MatchRules",
    "MatchState",
    "Outcome",
    "Phase",
    "Play",
    "PlayTable",
    "Position",
    "SeededDice",
    "Step",
    "StepOption",
    "WinKind",
    "advance",
    "check_play",
    "commitment",
    "export_mat",
    "forced_play",
    "format_play",
    "gnubg_id",
    "greedy_bearoff_play",
    "greedy_bearoff_table",
    "has_contact",
    "is_closed_out",
    "legal_plays",
    "legal_steps",
    "match_id",
    "opening_starter",
    "opponent_cannot_change",
    "parse_mat",
    "parse_play",
    "roll_key",
    "table_from_json",
    "table_to_json",
]
