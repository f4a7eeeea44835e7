"""Where a game's seed and rolls come from, and the seam tests use to fix them.

Production: each game draws `new_seed()` when it starts and roll n of the game
is `SeededDice(seed).roll_at(n)`, so anyone can check every roll against the
published commitment once the seed is revealed. Tests (and the browser tests,
through `settings.MESA_DICE_SOURCE`, a dotted path to a class) swap the source
to play scripted dice.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.utils.module_loading import import_string

from games.engine import SeededDice, commitment, new_seed


class SeededSource:
    """The real dice: a secret seed per game, rolls derived from it."""

    def new_seed(self) -> bytes:
        return new_seed()

    def roll(self, seed: bytes, n: int) -> tuple[int, int]:
        return SeededDice(bytes(seed)).roll_at(n)


_override = None


def current():
    if _override is not None:
        return _override
    path = getattr(settings, "MESA_DICE_SOURCE", "")
    return import_string(path)() if path else SeededSource()


@contextmanager
def use(source) -> Iterator[None]:
    global _override
    previous, _override = _override, source
    try:
        yield
    finally:
        _override = previous


class GameDice:
    """A DiceSource for one Game row: draws roll number `rolls_drawn` and counts it.

    The caller saves the game afterwards; the Match row lock keeps the count exact.
    """

    def __init__(self, game, source=None):
        self.game = game
        self.source = source or current()

    def roll(self) -> tuple[int, int]:
        pair = self.source.roll(self.game.seed, self.game.rolls_drawn)
        self.game.rolls_drawn += 1
        return tuple(pair)


def seed_commitment(seed: bytes) -> str:
    return commitment(bytes(seed))
