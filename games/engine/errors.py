"""What the engine raises when it says no, split as python-chess splits its move errors.

Every refusal is an ``EngineError`` (a ``ValueError``) with a short machine
``code`` the site translates and a plain English ``reason``. Its class says
which of two kinds it is:

- ``InvalidInput``: the engine cannot read the input at all (notation that
  does not parse, a step that is not a [from, to] pair of points, dice that
  are not two faces, an action with a field missing or one too many).
- ``IllegalMove``: the input reads fine but the rules refuse it here (a
  closed point, the wrong phase, not this side's turn...). ``IllegalAction``
  is the match's own kind of it; when it refuses a play its ``move_code``
  holds the move rules' finer code (``bar_first``, ``point_closed``...).

The site answers the first with 400 and the second with 422, deciding by
class; only the "not now" codes of an illegal action (not your turn, the game
is over) answer 409 instead (games.lib.errors.from_engine).
"""

from __future__ import annotations

__all__ = ["EngineError", "IllegalAction", "IllegalMove", "InvalidInput"]


class EngineError(ValueError):
    """Any input the engine refuses; ``code`` for machines, ``reason`` for people reading logs."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


class InvalidInput(EngineError):
    """Input the engine cannot read at all, whatever the position."""


class IllegalMove(EngineError):
    """Input that reads fine but the rules do not allow here."""


class IllegalAction(IllegalMove):
    """A match action the rules refuse now (``move_code``: the play's own refusal)."""

    def __init__(self, code: str, reason: str, move_code: str | None = None):
        super().__init__(code, reason)
        self.move_code = move_code
        # As before: str(error) names the code, the match's refusals are read in logs.
        self.args = (f"{code}: {reason}",)
