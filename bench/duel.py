"""A Mesa bot against GNU Backgammon: duplicate-dice matches with the cube, resumable.

Each pair is one match length (pairs alternate 5 and 7 points) played twice
with the same dice and the seats swapped, with the cube, the Crawford rule
and gammons (the engine's own match rules). gnubg plays through
``bench/gnubg_ref.py`` at the plies asked (its numbering: 0-ply is "Expert",
2-ply "World class"), with its own cubeful evaluator and match equity table.
The dice of game ``g`` of pair ``p`` come from their own seeded stream, used
once per roll, so both seatings meet exactly the same rolls.

Every finished match is appended to a results file (JSON lines), so a long
run can stop (``--minutes``) and go on later with the same command:

    nice -n 19 .venv/bin/python -m bench.duel --bot empresario --plies 2 --pairs 100 --minutes 20

Each line is written whole and at once to a file opened for appending, so
two processes on two cores can share one file with ``--shard 0/2`` and
``--shard 1/2`` (disjoint pairs).

With ``--budget SECONDS`` the bot plays as it does on the site: each turn
within that much wall time (``BOT_MOVE_BUDGET_SECONDS``; the anytime search
of docs/BOTS.md, "A move on time"), so the result measures the bot as it
plays in production, on this machine as loaded as it is. Those rows go to
their own file (``...-budget5.jsonl``) and never count with rows played
without a budget, as every committed result was.

It prints the bot's match wins with a standard error over pairs (the pair's
mean is one sample: duplicate dice make the two halves negatively
correlated, so this is the honest one), by length, and the bot's time per
checker play. Without gnubg it says so and exits 0. Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")  # one core, before bgsage loads

from games.engine import Action, Format, MatchRules, MatchState, Phase

from .gnubg_ref import Gnubg, find_gnubg

MAX_ACTIONS = 20000
RESULTS = Path(__file__).resolve().parent / "results"


class Player(Protocol):
    def next_action(self, state: MatchState, side: int) -> Action | None: ...


class MesaPlayer:
    """A Mesa bot (or bgsage reference) by name, timed on its checker plays.

    With a ``budget`` (seconds of wall time on ``clock``) each turn gets the
    deadline the site gives it (games.tasks.move_deadline, with no wait in a
    queue): the budget from the turn's first decision, so a play after the
    bot's own roll shares the deadline of the roll (and of the double it
    thought about), as the site's turn does; a take or drop, or a play after
    an automatic roll, starts its own.
    """

    def __init__(
        self,
        name: str,
        rng: random.Random,
        budget: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        from games.bots.arena import make_player

        self.bot = make_player(name, rng)
        self.budget = budget
        self.clock = clock
        self.move_seconds: list[float] = []
        self.cube_seconds: list[float] = []
        self._rolled: tuple[MatchState, float] | None = None  # the roll's state, its deadline

    def deadline_for(self, state: MatchState) -> float | None:
        """The deadline of the turn ``state`` is in (None without a budget)."""
        if self.budget is None:
            return None
        rolled, self._rolled = self._rolled, None
        if rolled is not None and state.last_action is not None:
            before, deadline = rolled
            if state.phase is Phase.MOVE and before.apply(state.last_action) == state:
                return deadline  # the play after this bot's own roll: the same turn
        return self.clock() + self.budget

    def next_action(self, state: MatchState, side: int) -> Action | None:
        from games.bots.runner import next_action

        started = time.process_time()
        deadline = self.deadline_for(state)
        action = next_action(self.bot, state, side, deadline=deadline)
        if action is not None and action.kind == "roll" and deadline is not None:
            self._rolled = (state, deadline)
        if state.phase is Phase.MOVE and len(state.legal_plays()) > 1:
            self.move_seconds.append(time.process_time() - started)
        elif state.phase is Phase.DOUBLED or state.may_double(side):
            self.cube_seconds.append(time.process_time() - started)
        return action


class GnubgPlayer:
    def __init__(self, gnubg: Gnubg):
        self.gnubg = gnubg

    def next_action(self, state: MatchState, side: int) -> Action | None:
        return self.gnubg.next_action(state, side)


def game_dice(seed: int, pair: int, game: int) -> Iterator[tuple[int, int]]:
    rng = random.Random(f"mesa-duel:{seed}:{pair}:{game}")
    while True:
        yield rng.randint(1, 6), rng.randint(1, 6)


@dataclass
class MatchOutcome:
    winner: int
    score: tuple[int, int]
    games: int
    gammons: int  # games won with a gammon or backgammon, both sides
    highest_cube: int


def play_match(players: tuple[Player, Player], length: int, seed: int, pair: int) -> MatchOutcome:
    state = MatchState.new(MatchRules(format=Format.MATCH, length=length))
    game = 0
    dice = game_dice(seed, pair, game)
    highest = 1
    for _ in range(MAX_ACTIONS):
        if state.phase is Phase.MATCH_OVER:
            break
        if state.phase is Phase.GAME_OVER:
            state = state.apply(Action("next_game", 0))
            game += 1
            dice = game_dice(seed, pair, game)
            continue
        if state.needs_auto_roll():
            side = 0 if state.phase is Phase.OPENING else state.turn
            state = state.apply(Action("roll", side, next(dice)))
            continue
        side = state.turn
        action = players[side].next_action(state, side)
        if action is None:
            raise RuntimeError(f"no action for side {side} in {state.phase}")
        if action.kind == "roll":
            action = Action("roll", side, next(dice))
        state = state.apply(action)
        highest = max(highest, state.cube_value)
    else:
        raise RuntimeError(f"the match did not end after {MAX_ACTIONS} actions")
    assert state.winner is not None
    gammons = sum(int(result.kind) >= 2 for result in state.games if result.kind is not None)
    return MatchOutcome(state.winner, state.score, len(state.games), gammons, highest)


def player_version(name: str) -> str:
    """A short digest of what decides the bot's play: its character and bgsage's version.

    Rows of a results file count together only when they were played by the
    same player, so a change to a character (its levels, search stages, noise)
    starts a new count instead of mixing into the old one.
    """
    from importlib.metadata import version

    from games.bots.arena import REFERENCES
    from games.bots.players import CHARACTERS

    key = name.strip().lower()
    character = CHARACTERS.get(key) or REFERENCES.get(key)
    described = f"{character!r} bgsage {version('bgsage')}"
    return hashlib.sha256(described.encode()).hexdigest()[:12]


def config_of(args: argparse.Namespace, seed: int | None = None) -> dict[str, Any]:
    config = {
        "bot": args.bot.lower(),
        "bot_version": player_version(args.bot),
        "gnubg_plies": args.plies,
        "seed": args.seed if seed is None else seed,
    }
    if args.budget is not None:  # rows played without one (all before --budget) have no key
        config["budget"] = args.budget
    return config


def pair_key(row: dict[str, Any]) -> tuple[int, int]:
    """A pair is its seed's: pair 3 of seed 1 and pair 3 of seed 2 are other dice."""
    return row["seed"], row["pair"]


def results_path(bot: str, plies: int, seed: int, budget: float | None = None) -> Path:
    within = "" if budget is None else f"-budget{budget:g}"
    return RESULTS / f"duel-{bot.lower()}-gnubg{plies}-s{seed}{within}.jsonl"


def read_results(path: Path, config: dict[str, Any]) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    # A row played within a budget counts only with rows of the same budget.
    wanted = {"budget": None, **config}
    return [row for row in rows if all(row.get(k) == v for k, v in wanted.items())]


def summary(rows: list[dict[str, Any]], bot: str, opponent: str) -> str:
    pairs: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in rows:
        pairs.setdefault(pair_key(row), []).append(row)
    complete = {p: r for p, r in pairs.items() if len(r) == 2}
    seeds = sorted({row["seed"] for row in rows})
    lines = [
        f"{bot} vs {opponent}: {len(rows)} matches, {len(complete)} complete pairs"
        + (f" (seeds {', '.join(map(str, seeds))})" if len(seeds) > 1 else "")
    ]
    if not complete:
        return lines[0]

    def share(selected: dict[tuple[int, int], list[dict[str, Any]]]) -> str:
        means = [statistics.fmean(r["bot_won"] for r in rows) for rows in selected.values()]
        mean = statistics.fmean(means)
        se = statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else float("nan")
        return f"{100 * mean:.1f}% ± {100 * se:.1f} ({2 * len(means)} matches)"

    lines.append(f"  match wins for {bot}: {share(complete)}")
    for length in sorted({r[0]["length"] for r in complete.values()}):
        part = {p: r for p, r in complete.items() if r[0]["length"] == length}
        lines.append(f"    matches to {length}: {share(part)}")
    split = sum(1 for r in complete.values() if r[0]["bot_won"] != r[1]["bot_won"])
    lines.append(f"  pairs split 1-1: {split} of {len(complete)}")
    games = [row["games"] for row in rows]
    lines.append(
        f"  games per match {statistics.fmean(games):.2f}; gammons per game "
        f"{sum(r['gammons'] for r in rows) / sum(games):.3f}; highest cube "
        f"{max(r['highest_cube'] for r in rows)}"
    )
    timed = (("bot_move_seconds", "checker plays"), ("bot_cube_seconds", "cube decisions"))
    for key, what in timed:
        times = sorted(t for row in rows for t in row.get(key, []))
        if times:
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            lines.append(
                f"  {bot}'s {what} (CPU, one thread): median {statistics.median(times):.3f} s,"
                f" p99 {p99:.3f} s, max {times[-1]:.3f} s over {len(times)}"
            )
    return "\n".join(lines)


def paired_difference(
    rows: list[dict[str, Any]], earlier: list[dict[str, Any]], bot: str, version: str
) -> str:
    """The bot's match wins minus an earlier version's, on the pairs both completed.

    The same pair means the same dice and match length, so the difference of
    the two pair means is one sample with the luck of the dice taken out: a
    far smaller error than the difference of two independent shares.
    """

    def pair_means(selected: list[dict[str, Any]]) -> dict[tuple[int, int], float]:
        pairs: dict[tuple[int, int], list[int]] = {}
        for row in selected:
            pairs.setdefault(pair_key(row), []).append(row["bot_won"])
        return {p: statistics.fmean(won) for p, won in pairs.items() if len(won) == 2}

    now, before = pair_means(rows), pair_means(earlier)
    common = sorted(now.keys() & before.keys())
    if not common:
        return f"{bot} against version {version}: no pair completed by both"
    gains = [now[p] - before[p] for p in common]
    mean = statistics.fmean(gains)
    se = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else float("nan")
    return (
        f"{bot} against version {version} on the same {len(common)} pairs: "
        f"{100 * statistics.fmean(now[p] for p in common):.1f}% against "
        f"{100 * statistics.fmean(before[p] for p in common):.1f}%, "
        f"a difference of {100 * mean:+.1f} ± {100 * se:.1f} points"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="empresario")
    parser.add_argument("--plies", type=int, default=2, help="gnubg's plies (2: World class)")
    parser.add_argument("--pairs", type=int, default=100, help="target pairs (two matches each)")
    parser.add_argument(
        "--seed",
        default="1",
        help="the dice's seed; with --summary, several as 1,2 count their pairs together",
    )
    parser.add_argument("--minutes", type=float, default=0, help="stop after this long (0: never)")
    parser.add_argument("--results", type=Path, help="JSON lines (default: bench/results/)")
    parser.add_argument("--summary", action="store_true", help="only print the results so far")
    parser.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="each bot turn within this much wall time, as the site's BOT_MOVE_BUDGET_SECONDS "
        "(default: none, as the committed results were played); its own results file",
    )
    parser.add_argument(
        "--against",
        metavar="VERSION",
        help="with --summary: the paired difference from an earlier bot_version's rows",
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        help="K/N: play only the pairs p with p %% N == K (N processes share one results file)",
    )
    args = parser.parse_args(argv)
    try:
        shard, shards = (int(part) for part in args.shard.split("/"))
    except ValueError:
        parser.error(f"--shard {args.shard}: write it K/N, two whole numbers")
    if not 0 <= shard < shards:
        parser.error(f"--shard {args.shard}: K must be from 0 to N - 1")
    if args.budget is not None and args.budget <= 0:
        parser.error(f"--budget {args.budget:g}: a number of seconds above 0")
    try:
        seeds = [int(part) for part in args.seed.split(",")]
    except ValueError:
        parser.error(f"--seed {args.seed}: write it as a whole number, or several as 1,2")
    if len(seeds) > 1 and not args.summary:
        parser.error(
            f"--seed {args.seed}: one seed at a time is played; several only with --summary"
        )
    args.seed = seeds[0]

    def results_of(seed: int, version: str | None = None) -> list[dict[str, Any]]:
        config = config_of(args, seed)
        if version is not None:
            config["bot_version"] = version
        path = args.results or results_path(args.bot, args.plies, seed, args.budget)
        return read_results(path, config)

    opponent = f"gnubg {args.plies}-ply"
    if args.budget is not None:
        opponent += f", the bot within {args.budget:g} s a turn"
    if args.summary:
        rows = [row for seed in seeds for row in results_of(seed)]
        print(summary(rows, args.bot, opponent))
        if args.against:
            earlier = [row for seed in seeds for row in results_of(seed, args.against)]
            print(paired_difference(rows, earlier, args.bot, args.against))
        return 0
    path = args.results or results_path(args.bot, args.plies, args.seed, args.budget)
    config = config_of(args)
    rows = read_results(path, config)
    if find_gnubg() is None:
        print("GNU Backgammon is not installed (apt-get install gnubg): nothing to measure")
        return 0
    done = {(row["pair"], row["bot_seat"]) for row in rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with Gnubg(args.plies) as gnubg, path.open("a") as out:
        for pair in range(shard, args.pairs, shards):
            length = 5 if pair % 2 == 0 else 7
            for bot_seat in (0, 1):
                if (pair, bot_seat) in done:
                    continue
                if args.minutes and time.monotonic() - started > 60 * args.minutes:
                    print(f"stopped after {args.minutes} minutes; run again to go on")
                    print(summary(read_results(path, config), args.bot, opponent))
                    return 0
                rng = random.Random(f"mesa-duel:{args.seed}:{pair}:bot")
                bot = MesaPlayer(args.bot, rng, args.budget)
                seats: tuple[Player, Player] = (
                    (bot, GnubgPlayer(gnubg)) if bot_seat == 0 else (GnubgPlayer(gnubg), bot)
                )
                clock = time.monotonic()
                outcome = play_match(seats, length, args.seed, pair)
                row = {
                    **config,
                    "pair": pair,
                    "bot_seat": bot_seat,
                    "length": length,
                    "bot_won": int(outcome.winner == bot_seat),
                    "score": list(outcome.score),
                    "games": outcome.games,
                    "gammons": outcome.gammons,
                    "highest_cube": outcome.highest_cube,
                    "seconds": round(time.monotonic() - clock, 1),
                    "bot_move_seconds": [round(t, 4) for t in bot.move_seconds],
                    "bot_cube_seconds": [round(t, 4) for t in bot.cube_seconds],
                }
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(
                    f"pair {pair} to {length}, bot in seat {bot_seat}: "
                    f"{'won' if row['bot_won'] else 'lost'} {outcome.score} "
                    f"in {outcome.games} games, {row['seconds']} s",
                    flush=True,
                )
    print(summary(read_results(path, config), args.bot, opponent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
