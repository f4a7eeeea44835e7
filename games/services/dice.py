"""Where a game's seed and rolls come from, and the seam tests use to fix them.

Production: each game draws `new_seed()` when it starts and roll n of the game
is `SeededDice(seed).roll_at(n)`, so anyone can check every roll against the
published commitment once the seed is revealed. Tests (and the browser tests,
through `settings.MESA_DICE_SOURCE`, a dotted path to a class) swap the source
to play scripted dice.
"""

import functools
import hashlib
import secrets
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from games.engine import SeededDice, commitment

if TYPE_CHECKING:
    from games.models import Game


class SeedSource(Protocol):
    """Where games' seeds and rolls come from: SeededSource, or a test's source."""

    def new_seed(self) -> bytes: ...

    def roll(self, seed: bytes, n: int) -> tuple[int, int]: ...


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's secure random source."""
    return secrets.token_bytes(32)


class SecretsDice:
    """Dice from the operating system's secure random source (a DiceSource)."""

    def roll(self) -> tuple[int, int]:
        return secrets.randbelow(6) + 1, secrets.randbelow(6) + 1

    def __repr__(self) -> str:
        return "SecretsDice()"


class SeededSource:
    """The real dice: a secret seed per game, rolls derived from it."""

    def new_seed(self) -> bytes:
        return new_seed()

    def roll(self, seed: bytes, n: int) -> tuple[int, int]:
        return SeededDice(bytes(seed)).roll_at(n)


class FixedSeedSource(SeededSource):
    """Test dice: seeds from a counter, so every run rolls the same numbers.

    Still verifiable (rolls come from the seed). For test settings only, e.g.
    MESA_DICE_SOURCE = "games.services.dice.FixedSeedSource".
    """

    def __init__(self, prefix: bytes = b"mesa-fixed-seed") -> None:
        self.prefix = prefix
        self.seeds_drawn = 0

    def new_seed(self) -> bytes:
        self.seeds_drawn += 1
        return hashlib.sha256(b"%s:%d" % (self.prefix, self.seeds_drawn)).digest()


class ScriptedSource(FixedSeedSource):
    """Test dice: the pairs pushed with `push()` come first, in order, then fixed seeds."""

    def __init__(self, *pairs: tuple[int, int]) -> None:
        super().__init__()
        self.script = deque(pairs)

    def push(self, *pairs: tuple[int, int]) -> None:
        self.script.extend(pairs)

    def roll(self, seed: bytes, n: int) -> tuple[int, int]:
        if self.script:
            return self.script.popleft()
        return super().roll(seed, n)


_override: SeedSource | None = None


def current() -> SeedSource:
    if _override is not None:
        return _override
    path = getattr(settings, "MESA_DICE_SOURCE", "")
    return _configured(path) if path else SeededSource()


@functools.cache
def _configured(path: str) -> SeedSource:
    # One instance per process, so a fixed-seed counter keeps counting.
    source: SeedSource = import_string(path)()
    return source


@contextmanager
def use(source: SeedSource) -> Iterator[None]:
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

    def __init__(self, game: "Game", source: SeedSource | None = None) -> None:
        self.game = game
        self.source = source or current()

    def roll(self) -> tuple[int, int]:
        # bytes(): a BinaryField reads back as a memoryview on PostgreSQL.
        first, second = self.source.roll(bytes(self.game.seed), self.game.rolls_drawn)
        self.game.rolls_drawn += 1
        return first, second


def seed_commitment(seed: bytes) -> str:
    return commitment(bytes(seed))
