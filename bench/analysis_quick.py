"""The analysis's quick first pass against its full pass: CPU seconds per game.

When analyses queue up, games.services.analysis rates a game at
games.analysis.QUICK_SETTINGS first and at DEFAULT_SETTINGS when the queue is
idle. This rates the same seeded bot games (bench/analysis.py's players, luck
included as the task measures it) at both depths, each depth in a fresh
process pinned to one core with one search thread, and prints the median and
the longest CPU seconds, and how far the quick pass's PR is from the full one's.
The quick pass measures no luck (the full one does).

    python -m bench.analysis_quick [games per kind, default 10]
"""

from __future__ import annotations

import os
import sys
import time

from bench.analysis import on_one_core
from games.analysis import (
    DEFAULT_SETTINGS,
    NO_LUCK,
    QUICK_SETTINGS,
    Settings,
    analyse,
    game_luck,
    match_decisions,
    summarise,
)
from games.analysis.ladder import bot_game
from games.bots import sage

from .analysis import GAMES, PLAYERS, percentile

DEPTHS = {"full": DEFAULT_SETTINGS, "quick": QUICK_SETTINGS}


def measure(label: str, depth: str, games: int) -> list[tuple[float, float, float, list[float]]]:
    """In this process: (CPU s rating the decisions, CPU s measuring the luck, wall s,
    PRs) for each of ``games`` seeded games of ``label``."""
    rules, _ = GAMES[label]
    settings: Settings = DEPTHS[depth]
    analyse(match_decisions(rules, bot_game(rules, PLAYERS, 999))[:2], settings)  # load the nets
    found = []
    for seed in range(1000, 1000 + games):
        actions = bot_game(rules, PLAYERS, seed)
        decisions = match_decisions(rules, actions)
        # The bots' own cube verdicts (bgsage 3-ply) are remembered by the process:
        # forget them, or the full pass's cube decisions would cost nothing here.
        sage._cube_decision.cache_clear()
        cpu, wall = time.process_time(), time.perf_counter()
        ratings = analyse(decisions, settings)
        rated = time.process_time()
        if settings.luck_level != NO_LUCK:
            game_luck(rules, actions, range(len(actions)), settings.luck_level)
        luck, wall = time.process_time() - rated, time.perf_counter() - wall
        found.append((rated - cpu, luck, wall, [round(side.pr, 1) for side in summarise(ratings)]))
    return found


def _child(label: str, depth: str, games: int) -> list[tuple[float, float, float, list[float]]]:
    found: list[tuple[float, float, float, list[float]]] = on_one_core(
        "import json, bench.analysis_quick as b; "
        f"print(json.dumps(b.measure({label!r}, {depth!r}, {games})))"
    )
    return found


def run(games: int = 10) -> None:
    print(f"full:  {DEFAULT_SETTINGS.version}\nquick: {QUICK_SETTINGS.version}")
    print(f"{games} seeded bot games per kind, one core, one thread; load {os.getloadavg()}")
    for label in GAMES:
        results = {depth: _child(label, depth, games) for depth in DEPTHS}
        for depth, rows in results.items():
            whole = sorted(row[0] + row[1] for row in rows)
            rating = sorted(row[0] for row in rows)
            wall = sorted(row[2] for row in rows)
            print(
                f"  {label:<26} {depth:<5}: CPU median {percentile(whole, 0.5):.2f} s, "
                f"longest {whole[-1]:.2f} s, luck included (without: median "
                f"{percentile(rating, 0.5):.2f} s); wall median {percentile(wall, 0.5):.2f} s"
            )
        gaps = sorted(
            abs(q - f)
            for quick, full in zip(results["quick"], results["full"], strict=True)
            for q, f in zip(quick[3], full[3], strict=True)
        )
        print(
            f"  {'':<26} PR, quick against full: median gap {percentile(gaps, 0.5):.1f}, "
            f"largest {gaps[-1]:.1f}"
        )
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
