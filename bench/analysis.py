"""Analysis after the game: CPU seconds to rate a whole game (median, p95), and peak memory.

Each measurement runs in a fresh Python process pinned to one CPU core (as an
analysis worker with --concurrency=1 would be): it loads the networks, rates
every decision of one bot-vs-bot game at the site's depth
(games.analysis.DEFAULT_SETTINGS), measures the luck of every roll as the
analysis task does (games.analysis.game_luck), and reports the seconds and its peak
resident memory (resource.getrusage ru_maxrss); then it rates the first game
of ``SPREAD`` more seeded bot matches, for the median, the p95 and the
longest game. Target: under 10 s of CPU a game at p95. The CPU seconds are
the figure to read on a busy machine: the wall clock also counts the time
other processes held the core.
Then the PR of each bot on 200 of its decisions (docs/ANALYSIS.md).

    python -m bench.analysis
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from typing import Any, TypedDict

from games.analysis import DEFAULT_SETTINGS, analyse, game_luck, match_decisions, summarise
from games.analysis.ladder import bot_game, bot_prs
from games.engine import Action, Format, MatchRules

GAMES = {
    "partida simple": (MatchRules(), "3-ply"),
    "match to 5, cube in play": (MatchRules(format=Format.MATCH, length=5), "2-ply cubeful"),
}
PLAYERS = ("carcelero", "chofer")
TYPICAL = range(55, 66)  # decisions in a "typical 60-decision game"
SPREAD = 20  # games per kind for the median and p95


class Measurement(TypedDict):
    """What ``measure`` reports, as JSON from the child process."""

    seed: int
    decisions: int
    cube: int
    seconds: float
    cpu_seconds: float
    maxrss_mb: float
    pr: list[float]
    spread: list[float]


def typical_game(rules: MatchRules) -> tuple[int, list[Action]]:
    """The first seeded bot game with 55 to 65 decisions, and its seed."""
    for seed in range(1, 200):
        actions = bot_game(rules, PLAYERS, seed)
        if len(match_decisions(rules, actions)) in TYPICAL:
            return seed, actions
    raise RuntimeError("no typical game in 200 seeds")


def measure(label: str) -> Measurement:
    """In this process: rate the typical game of ``label`` (run pinned, in a child)."""
    rules, _ = GAMES[label]
    seed, actions = typical_game(rules)
    decisions = match_decisions(rules, actions)
    started, cpu = time.perf_counter(), time.process_time()
    ratings = analyse(decisions)
    game_luck(rules, actions, range(len(actions)), DEFAULT_SETTINGS.luck_level)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    sides = summarise(ratings)
    return {
        "seed": seed,
        "decisions": len(decisions),
        "cube": sum(d.is_cube for d in decisions),
        "seconds": seconds,
        "cpu_seconds": cpu,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "pr": [round(side.pr, 1) for side in sides],
        "spread": spread(rules),
    }


def spread(rules: MatchRules, games: int = SPREAD) -> list[float]:
    """CPU seconds to rate each of ``games`` seeded bot games (seeds 1000 on), luck included."""
    seconds: list[float] = []
    for seed in range(1000, 1000 + games):
        actions = bot_game(rules, PLAYERS, seed)
        decisions = match_decisions(rules, actions)
        cpu = time.process_time()
        analyse(decisions)
        game_luck(rules, actions, range(len(actions)), DEFAULT_SETTINGS.luck_level)
        seconds.append(time.process_time() - cpu)
    return sorted(seconds)


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def on_one_core(code: str) -> Any:
    """Run `code` (which prints its result as JSON last) in a fresh Python on one
    core with one bgsage thread, and return what it printed: each measurement
    starts with cold caches and no other search beside it."""
    env = {**os.environ, "BGBOT_MULTIPLY_THREADS": "1"}
    cpu = min(os.sched_getaffinity(0))
    output = subprocess.run(
        ["taskset", "-c", str(cpu), sys.executable, "-c", code],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    return json.loads(output.stdout.strip().splitlines()[-1])


def _child(label: str) -> Measurement:
    found: Measurement = on_one_core(
        f"import json, bench.analysis as b; print(json.dumps(b.measure({label!r})))"
    )
    return found


def run() -> dict[str, float]:
    print(f"evaluator: {DEFAULT_SETTINGS.version}")
    print(f"one typical game ({PLAYERS[0]} vs {PLAYERS[1]}), one core, fresh process:")
    results = {}
    for label, (_, depth) in GAMES.items():
        found = _child(label)
        results[label] = found["cpu_seconds"]
        print(
            f"  {label:<26} {found['decisions']} decisions ({found['cube']} cube), "
            f"checker play at bgsage {depth}, luck included: {found['cpu_seconds']:.2f} s of CPU "
            f"({found['seconds']:.2f} s wall, load {os.getloadavg()[0]:.1f}), "
            f"peak memory {found['maxrss_mb']:.0f} MB (seed {found['seed']}, PR {found['pr']})"
        )
        ordered = found["spread"]
        results[f"{label} p95"] = percentile(ordered, 0.95)
        print(
            f"  {'':<26} {len(ordered)} more games: median {percentile(ordered, 0.5):.2f} s, "
            f"p95 {percentile(ordered, 0.95):.2f} s, longest {ordered[-1]:.2f} s of CPU"
        )
    started = time.perf_counter()
    ladder = bot_prs(200)
    print(
        f"PR of each bot on 200 decisions (cubeless money, {time.perf_counter() - started:.0f} s):"
    )
    for rating in ladder:
        print(f"  {rating.name:<11} {rating.pr:6.2f}")
    return results


if __name__ == "__main__":
    run()
