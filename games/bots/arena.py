"""Bot-against-bot cubeless money games with duplicate dice (used by botmatch, bench, tests).

Each dice sequence is played twice with the players' seats swapped, so both
players meet exactly the same luck; the pair's average is one sample of the
points per game. Pure: no Django, no I/O.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from games.engine import Position, legal_plays, opening_starter

from .players import BOT_NAMES, Bot, Character, Player, RandomPlayer, get_bot

# Noiseless bgsage at a fixed level, to measure the bots against.
REFERENCES = {
    f"sage{n}": Character(
        f"Sage {n}-ply", "referencia", "bgsage sin ruido", f"{n}ply", f"{n}ply", f"{n}ply"
    )
    for n in (1, 2, 3)
}
PLAYER_NAMES = (*BOT_NAMES, "random", *REFERENCES)
MAX_TURNS = 5000  # no real game comes near; stops a broken player from looping forever


def make_player(name: str, rng: random.Random) -> Player:
    """A bot, the random player or a bgsage reference, by name (any case)."""
    key = name.strip().lower()
    if key == "random":
        return RandomPlayer(rng)
    if key in REFERENCES:
        return Bot(REFERENCES[key], rng)
    return get_bot(key, rng)


def game_dice(seed: int, game: int) -> Iterator[tuple[int, int]]:
    """The endless dice of one game: the same for both seatings."""
    rng = random.Random(f"mesa-arena:{seed}:{game}")
    while True:
        yield rng.randint(1, 6), rng.randint(1, 6)


@dataclass
class Timings:
    """Seconds per checker-play decision (turns with a real choice only)."""

    seconds: list[float] = field(default_factory=list)

    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else 0.0


def play_game(
    players: Sequence[Player],
    dice: Iterator[tuple[int, int]],
    timings: Sequence[Timings] | None = None,
) -> int:
    """Play one cubeless money game; return the points won by seat 0 (negative: lost).

    The opening roll is one die each, rolled again on a tie; the higher die
    starts and plays both numbers.
    """
    turn = None
    for roll in dice:
        turn = opening_starter(roll)
        if turn is not None:
            break
    if turn is None:
        raise ValueError("the dice ran out before the opening roll decided who starts")
    position = Position.initial()  # from the side of the player on turn
    for _ in range(MAX_TURNS):
        plays = legal_plays(position, roll)
        if plays:
            started = time.perf_counter()
            play = players[turn].choose_play(position, roll)
            elapsed = time.perf_counter() - started
            if play not in plays:
                raise AssertionError(f"{players[turn]!r} chose an illegal play {play!r}")
            if timings is not None and len(plays) > 1:
                timings[turn].seconds.append(elapsed)
            position = position.apply(play)
            outcome = position.outcome()
            if outcome is not None:
                points = int(outcome.kind)
                return points if turn == 0 else -points
        position = position.flip()
        turn = 1 - turn
        roll = next(dice)
    raise RuntimeError(f"no result after {MAX_TURNS} turns")


@dataclass
class MatchResult:
    """Points per game for player ``a`` against ``b``, one sample per duplicate pair."""

    a: str
    b: str
    seed: int
    pair_points: list[float] = field(default_factory=list)
    timings: tuple[Timings, Timings] = field(default_factory=lambda: (Timings(), Timings()))

    @property
    def games(self) -> int:
        """Games played: two per dice sequence."""
        return 2 * len(self.pair_points)

    @property
    def points_per_game(self) -> float:
        return statistics.fmean(self.pair_points) if self.pair_points else 0.0

    @property
    def standard_error(self) -> float:
        n = len(self.pair_points)
        return statistics.stdev(self.pair_points) / n**0.5 if n > 1 else 0.0

    def summary(self) -> str:
        ta, tb = self.timings
        return (
            f"{self.a} vs {self.b}: {self.points_per_game:+.3f} ± {self.standard_error:.3f} "
            f"points/game for {self.a} over {self.games} games (seed {self.seed}); "
            f"median time per move {self.a} {ta.median() * 1000:.1f} ms, "
            f"{self.b} {tb.median() * 1000:.1f} ms"
        )


def duplicate_match(
    a: str,
    b: str,
    games: int,
    seed: int = 0,
    on_pair: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` games (rounded up to even) of ``a`` against ``b`` with duplicate dice.

    Every random choice is derived from ``seed``, so a run can be repeated.
    ``on_pair`` is called after each duplicate pair, for progress reports.
    """
    result = MatchResult(a, b, seed)
    for game in range(max(1, (games + 1) // 2)):
        total = 0
        for a_seat in (0, 1):
            rng_a = random.Random(f"mesa-arena:{seed}:{game}:{a_seat}:a")
            rng_b = random.Random(f"mesa-arena:{seed}:{game}:{a_seat}:b")
            player_a, player_b = make_player(a, rng_a), make_player(b, rng_b)
            if a_seat == 0:
                seats, clocks = (player_a, player_b), result.timings
            else:
                seats, clocks = (player_b, player_a), result.timings[::-1]
            points = play_game(seats, game_dice(seed, game), clocks)
            total += points if a_seat == 0 else -points
        result.pair_points.append(total / 2)
        if on_pair is not None:
            on_pair(result)
    return result
