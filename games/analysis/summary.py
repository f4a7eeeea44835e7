"""Per-player figures of a rated game: error rate, PR, counts. Pure.

PR (performance rating) is 500 × the mean equity lost per unforced decision,
the scale XG made common: 0 plays like the evaluator, around 5 is a strong
player, 15 and more a beginner. The error rate is the same mean in
millipoints (thousandths of a point), as GNU Backgammon shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from .evaluate import Rating


@dataclass(slots=True)
class PlayerSummary:
    decisions: int = 0  # unforced decisions counted, checker and cube
    total_loss: float = 0.0
    doubtful: int = 0  # checker plays by mark
    errors: int = 0
    blunders: int = 0
    cube_decisions: int = 0
    cube_loss: float = 0.0
    cube_errors: int = 0  # cube decisions that lost more than the error bound (blunders too)
    cube_blunders: int = 0

    @property
    def error_rate(self) -> float:
        """Mean loss per unforced decision, in millipoints."""
        return 1000 * self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def pr(self) -> float:
        return 500 * self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def cube_error_rate(self) -> float:
        return 1000 * self.cube_loss / self.cube_decisions if self.cube_decisions else 0.0

    def add(self, rating: Rating) -> None:
        if not rating.counted:
            return
        loss, mark = rating.loss, rating.mark
        self.decisions += 1
        self.total_loss += loss
        if rating.decision.is_cube:
            self.cube_decisions += 1
            self.cube_loss += loss
            self.cube_errors += mark in ("error", "blunder")
            self.cube_blunders += mark == "blunder"
        else:
            self.doubtful += mark == "doubtful"
            self.errors += mark == "error"
            self.blunders += mark == "blunder"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(
            error_rate=round(self.error_rate, 1),
            pr=round(self.pr, 2),
            cube_error_rate=round(self.cube_error_rate, 1),
        )
        return data


def summarise(ratings: Iterable[Rating]) -> tuple[PlayerSummary, PlayerSummary]:
    """The figures of side 0 and side 1."""
    sides = (PlayerSummary(), PlayerSummary())
    for rating in ratings:
        sides[rating.decision.side].add(rating)
    return sides
