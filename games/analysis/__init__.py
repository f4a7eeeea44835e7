"""Analysis after the game: every decision rated by bgsage, each player's PR and luck. Pure.

    from games.analysis import match_decisions, analyse, summarise
    ratings = analyse(match_decisions(rules, actions, wanted=indices_of_one_game))
    side0, side1 = summarise(ratings)   # side0.pr, side0.error_rate, side0.blunders...
    luck = game_luck(rules, actions, indices_of_one_game)   # each roll's luck, luck.summaries()

See docs/ANALYSIS.md for the thresholds, the PR and the depth.
"""

from .decisions import CUBE_KINDS, Decision, match_decisions
from .evaluate import (
    BLUNDER,
    DEFAULT_SETTINGS,
    DOUBTFUL,
    ERROR,
    NO_LUCK,
    QUICK_SETTINGS,
    QUICK_SUFFIX,
    Alternative,
    Rating,
    Settings,
    analyse,
    mark_of,
)
from .luck import (
    LUCKY,
    VERY_LUCKY,
    GameLuck,
    LuckSummary,
    RollLuck,
    game_luck,
    luck_mark,
    roll_luck,
)
from .summary import PlayerSummary, summarise

__all__ = [
    "BLUNDER",
    "LUCKY",
    "VERY_LUCKY",
    "CUBE_KINDS",
    "DEFAULT_SETTINGS",
    "DOUBTFUL",
    "ERROR",
    "NO_LUCK",
    "QUICK_SETTINGS",
    "QUICK_SUFFIX",
    "Alternative",
    "Decision",
    "GameLuck",
    "LuckSummary",
    "PlayerSummary",
    "Rating",
    "RollLuck",
    "Settings",
    "analyse",
    "game_luck",
    "luck_mark",
    "roll_luck",
    "mark_of",
    "match_decisions",
    "summarise",
]
