"""The evaluator settings this process analyses with, and so which analyses are current.

Read by both sides of the analysis after the game: its writes
(games.services.analysis) store rows under SETTINGS.version, its read side
(games.selectors.review) shows only rows of that version, or of QUICK's (the
quick first pass when analyses queue up) until the full one is done. Tests
swap in faster SETTINGS and QUICK here.
"""

from games import analysis

SETTINGS = analysis.DEFAULT_SETTINGS
QUICK = analysis.QUICK_SETTINGS


def current_version() -> str:
    return SETTINGS.version


def quick_version() -> str:
    return QUICK.version
