"""Analysis after the game: seconds to rate a typical 60-decision game, and peak memory.

Each measurement runs in a fresh Python process pinned to one CPU core (as an
analysis worker with --concurrency=1 would be): it loads the networks, rates
every decision of one bot-vs-bot game at the site's depth
(games.analysis.DEFAULT_SETTINGS) and reports the seconds and its peak
resident memory (resource.getrusage ru_maxrss). Target: under 10 s a game.
The CPU seconds are the figure to read on a busy machine: the wall clock
also counts the time other processes held the core.
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
from typing import TypedDict

from games.analysis import DEFAULT_SETTINGS, analyse, match_decisions, summarise
from games.analysis.ladder import bot_game, bot_prs
from games.engine import Action, Format, MatchRules

GAMES = {
    "partida simple": (MatchRules(), "3-ply"),
    "match to 5, cube in play": (MatchRules(format=Format.MATCH, length=5), "2-ply cubeful"),
}
PLAYERS = ("carcelero", "chofer")
TYPICAL = range(55, 66)  # decisions in a "typical 60-decision game"


class Measurement(TypedDict):
    """What ``measure`` reports, as JSON from the child process."""

    seed: int
    decisions: int
    cube: int
    seconds: float
    cpu_seconds: float
    maxrss_mb: float
    pr: list[float]


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
    }


def _child(label: str) -> Measurement:
    code = f"import json, bench.analysis as b; print(json.dumps(b.measure({label!r})))"
    env = {**os.environ, "BGBOT_MULTIPLY_THREADS": "1"}
    cpu = min(os.sched_getaffinity(0))
    output = subprocess.run(
        ["taskset", "-c", str(cpu), sys.executable, "-c", code],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    found: Measurement = json.loads(output.stdout.strip().splitlines()[-1])
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
            f"checker play at bgsage {depth}: {found['cpu_seconds']:.2f} s of CPU "
            f"({found['seconds']:.2f} s wall, load {os.getloadavg()[0]:.1f}), "
            f"peak memory {found['maxrss_mb']:.0f} MB (seed {found['seed']}, PR {found['pr']})"
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
