"""The weak levels' cube, graded by bgsage 3-ply and, where installed, by GNU Backgammon.

Each weak bot plays matches to 5 against itself (the engine's state
machine, the bots' own ``next_action``, seeded dice: match *n* is the same
whoever plays it) and every cube decision (each turn it could double, each
take or pass) is graded the way GNU Backgammon grades: the equity given away
against the grader's own verdict, normalised to the cube (a pass is worth
1.0), in thousandths (mEMG). The graders are bgsage at ``--level`` (3-ply by
default, gnubg's 2-ply) and, with ``--gnubg N``, GNU Backgammon itself at
N plies: an evaluator the bots never use. It prints each bot's mean error
with a standard error over matches (a match's decisions are one cluster),
its worst decision, and checks the order (Domador > Chofer > Carcelero) and
the bounds of docs/BOTS.md (``CUBE_BOUNDS`` here).

    nice -n 19 .venv/bin/python -m bench.cube_ladder --matches 30 --gnubg 2

Not part of ``make bench`` (minutes of CPU); ``--save`` keeps every graded decision.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")  # one core, before bgsage loads

from games.bots import sage
from games.bots.arena import make_player
from games.bots.cubebench import grade_double, grade_take
from games.bots.runner import context_for, next_action
from games.engine import Action, Format, MatchRules, MatchState, Phase

from .gnubg_ref import Gnubg, find_gnubg

WEAK = ("domador", "chofer", "carcelero")
# The most a level may give away per cube decision on average, in mEMG, graded
# by bgsage 3-ply; docs/BOTS.md states the same numbers.
CUBE_BOUNDS = {"domador": 1.5, "chofer": 0.8, "carcelero": 0.3}
MAX_ACTIONS = 20000

# A grader: (state before the decision, the deciding side, doubled or took) -> equity lost.
Grader = Callable[[MatchState, int, bool], float]


def bgsage_grader(level: str) -> Grader:
    def grade(state: MatchState, side: int, chose: bool) -> float:
        context, position = context_for(state, side), state.position_for(side)
        if state.phase is Phase.ROLL:
            return grade_double(position, context, chose, level)
        return grade_take(position, context, chose, level)

    return grade


def gnubg_grader(gnubg: Gnubg) -> Grader:
    def grade(state: MatchState, side: int, chose: bool) -> float:
        verdict = gnubg.cube(state)  # the doubler's equities, before or after the double
        if verdict is None:
            return 0.0
        if state.phase is Phase.ROLL:
            double = min(verdict.dt, verdict.dp)
            return max(verdict.nd, double) - (double if chose else verdict.nd)
        take, drop = -verdict.dt, -verdict.dp
        return max(take, drop) - (take if chose else drop)

    return grade


@dataclass
class Graded:
    kind: str  # "double" (to double or not) or "take" (to take or pass)
    chose: bool
    errors: dict[str, float]


@dataclass
class Played:
    games: int
    decisions: list[Graded] = field(default_factory=list)


def play_match(bot: str, length: int, seed: int, number: int, graders: dict[str, Grader]) -> Played:
    players = [make_player(bot, random.Random(f"mesa-botcube:{seed}:{number}:{s}")) for s in (0, 1)]
    dice = random.Random(f"mesa-cube-ladder:{seed}:{number}")
    state = MatchState.new(MatchRules(format=Format.MATCH, length=length))
    played = Played(games=0)
    for _ in range(MAX_ACTIONS):
        if state.phase is Phase.MATCH_OVER:
            break
        if state.phase is Phase.GAME_OVER:
            state = state.apply(Action("next_game", 0))
            continue
        if state.needs_auto_roll():
            side = 0 if state.phase is Phase.OPENING else state.turn
            state = state.apply(Action("roll", side, (dice.randint(1, 6), dice.randint(1, 6))))
            continue
        side = state.turn
        action = next_action(players[side], state, side)
        if action is None:
            raise RuntimeError(f"no action for side {side} in phase {state.phase}")
        kind = None
        if state.phase is Phase.ROLL and sage.cube_is_alive(context_for(state, side)):
            kind, chose = "double", action.kind == "double"
        elif state.phase is Phase.DOUBLED and action.kind in ("take", "drop"):
            kind, chose = "take", action.kind == "take"
        if kind is not None:
            errors = {name: grade(state, side, chose) for name, grade in graders.items()}
            played.decisions.append(Graded(kind, chose, errors))
        if action.kind == "roll":
            action = Action("roll", side, (dice.randint(1, 6), dice.randint(1, 6)))
        state = state.apply(action)
    else:
        raise RuntimeError(f"the match did not end after {MAX_ACTIONS} actions")
    played.games = len(state.games)
    return played


def error_with_se(matches: list[Played], grader: str) -> tuple[float, float]:
    """Mean error per decision (mEMG) and its standard error, each match a cluster."""
    totals = [(sum(d.errors[grader] for d in m.decisions), len(m.decisions)) for m in matches]
    totals = [(e, n) for e, n in totals if n]
    decisions = sum(n for _, n in totals)
    if not decisions:
        return 0.0, 0.0
    mean = sum(e for e, _ in totals) / decisions
    k = len(totals)
    if k < 2:
        return 1000 * mean, float("nan")
    per = decisions / k
    var = sum((e - mean * n) ** 2 for e, n in totals) / (k * (k - 1)) / per**2
    return 1000 * mean, 1000 * var**0.5


def report(bot: str, matches: list[Played], graders: list[str], seconds: float) -> dict[str, Any]:
    decisions = [d for m in matches for d in m.decisions]
    doubles = sum(d.kind == "double" and d.chose for d in decisions)
    takes = sum(d.kind == "take" and d.chose for d in decisions)
    drops = sum(d.kind == "take" and not d.chose for d in decisions)
    print(
        f"{bot:<10} {len(matches)} matches, {sum(m.games for m in matches) / len(matches):.2f} "
        f"games each, {len(decisions)} cube decisions ({doubles} doubles, {takes} takes, "
        f"{drops} drops), {seconds:.0f} s CPU"
    )
    found: dict[str, Any] = {}
    for grader in graders:
        mean, se = error_with_se(matches, grader)
        errors = [d.errors[grader] for d in decisions]
        wrong = sum(e > 1e-9 for e in errors)
        worst = 1000 * max(errors, default=0.0)
        print(
            f"    graded by {grader:<12} error {mean:5.2f} ± {se:.2f} mEMG per decision, "
            f"wrong {wrong} ({wrong / max(1, len(errors)):.1%}), worst {worst:.0f}"
        )
        found[grader] = {"mean": mean, "se": se, "wrong": wrong, "worst": worst}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", default="3ply", help="bgsage's grading depth")
    parser.add_argument("--gnubg", type=int, help="also grade by gnubg at these plies")
    parser.add_argument("--bots", nargs="+", default=list(WEAK))
    parser.add_argument("--save", type=Path, help="write every graded decision as JSON")
    args = parser.parse_args(argv)
    graders: dict[str, Grader] = {f"bgsage {args.level}": bgsage_grader(args.level)}
    gnubg = None
    if args.gnubg is not None:
        if find_gnubg() is None:
            print("GNU Backgammon is not installed: grading by bgsage alone")
        else:
            gnubg = Gnubg(args.gnubg)
            graders[gnubg.name] = gnubg_grader(gnubg)
    results: dict[str, dict[str, Any]] = {}
    saved: dict[str, Any] = {}
    try:
        for bot in args.bots:
            started = time.process_time()
            matches = [play_match(bot, 5, args.seed, n, graders) for n in range(args.matches)]
            results[bot] = report(bot, matches, list(graders), time.process_time() - started)
            saved[bot] = [[[d.kind, d.chose, d.errors] for d in m.decisions] for m in matches]
    finally:
        if gnubg is not None:
            gnubg.close()
    if args.save:
        args.save.write_text(json.dumps({"seed": args.seed, "matches": saved}))
    if all(bot in results for bot in WEAK):
        for grader in graders:
            means = [results[bot][grader]["mean"] for bot in WEAK]
            ordered = all(a > b for a, b in zip(means, means[1:], strict=False))
            line = f"graded by {grader}: Domador > Chofer > Carcelero {ordered}"
            if grader == f"bgsage {args.level}":
                within = all(results[b][grader]["mean"] <= CUBE_BOUNDS[b] for b in WEAK)
                line += f"; each within its bound {within}"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
