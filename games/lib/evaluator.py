"""The evaluator settings this process analyses with, and so which analyses are current.

Read by both sides of the analysis after the game: its writes
(games.services.analysis) store rows under SETTINGS.version, its read side
(games.selectors.review) shows only rows of that version. Tests swap in a
faster SETTINGS here.
"""

from games import analysis

SETTINGS = analysis.DEFAULT_SETTINGS


def current_version() -> str:
    return SETTINGS.version
