"""What every layer of the site may use: no queries, no writes.

- clock: the injectable clock (all time goes through it)
- deadlines: the correspondence clock, every time limit of a game by mail
- errors: every error code with its sentence, and its HTTP status by class
- site_actions: SiteAction, the site's own action kinds beside the engine's ActionKind
- evaluator: the analysis settings in force, so which analyses are current
"""

from games.lib import clock, deadlines, errors, evaluator, site_actions

__all__ = ["clock", "deadlines", "errors", "evaluator", "site_actions"]
