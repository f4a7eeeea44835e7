"""The dice of a match or of a player's career beside what fair dice give. Pure: no Django.

Counted for each roll: doubles (1 in 6 with fair dice), the total of the
two dice (2 to 12: 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1 ways in 36) and the pips
it moves (a double four times: 8 1/6 on average); and, for a roll made with
checkers on the bar, whether at least one could enter, which fair dice allow
with chance 1 − (k/6)² against k closed points of the opponent's home.

>>> stats = dice_stats([seen((6, 6)), seen((3, 1)), seen((4, 2))])
>>> stats.rolls, stats.doubles, stats.totals[4], stats.pips
(3, 1, 1, 34)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from games.engine import BAR, Position

TOTALS = tuple(range(2, 13))
DOUBLE_CHANCE = Fraction(1, 6)
MEAN_PIPS = Fraction(49, 6)  # 8 1/6: the mean pips of a roll, doubles counted four times


def total_chance(total: int) -> Fraction:
    """The chance of a total of ``total`` with two fair dice.

    >>> total_chance(7), total_chance(2), sum(total_chance(t) for t in TOTALS)
    (Fraction(1, 6), Fraction(1, 36), Fraction(1, 1))
    """
    return Fraction(6 - abs(total - 7), 36) if 2 <= total <= 12 else Fraction(0)


@dataclass(frozen=True, slots=True)
class RollSeen:
    """One roll, and what it met: ``closed`` opponent home points if the roller was on the bar."""

    dice: tuple[int, int]
    closed: int | None = None
    entered: bool = False


def seen(dice: tuple[int, int], position: Position | None = None) -> RollSeen:
    """A roll made in ``position`` (the roller's view; None: the opening roll)."""
    if position is None or not position.me[BAR]:
        return RollSeen(dice)
    # Die d enters on the opponent's d-point, blocked when they hold it with two or more.
    blocked = {d for d in range(1, 7) if position.them[d] >= 2}
    entered = any(d not in blocked for d in dice)
    return RollSeen(dice, len(blocked), entered)


@dataclass(slots=True)
class DiceStats:
    rolls: int = 0
    doubles: int = 0
    totals: dict[int, int] = field(default_factory=lambda: dict.fromkeys(TOTALS, 0))
    pips: int = 0
    bar_rolls: int = 0  # rolls made with a checker on the bar
    entered: int = 0  # of those, rolls that let one enter at least
    entered_expected: float = 0.0  # what fair dice give against the same boards

    def add(self, roll: RollSeen) -> None:
        high, low = roll.dice
        self.rolls += 1
        self.doubles += high == low
        self.totals[high + low] += 1
        self.pips += 4 * high if high == low else high + low
        if roll.closed is not None:
            self.bar_rolls += 1
            self.entered += roll.entered
            self.entered_expected += 1 - (roll.closed / 6) ** 2

    @property
    def doubles_expected(self) -> float:
        return float(self.rolls * DOUBLE_CHANCE)

    @property
    def pips_expected(self) -> float:
        return float(self.rolls * MEAN_PIPS)

    def totals_expected(self) -> dict[int, float]:
        return {total: float(self.rolls * total_chance(total)) for total in TOTALS}


def dice_stats(rolls: Iterable[RollSeen]) -> DiceStats:
    stats = DiceStats()
    for roll in rolls:
        stats.add(roll)
    return stats
