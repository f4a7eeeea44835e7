"""Dice: an injectable source, and verifiable seeded dice.

No randomness here: the seeds (and the secure dice) come from
``games.services.dice``, outside the engine.

``SeededDice`` derives pair ``n`` from HMAC-SHA256(seed, b"mesa-dice:<n>"):
each byte below 252 gives a face (byte % 6 + 1), bytes 252..255 are
skipped so every face has probability exactly 1/6. In the rare case a
digest runs out, the stream continues with b"mesa-dice:<n>:<k>" for
k = 1, 2, ... Publishing ``commitment(seed)`` before play and the seed
afterwards lets anyone re-derive every roll:

    python -m games.engine.dice <seed-hex> [count]
"""

from __future__ import annotations

import hashlib
import hmac
import sys
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

__all__ = [
    "DiceSource",
    "SeededDice",
    "commitment",
    "opening_starter",
]

_ACCEPT_BELOW = 252  # the largest multiple of 6 that fits in a byte


@runtime_checkable
class DiceSource(Protocol):
    def roll(self) -> tuple[int, int]: ...


class SeededDice:
    """Reproducible dice: the same seed always gives the same sequence of pairs.

    The stream of a seed never changes, as a published seed must re-derive
    the rolls of games played long ago:

    >>> dice = SeededDice(b"mesa")
    >>> [dice.roll() for _ in range(3)]
    [(5, 4), (3, 3), (4, 1)]
    >>> dice.roll_at(1), dice.position
    ((3, 3), 3)
    >>> SeededDice(b"mesa", start=2).roll()
    (4, 1)
    """

    def __init__(self, seed: bytes, start: int = 0):
        if not isinstance(seed, bytes | bytearray) or not seed:
            raise ValueError("the seed must be non-empty bytes")
        if start < 0:
            raise ValueError("start must be 0 or more")
        self.seed = bytes(seed)
        self.position = start  # index of the next pair

    def roll(self) -> tuple[int, int]:
        pair = self.roll_at(self.position)
        self.position += 1
        return pair

    def roll_at(self, n: int) -> tuple[int, int]:
        """Pair number ``n`` of this seed's stream (0-based), without moving on."""
        if n < 0:
            raise ValueError("pair numbers start at 0")
        faces = _faces(self.seed, n)
        return next(faces), next(faces)

    def __repr__(self) -> str:
        return f"SeededDice(<seed committed as {commitment(self.seed)[:12]}...>, {self.position})"


def _faces(seed: bytes, n: int) -> Iterator[int]:
    message = b"mesa-dice:%d" % n
    extension = 0
    while True:
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < _ACCEPT_BELOW:
                yield byte % 6 + 1
        extension += 1
        message = b"mesa-dice:%d:%d" % (n, extension)


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed in hex: publish it before the first roll."""
    return hashlib.sha256(seed).hexdigest()


def opening_starter(pair: tuple[int, int]) -> int | None:
    """Which side starts after an opening roll (die of side 0, die of side 1); None on a tie.

    >>> opening_starter((5, 2)), opening_starter((1, 6)), opening_starter((4, 4))
    (0, 1, None)
    """
    first, second = pair
    if first == second:
        return None
    return 0 if first > second else 1


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: python -m games.engine.dice <seed-hex> [count]", file=sys.stderr)
        return 2
    try:
        seed = bytes.fromhex(argv[0])
        count = int(argv[1]) if len(argv) == 2 else 20
    except ValueError:
        print("the seed is hexadecimal and the count a whole number", file=sys.stderr)
        return 2
    if not seed or count < 0:
        print("the seed must not be empty and the count not negative", file=sys.stderr)
        return 2
    print(f"commitment {commitment(seed)}")
    dice = SeededDice(seed)
    for n in range(count):
        first, second = dice.roll()
        print(f"{n} {first}-{second}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
