"""Legal-play generation speed: this engine against bgsage's C++ generator.

Both run on the same fixed 10,000 positions reached by seeded self-play,
each with the roll that was played there. The tests reuse the self-play
sample and the bgsage board conversion from here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from functools import lru_cache

from games.engine import BAR, OFF, Play, Position, legal_plays

SAMPLE_SIZE = 10_000
SAMPLE_SEED = 20260907

Sample = tuple[tuple[Position, tuple[int, int]], ...]


@lru_cache(maxsize=4)
def self_play(count: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> Sample:
    """``count`` (position, dice) pairs from seeded self-play, deterministic for a seed.

    Computed once per process (the tests and the benchmark share it).

    The players mostly prefer the play that hits most or closes most home
    points (one turn in ten is a random legal play), so the sample sees
    closed boards, checkers on the bar and bear-offs against contact, not
    only the loose positions of purely random play.
    """
    rng = random.Random(seed)
    position = Position.initial()
    sample: list[tuple[Position, tuple[int, int]]] = []
    while len(sample) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        sample.append((position, dice))
        plays = legal_plays(position, dice)
        if plays:
            position = position.apply(_choose(rng, position, plays))
        if position.outcome() is not None:
            position = Position.initial()
        else:
            position = position.flip()
    return tuple(sample)


def _choose(rng: random.Random, position: Position, plays: list[Play]) -> Play:
    style = rng.random()
    if style < 0.1:
        return rng.choice(plays)
    results = [(position.apply(play), play) for play in plays]
    aggressive = style < 0.4

    def score(after: Position) -> tuple[int, int, int]:
        if aggressive:
            # Aggressive: send checkers to the bar, then keep points closed.
            return (after.them[BAR], _home_points(after), _closed_points(after))
        # Solid: close points, especially in the home board, and leave few blots.
        return (_home_points(after), _closed_points(after), -_blots(after))

    best = max(score(after) for after, _ in results)
    return rng.choice([play for after, play in results if score(after) == best])


def _closed_points(position: Position) -> int:
    return sum(1 for point in range(1, 25) if position.me[point] >= 2)


def _home_points(position: Position) -> int:
    return sum(1 for point in range(1, 7) if position.me[point] >= 2)


def _blots(position: Position) -> int:
    return sum(1 for point in range(1, 25) if position.me[point] == 1)


# --- bgsage ---------------------------------------------------------------
#
# bgsage boards are 26 ints from the side of the player on roll, found by
# experiment with bgsage 2.0.20260907 (tests/engine/test_bgsage_crosscheck.py
# pins it):
#   [1..24]  my point p: positive = my checkers, negative = the opponent's;
#   [25]     my checkers on the bar (positive);
#   [0]      the opponent's checkers on the bar, as a POSITIVE count;
#   borne off is implied: 15 minus the checkers on the board.
# possible_moves(board, d1, d2) returns the resulting boards, not flipped; when
# nothing can move it returns the unchanged board (not an empty list).


def to_bgsage(position: Position) -> list[int]:
    board = [0] * 26
    for point in range(1, 25):
        board[point] = position.me[point] - position.them[25 - point]
    board[BAR] = position.me[BAR]
    board[OFF] = position.them[BAR]
    return board


def from_bgsage(board: Iterable[int]) -> Position:
    board = list(board)
    me = [0] * 26
    them = [0] * 26
    for point in range(1, 25):
        if board[point] > 0:
            me[point] = board[point]
        elif board[point] < 0:
            them[25 - point] = -board[point]
    me[BAR] = board[BAR]
    them[BAR] = board[OFF]
    me[OFF] = 15 - sum(me)
    them[OFF] = 15 - sum(them)
    return Position(tuple(me), tuple(them))


def bgsage_results(position: Position, dice: tuple[int, int]) -> set[Position]:
    """The distinct positions bgsage reaches; empty when nothing can move."""
    import bgsage

    board = to_bgsage(position)
    boards = bgsage.possible_moves(board, *dice)
    if boards == [board]:
        # bgsage answers "no move" with the unchanged board; a legal play
        # never leaves the board unchanged, so this is unambiguous.
        return set()
    return {from_bgsage(b) for b in boards}


# --- timing ---------------------------------------------------------------


def _rates(run: Callable[[], object], count: int, repeat: int) -> tuple[float, float]:
    """Positions per second by CPU time and by wall time, each the best of ``repeat``.

    CPU time (one core) is not inflated when other work shares the machine;
    wall time is what a caller waits.
    """
    cpu = wall = float("inf")
    for _ in range(repeat):
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        run()
        cpu = min(cpu, time.process_time() - cpu_start)
        wall = min(wall, time.perf_counter() - wall_start)
    return count / cpu, count / wall


def run(repeat: int = 5) -> dict[str, float]:
    """Time both generators on the sample; print and return positions per second."""
    import bgsage

    sample = self_play()
    boards = [(to_bgsage(position), dice) for position, dice in sample]
    possible_moves = bgsage.possible_moves

    def ours() -> None:
        for position, dice in sample:
            legal_plays(position, dice)

    def theirs() -> None:
        for board, (d1, d2) in boards:
            possible_moves(board, d1, d2)

    mesa_cpu, mesa_wall = _rates(ours, len(sample), repeat)
    cpp_cpu, cpp_wall = _rates(theirs, len(sample), repeat)
    print(
        f"legal-play generation on {len(sample):,} self-play positions, one core, best of {repeat}"
    )
    print("                              CPU time         wall time")
    print(f"  mesa engine (pure Python): {mesa_cpu:>9,.0f}/s    {mesa_wall:>9,.0f}/s")
    print(f"  bgsage (C++):              {cpp_cpu:>9,.0f}/s    {cpp_wall:>9,.0f}/s")
    print(
        f"  ratio bgsage / mesa:       {cpp_cpu / mesa_cpu:>9.1f}x    {cpp_wall / mesa_wall:>9.1f}x"
    )
    return {
        "mesa": mesa_cpu,
        "bgsage": cpp_cpu,
        "ratio": cpp_cpu / mesa_cpu,
        "mesa_wall": mesa_wall,
        "bgsage_wall": cpp_wall,
    }


if __name__ == "__main__":
    run()
