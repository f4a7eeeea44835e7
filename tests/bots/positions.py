"""Positions the bot tests share: seeded random self-play and a few named spots."""

from __future__ import annotations

from bench import bots as bench_bots
from games.engine import Position


def self_play_sample(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``count`` (position, dice) pairs with at least one legal play, from random self-play."""
    return bench_bots.self_play_sample(count, seed, lambda _rng, plays: bool(plays))


# The player on roll leads a 91-98 race by 7 pips: a double and a take for money.
RACE_DOUBLE_TAKE = Position.from_points(
    {6: 5, 5: 3, 4: 3, 8: 2, 9: 2}, {6: 4, 5: 3, 4: 3, 9: 3, 10: 2}
)
# The player on roll has six checkers left on the 1-3 points and the opponent
# has not borne off one: the opponent must pass a double.
HOPELESS_FOR_TAKER = Position.from_points({1: 2, 2: 2, 3: 2}, {6: 5, 5: 5, 4: 5})
# The player on roll has all 15 far back against an opponent bearing off: a sure gammon loss.
GAMMONED = Position.from_points({23: 3, 18: 5, 15: 7}, {1: 3, 3: 3, 4: 3})
