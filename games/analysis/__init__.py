"""Analysis after the game: every decision rated by bgsage, and each player's PR. Pure: no Django.

    from games.analysis import match_decisions, analyse, summarise
    ratings = analyse(match_decisions(rules, actions, wanted=indices_of_one_game))
    side0, side1 = summarise(ratings)   # side0.pr, side0.error_rate, side0.blunders...

See docs/ANALYSIS.md for the thresholds, the PR and the depth.
"""

from .decisions import CUBE_KINDS, Decision, match_decisions
from .evaluate import (
    BLUNDER,
    DEFAULT_SETTINGS,
    DOUBTFUL,
    ERROR,
    Alternative,
    Rating,
    Settings,
    analyse,
    mark_of,
)
from .summary import PlayerSummary, summarise

__all__ = [
    "BLUNDER",
    "CUBE_KINDS",
    "DEFAULT_SETTINGS",
    "DOUBTFUL",
    "ERROR",
    "Alternative",
    "Decision",
    "PlayerSummary",
    "Rating",
    "Settings",
    "analyse",
    "mark_of",
    "match_decisions",
    "summarise",
]
