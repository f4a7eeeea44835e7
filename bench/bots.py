"""Bot speed: network loading once per process, and time per move in each kind of game.

Targets: median time per move under 2 s and p99 under 10 s for Empresario
(it searches the close plays deeper), under 0.1 s for the others,
on the same fixed positions every run. Run it with BGBOT_MULTIPLY_THREADS=1
for the one-core figure. Strength is
measured by ``python manage.py botmatch`` instead (see docs/BOTS.md).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from games.bots import BOT_NAMES, SINGLE_GAME, BotContext, deep, get_bot, sage
from games.bots.players import EMPRESARIO
from games.engine import Play, Position, legal_plays

Sample = list[tuple[Position, tuple[int, int]]]

SAMPLE_SIZE = 60
SAMPLE_SEED = 20261129
CONTEXTS = {
    "partida simple": SINGLE_GAME,
    "money, cubeless (botmatch)": BotContext(),
    "match to 5, cube in play": BotContext(cube_in_play=True, match_length=5, score=(2, 3)),
}


def self_play_sample(
    count: int, seed: int, keep: Callable[[random.Random, list[Play]], bool]
) -> Sample:
    """``count`` (position, dice) pairs that ``keep(rng, plays)`` accepts, from seeded
    random self-play (the bot tests draw theirs here too)."""
    rng = random.Random(seed)
    position = Position.initial()
    sample: Sample = []
    while len(sample) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(position, dice)
        if keep(rng, plays):
            sample.append((position, dice))
        if plays:
            position = position.apply(rng.choice(plays))
        position = Position.initial() if position.outcome() else position.flip()
    return sample


def decision_sample(count: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> Sample:
    """``count`` (position, dice) pairs with a real choice, from seeded random self-play."""
    return self_play_sample(count, seed, lambda rng, plays: len(plays) > 1 and rng.random() < 0.25)


def _seconds(run: Callable[[Position, tuple[int, int]], object], sample: Sample) -> list[float]:
    times = []
    for position, dice in sample:
        started = time.perf_counter()
        run(position, dice)
        times.append(time.perf_counter() - started)
    return times


def _line(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    return (
        f"  {label:<44} median {statistics.median(times) * 1000:7.1f} ms"
        f"   p90 {p90 * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms   max {ordered[-1] * 1000:7.1f} ms"
    )


def run() -> dict[str, float]:
    """Print load times and time per move; return the medians in seconds."""
    print("network loading (first use in this process):")
    for level in sage.LEVELS:
        for cubeful in (False, True):
            started = time.perf_counter()
            sage.analyzer(level, cubeful)
            kind = "cubeful " if cubeful else "cubeless"
            print(f"  {level} {kind}: {time.perf_counter() - started:.3f} s")
    started = time.perf_counter()
    empresario_stages = EMPRESARIO.search + EMPRESARIO.cubeful_search
    deep.warm_up(empresario_stages)
    elapsed = time.perf_counter() - started
    print(f"  Empresario's deeper search {empresario_stages}: {elapsed:.3f} s")
    before = sage.build_count, deep.build_count
    sample = decision_sample()
    medians: dict[str, float] = {}
    print(f"time per move on {len(sample)} positions with a choice:")
    for context_name, context in CONTEXTS.items():
        print(f" {context_name}")
        for name in BOT_NAMES:
            bot = get_bot(name, seed=1)
            times = _seconds(partial(bot.choose_play, context=context), sample)
            medians[f"{name} / {context_name}"] = statistics.median(times)
            print(_line(name, times))
    match = CONTEXTS["match to 5, cube in play"]
    empresario = get_bot("empresario")

    def whole_turn(position: Position, dice: tuple[int, int]) -> None:
        empresario.should_double(position, match)
        empresario.choose_play(position, dice, match)

    times = _seconds(whole_turn, sample)
    medians["empresario / cube decision and play"] = statistics.median(times)
    print(" match to 5, Empresario's whole turn")
    print(_line("cube (3-ply; close: 1T) + play (2-3 ply; close: 1T)", times))
    assert (sage.build_count, deep.build_count) == before, "an analyzer was built twice"
    print(f"analyzers built in this process: {sage.build_count} (each once)")
    return medians


if __name__ == "__main__":
    run()
