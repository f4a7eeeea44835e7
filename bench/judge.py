"""Two checker-play searches compared where they disagree, with a long rollout as judge.

A duel of 200 matches against gnubg costs about four core-hours per bot
version; this is the cheap look before it. Positions come from seeded
Carcelero games, each at a random match length, score and cube; at every
turn with a choice, both searches (written as in ``games/bots/deep.py``:
``3:6:0.16`` is ``Stage(3, 6, 0.16)``, ``r:3:0.06`` is ``Rollout(3, 0.06)``)
pick a play after bgsage's cubeful 2-ply ranking, exactly as Empresario
does. Where they pick different plays, a cubeful truncated rollout longer
than any search (bgsage's 2T kind: 576 trials, 7 plies, 2-ply moves, its
own seed) values both, and the difference is the verdict.

    nice -n 19 .venv/bin/python -m bench.judge \
        --a 3:6:0.16,4:3:0.06 --b 3:6:0.16,r:3:0.06 --minutes 20

It prints how often they differ, the judge's equity of B's choice minus
A's (mean and standard error over the decisions where they differ, and
per decision), and each search's CPU time per decision (one thread). The
judge shares bgsage's network with both searches, so it measures which
search finds bgsage's best play, not which plays better against gnubg:
``bench/duel.py`` says that. ``--out`` appends one JSON line per decision.
Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")  # one core, before bgsage loads

from games.bots import BotContext, deep, get_bot, sage
from games.bots.deep import Rollout, Search, Stage
from games.engine import Position, legal_plays

JUDGE_TRIALS = 576
JUDGE_TRUNCATION = 7


def parse_search(text: str) -> tuple[Search, ...]:
    """``3:6:0.16,r:3:0.06`` as (Stage(3, 6, 0.16), Rollout(3, 0.06)); ValueError if malformed."""
    stages: list[Search] = []
    for part in text.split(","):
        fields = part.strip().split(":")
        if len(fields) != 3:
            raise ValueError(f"{part!r}: a stage is plies:top:window or r:top:window")
        kind, top, window = fields
        if kind == "r":
            stages.append(Rollout(int(top), float(window)))
        else:
            stages.append(Stage(int(kind), int(top), float(window)))
    return tuple(stages)


def _search_argument(text: str) -> tuple[Search, ...]:
    try:
        return parse_search(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


class Judge:
    """bgsage's cubeful truncated rollout at 2-ply moves, longer than the searches it judges."""

    def __init__(self, seed: int):
        import bgbot_cpp
        from bgsage.weights import default_weights

        weights = default_weights()
        two_ply = bgbot_cpp.TrialEvalConfig(ply=2)
        self._rollout = bgbot_cpp.create_rollout(
            weights.strategy_type,
            weights.weight_paths_list,
            weights.hidden_sizes_list,
            n_trials=JUDGE_TRIALS,
            truncation_depth=JUDGE_TRUNCATION,
            decision_ply=2,
            truncation_ply=2,
            n_threads=1,
            seed=seed,
            parallelize_trials=False,
            late_ply=1,
            late_threshold=1,
            cube=two_ply,
            cube_late=two_ply,
            ultra_late_threshold=9999,
        )
        _, db = deep._base_strategy()
        if db is not None:
            bgbot_cpp.rollout_set_bearoff_db(self._rollout, db)

    def value(self, position: Position, after: Position, context: BotContext) -> float:
        """The mover's cubeful equity after the play, by the judge."""
        away_me, away_them = context.away()
        found = self._rollout.cubeful_evaluate_board(
            sage.to_board(after),
            sage.to_board(position),
            cube_value=context.cube_value,
            owner=deep.movers_cube_owner(context),
            away1=away_me,
            away2=away_them,
            is_crawford=context.crawford,
            jacoby=False,
            beaver=False,
        )
        return float(found["cubeful_equity"])


def random_context(rng: random.Random) -> BotContext:
    length = rng.choice((5, 7, 9))
    score = (rng.randrange(length - 1), rng.randrange(length - 1))
    cube = rng.choice((1, 1, 2))
    owner = "centered" if cube == 1 else rng.choice(("me", "them"))
    return BotContext(
        cube_value=cube, cube_owner=owner, cube_in_play=True, match_length=length, score=score
    )


def compare(
    searches: dict[str, tuple[Search, ...]], seed: int, minutes: float, decisions: int
) -> list[dict[str, Any]]:
    """A row per decision with a choice: each search's CPU time, the judge's values if apart."""
    rng = random.Random(seed)
    mover = get_bot("carcelero", seed=seed)
    judge = Judge(seed=7001 + seed)
    rows: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60 * minutes

    def going() -> bool:
        return len(rows) < decisions and time.monotonic() < deadline

    while going():
        context = random_context(rng)
        position = Position.initial()
        for _turn in range(70):
            if position.is_game_over() or not going():
                break
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(position, dice)
            if len(plays) >= 2:
                started = time.process_time()
                ranked = sage.rank_plays(position, dice, "2ply", context)
                ranking = time.process_time() - started
                chosen: dict[str, Position] = {}
                seconds: dict[str, float] = {}
                for name, stages in searches.items():
                    started = time.process_time()
                    chosen[name] = deep.deepen(position, ranked, context, stages)[0].after
                    seconds[name] = ranking + time.process_time() - started
                row: dict[str, Any] = {"seconds": seconds, "judge": None}
                if len(set(chosen.values())) > 1:
                    row["judge"] = {
                        name: judge.value(position, after, context)
                        for name, after in chosen.items()
                    }
                rows.append(row)
            if plays:
                position = position.apply(mover.choose_play(position, dice, context))
            position = position.flip()
    return rows


def summary(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return "no decisions"
    lines = [f"{len(rows)} decisions with a choice"]
    for name in ("a", "b"):
        times = sorted(row["seconds"][name] for row in rows)
        p99 = times[int(0.99 * (len(times) - 1))]
        lines.append(
            f"  {name}: CPU per decision median {statistics.median(times):.3f} s,"
            f" p99 {p99:.3f} s, max {times[-1]:.3f} s, mean {statistics.mean(times):.3f} s"
        )
    gains = [row["judge"]["b"] - row["judge"]["a"] for row in rows if row["judge"]]
    lines.append(f"  they differ in {len(gains)}")
    if len(gains) >= 2:
        mean = statistics.mean(gains)
        error = statistics.stdev(gains) / math.sqrt(len(gains))
        lines.append(
            f"  judge's equity of b's choice minus a's: {1000 * mean:+.2f} ± {1000 * error:.2f}"
            f" mEMG where they differ, {1000 * sum(gains) / len(rows):+.2f} per decision"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", type=_search_argument, required=True, help="e.g. 3:6:0.16,4:3:0.06")
    parser.add_argument("--b", type=_search_argument, required=True, help="e.g. 3:6:0.16,r:3:0.06")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--out", type=Path, help="append one JSON line per decision")
    args = parser.parse_args(argv)
    rows = compare({"a": args.a, "b": args.b}, args.seed, args.minutes, args.decisions)
    if args.out:
        with args.out.open("a") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
    print(f"a = {args.a}\nb = {args.b}")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
