"""The bots' worker under load: how long a person waits for the computer's turn.

``python -m bench.botload`` (``make botload``) plays N games against each bot
at once, matches to 5 with the cube, a person answering every 15 s (a random
legal play, every double taken). Each bot turn goes to a pool of worker
processes shaped like the kit's bots worker: its ``--concurrency`` and its
``BGBOT_MULTIPLY_THREADS`` read from deploy/systemd/mesa-worker-bots.service,
forked processes as Celery's prefork pool, and the move's deadline as
``games.tasks.move_deadline`` gives it (BOT_MOVE_BUDGET_SECONDS from the turn's
start, queue wait included). No broker and no database: what is measured is
the search and the queue in front of it, the part of a bot's turn that grows
with load.

It prints the wall time of a bot turn (from the person's answer to the bot's
play, the wait in the queue included) at p50/p95/p99 and max, how many turns
would have been nudged again (longer than BOT_STUCK_AFTER) or killed (longer
than bot_turn's soft time limit), the part of it spent waiting in the queue,
the plays made at 1-ply because no time
was left for the first pass (docs/BOTS.md, "A move on time"), the load
average, and the capacity: bot turns per minute per core, from the CPU time
each turn took and from what the run got done. It also says how late its own
loop handed the person's answers in: past LAG_LIMIT the run is void (the
machine starved the generator, not only the bots).
"""

from __future__ import annotations

import argparse
import heapq
import multiprocessing
import os
import random
import re
import statistics
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.bots import BOT_NAMES, get_bot, players
from games.bots.runner import context_for, next_action
from games.engine import Action, ActionKind, Format, MatchRules, MatchState, Phase, legal_plays

UNIT = Path(__file__).resolve().parent.parent / "deploy/systemd/mesa-worker-bots.service"
RULES = MatchRules(format=Format.MATCH, length=5)
PERSON, BOT = 0, 1
LAG_LIMIT = 1.0  # seconds: an answer handed in later than this voids the run


def kit_worker() -> tuple[int, int]:
    """The bots worker's --concurrency and threads per search, as the kit's unit sets them."""
    text = UNIT.read_text()
    concurrency = re.search(r"--concurrency=(\d+)", text)
    threads = re.search(r"^Environment=BGBOT_MULTIPLY_THREADS=(\d+)$", text, re.MULTILINE)
    assert concurrency and threads, f"{UNIT} sets --concurrency and BGBOT_MULTIPLY_THREADS"
    return int(concurrency[1]), int(threads[1])


def settle(state: MatchState, rng: random.Random) -> MatchState:
    """What the table does by itself: the next game, a new match, the rolls it makes."""
    while True:
        if state.phase is Phase.MATCH_OVER:
            state = MatchState.new(RULES)
        elif state.phase is Phase.GAME_OVER:
            state = state.apply(Action(ActionKind.NEXT_GAME, PERSON))
        elif state.needs_auto_roll():
            side = PERSON if state.phase is Phase.OPENING else state.turn
            state = state.apply(Action(ActionKind.ROLL, side, _roll(rng)))
        else:
            return state


def _roll(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def person_answers(state: MatchState, rng: random.Random) -> MatchState:
    """The person's whole turn: roll, any legal play; a double is taken."""
    state = settle(state, rng)
    while state.turn == PERSON and state.phase in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED):
        if state.phase is Phase.ROLL:
            action = Action(ActionKind.ROLL, PERSON, _roll(rng))
        elif state.phase is Phase.DOUBLED:
            action = Action(ActionKind.TAKE, PERSON)
        else:
            assert state.dice is not None
            plays = legal_plays(state.position_for(PERSON), state.dice)
            action = Action(ActionKind.PLAY, PERSON, play=rng.choice(plays) if plays else ())
        state = settle(state.apply(action), rng)
    return state


def _warm() -> None:
    """Each process builds bgsage's networks and searches first, as a worker that
    has played a turn has: a process's first move is not what is measured."""
    state = settle(MatchState.new(RULES), random.Random(0))
    for name in BOT_NAMES:
        bot = get_bot(name, random.Random(0))
        for context_side in (PERSON, BOT):
            position = state.position_for(context_side)
            bot.choose_play(position, (3, 1), context_for(state, context_side))


def bot_turn(
    name: str, data: dict[str, Any], started: float, budget: float, seed: int
) -> tuple[dict[str, Any], float, float, int, float]:
    """The bot's whole turn in a worker process: (state, CPU seconds, when it ended,
    the plays made with no time left for a first pass, its wait in the queue)."""
    waited = time.time() - started
    cpu = time.process_time()
    quick = players.no_time_plays
    rng = random.Random(seed)
    bot = get_bot(name, rng)
    state = MatchState.from_json(data)
    # games.tasks.move_deadline: the budget counts from the turn's start.
    deadline = time.monotonic() + max(0.0, budget - (time.time() - started))
    while state.turn == BOT and state.phase in (
        Phase.ROLL,
        Phase.MOVE,
        Phase.DOUBLED,
        Phase.RESIGN_OFFERED,
    ):
        action = next_action(bot, state, BOT, deadline=deadline)
        if action is None:
            break
        if action.kind == ActionKind.ROLL:
            action = Action(ActionKind.ROLL, BOT, _roll(rng))
        state = settle(state.apply(action), rng)
    quick = players.no_time_plays - quick
    return state.to_json(), time.process_time() - cpu, time.time(), quick, waited


@dataclass
class Tally:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    quick: int = 0  # plays made at 1-ply, no time left for the first pass
    waits: list[float] = field(default_factory=list)  # each turn's wait in the queue


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(args: argparse.Namespace) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    os.environ.setdefault("DEBUG", "true")  # the settings as `make run` reads them, no key needed
    django.setup()
    from django.conf import settings

    concurrency, threads = kit_worker()
    concurrency = args.concurrency or concurrency
    os.environ["BGBOT_MULTIPLY_THREADS"] = str(threads)
    budget = float(settings.BOT_MOVE_BUDGET_SECONDS)
    stuck = settings.BOT_STUCK_AFTER.total_seconds()
    soft = float(settings.BOT_TURN_SOFT_TIME_LIMIT)
    names = [n for n in BOT_NAMES if not args.bots or n in args.bots.split(",")]
    rng = random.Random(args.seed)
    games: list[tuple[str, MatchState]] = [
        (name, settle(MatchState.new(RULES), rng)) for name in names for _ in range(args.games)
    ]
    print(
        f"{len(games)} games ({args.games} per bot: {', '.join(names)}), a person answering "
        f"every {args.answer:g} s, for {args.seconds:g} s; worker: {concurrency} processes x "
        f"{threads} thread(s) a search (the kit's unit), budget {budget:g} s, nudge after "
        f"{stuck:g} s, soft limit {soft:g} s; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.2f} at the start"
    )
    tallies = {name: Tally() for name in names}
    due: list[tuple[float, int]] = []
    running: dict[Future[tuple[dict[str, Any], float, float, int, float]], tuple[int, float]] = {}
    loads: list[float] = []
    lags: list[float] = []  # how late this loop handed each answer in: a lagging generator
    context = multiprocessing.get_context("fork")  # Celery's prefork pool forks too
    with ProcessPoolExecutor(concurrency, mp_context=context, initializer=_warm) as pool:
        list(pool.map(time.sleep, [2.0] * concurrency))  # every process started and warm
        # The schedule starts once the worker is ready: its warm-up is no answer's lag.
        start = time.time()
        for number in range(len(games)):  # the first answers spread over one answering period
            heapq.heappush(due, (start + args.answer * number / len(games), number))
        end = start + args.seconds
        while time.time() < end or running:
            now = time.time()
            while due and due[0][0] <= now and now < end:
                when, number = heapq.heappop(due)
                lags.append(now - when)
                name, state = games[number]
                state = person_answers(state, rng)
                games[number] = (name, state)
                seed = rng.randrange(2**32)
                future = pool.submit(bot_turn, name, state.to_json(), now, budget, seed)
                running[future] = (number, now)
            timeout = max(0.0, min(due[0][0] - time.time(), 1.0)) if due else 1.0
            if not running:  # wait() on no futures returns at once: no busy loop
                time.sleep(timeout)
                continue
            done, _ = wait(list(running), timeout=timeout, return_when=FIRST_COMPLETED)
            for future in done:
                number, started = running.pop(future)
                data, cpu, ended, quick, waited = future.result()
                name = games[number][0]
                games[number] = (name, MatchState.from_json(data))
                tallies[name].walls.append(ended - started)
                tallies[name].cpus.append(cpu)
                tallies[name].quick += quick
                tallies[name].waits.append(waited)
                heapq.heappush(due, (ended + args.answer, number))
            loads.append(os.getloadavg()[0])
    elapsed = time.time() - start
    print(
        f"{'bot':<11}{'turns':>6}{'p50':>7}{'p95':>7}{'p99':>7}{'max':>7}{'cpu':>7}"
        f"{'turns/min/core':>16}{'1-ply':>7}"
    )
    every = Tally()
    for name, tally in tallies.items():
        every.walls += tally.walls
        every.cpus += tally.cpus
        every.quick += tally.quick
        every.waits += tally.waits
        _line(name, tally)
    _line("all", every)
    if every.waits:
        waits = every.waits
        print(
            f"of which the wait in the queue: p50 {percentile(waits, 0.5):.2f}, p95 "
            f"{percentile(waits, 0.95):.2f}, p99 {percentile(waits, 0.99):.2f}, max "
            f"{max(waits):.2f} s"
        )
    nudged = sum(wall > stuck for wall in every.walls)
    killed = sum(wall > soft for wall in every.walls)
    cores = min(concurrency * threads, os.cpu_count() or 1)
    per_core_cpu = 60 / statistics.fmean(every.cpus) if every.cpus else 0.0
    done_per_core = len(every.walls) / (elapsed / 60) / cores
    print(
        f"over {stuck:g} s (a nudge would queue it again): {nudged}; over the soft limit "
        f"(killed): {killed}; load average {statistics.fmean(loads):.2f} mean, "
        f"{max(loads):.2f} max, {os.getloadavg()[0]:.2f} at the end"
    )
    print(
        f"capacity: {per_core_cpu:.0f} bot turns a minute per core by CPU time "
        f"({statistics.fmean(every.cpus):.2f} s a turn, this mix of bots); the run did "
        f"{done_per_core:.0f} a minute per core ({cores} cores)"
    )
    late = max(lags, default=0.0)
    print(
        f"the person's answers handed in late by {statistics.fmean(lags) if lags else 0:.2f} s "
        f"mean, {late:.2f} s max"
        + ("" if late <= LAG_LIMIT else f": over {LAG_LIMIT:g} s, the generator lagged: VOID")
    )


def _line(name: str, tally: Tally) -> None:
    if not tally.walls:
        print(f"{name:<11}{0:>6}")
        return
    walls = tally.walls
    print(
        f"{name:<11}{len(walls):>6}{percentile(walls, 0.5):>7.2f}{percentile(walls, 0.95):>7.2f}"
        f"{percentile(walls, 0.99):>7.2f}{max(walls):>7.2f}{statistics.fmean(tally.cpus):>7.2f}"
        f"{60 / max(statistics.fmean(tally.cpus), 1e-3):>16.0f}{tally.quick:>7}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games against each bot at once")
    parser.add_argument("--bots", default="", help="only these bots (comma-separated)")
    parser.add_argument("--answer", type=float, default=15.0, help="the person's seconds a turn")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long to run")
    parser.add_argument("--concurrency", type=int, default=0, help="else the kit's unit")
    parser.add_argument("--seed", type=int, default=1)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
