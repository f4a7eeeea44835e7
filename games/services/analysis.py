"""The writes of the analysis after the game: queue it, then store bgsage's verdicts.

Analysis changes no game, so it lives apart from games.services (which stays
the only code that changes a game): the one hook there queues a finished
game. Every write here is a small function in its own short transaction;
the evaluation itself (seconds of bgsage) runs outside any transaction, so it
never holds a lock a player's move waits for.

The task is owed through the outbox (games.services.outbox), like a bot's turn or an
email: a FollowUp row for "games.tasks.analyse_game" (by name: games.tasks
imports this module, and services never import the tasks) written in the
same transaction as the PENDING GameAnalysis row, published on commit, and by
the follow-up sweep if the broker was down or the process died first. A
worker killed mid-run gets its message back from the broker (acks_late);
only a run that stopped without being redelivered needs requeue_stuck.
"""

import time
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.db import transaction

from games import analysis
from games.engine import MatchRules
from games.lib import clock, evaluator
from games.lib.errors import Conflict
from games.models import Game, GameAnalysis, Turn, TurnAnalysis
from games.selectors import due
from games.selectors.records import turn_action
from games.services import live, outbox

TASK_NAME = "games.tasks.analyse_game"
# The analysis task's hard time limit (games.tasks.analyse_game): a run
# started longer ago than this is over, whatever its row says.
RUNS_AT_MOST = timedelta(seconds=230)
# How long a run takes before any has finished here (bench/analysis.py: a few
# seconds of bgsage for a typical game), and the least a RUNNING mark is given.
EXPECTED_AT_FIRST = timedelta(seconds=15)
STUCK_AT_LEAST = timedelta(minutes=1)
# The recent runs whose duration says what to expect.
RECENT_RUNS = 50


def stuck_after() -> timedelta:
    """A RUNNING mark older than this was left by an attempt that died.

    Tied to what a run takes here: four times the longest of the last
    RECENT_RUNS runs, at least STUCK_AT_LEAST (a busy machine, a slow start),
    at most RUNS_AT_MOST (no run outlives its hard time limit). A live run
    taken for dead costs a second evaluation, never a wrong row: both write
    the same verdicts.
    """
    recent = (
        GameAnalysis.objects.filter(status=GameAnalysis.Status.DONE, seconds__isnull=False)
        .exclude(version__endswith=analysis.QUICK_SUFFIX)  # a full pass is what a mark waits for
        .order_by("-pk")
        .values_list("seconds", flat=True)[:RECENT_RUNS]
    )
    longest = max((s for s in recent if s is not None), default=EXPECTED_AT_FIRST.total_seconds())
    return min(max(STUCK_AT_LEAST, timedelta(seconds=4 * longest)), RUNS_AT_MOST)


def game_analysis_queue(*, game: Game) -> GameAnalysis:
    """Ask for the analysis of a finished game (idempotent), owed through the outbox.

    A game already analysed, or waiting for it, with these settings is left
    alone; a failed one is queued again, and so is one DEFERRED after its quick
    pass (the catch-up asks for its full pass).
    """
    if game.status != Game.Status.FINISHED:
        raise Conflict("game_not_over", "only a finished game is analysed")
    now = clock.now()
    with transaction.atomic():
        row, created = GameAnalysis.objects.get_or_create(
            game=game, version=evaluator.current_version(), defaults={"requested_at": now}
        )
        again = (GameAnalysis.Status.FAILED, GameAnalysis.Status.DEFERRED)
        if not created and row.status not in again:
            return row
        if not created:
            row.status = GameAnalysis.Status.PENDING
            row.requested_at = now
            row.save(update_fields=["status", "requested_at"])
        outbox.schedule(TASK_NAME, row.pk)
        live.room_moved(game.match.room_id)  # the boards say it is queued
    return row


def game_analysis_run(*, analysis_id: int, again: bool = False) -> GameAnalysis | None:
    """Evaluate every decision of the game and store the verdicts, replacing earlier ones.

    1. mark the row RUNNING (a short transaction);
    2. replay the match's Turn rows and rate the game's decisions (no transaction),
       at the full depth, or at the quick one when the queue is behind (runs_quick);
    3. replace the TurnAnalysis rows and store each player's figures, DONE; a
       quick pass goes to the game's quick row, DONE, and this row waits, DEFERRED,
       for the catch-up to owe it again when the queue is idle.
    A row already DONE or DEFERRED is left as it is (the task came twice: the
    follow-up sweep re-drove it). A RUNNING row is run when the mark is this message's
    own (`again`: Celery's retry of an attempt that lost the database, or the
    broker's redelivery of a killed worker's message: that attempt is over)
    or older than stuck_after() (left by a dead worker); a fresh mark of
    another message is left to its worker.
    """
    row = GameAnalysis.objects.select_related("game__match__room").filter(pk=analysis_id).first()
    if row is None:
        return None
    if row.version != evaluator.current_version():
        return row  # queued under settings this worker no longer has
    if row.status in (GameAnalysis.Status.DONE, GameAnalysis.Status.DEFERRED):
        return row
    if (
        not again
        and row.status == GameAnalysis.Status.RUNNING
        and row.started_at is not None
        and row.started_at > clock.now() - stuck_after()
    ):
        return row
    GameAnalysis.objects.filter(pk=row.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock.now()
    )
    live.room_moved(row.game.match.room_id)  # the boards say it is being analysed
    quick = runs_quick(row)
    try:
        started = time.perf_counter()
        settings = evaluator.QUICK if quick else evaluator.SETTINGS
        turns, ratings, luck = _rate(row.game, settings)
        seconds = time.perf_counter() - started
    except Exception:
        GameAnalysis.objects.filter(pk=row.pk).update(status=GameAnalysis.Status.FAILED)
        live.room_moved(row.game.match.room_id)
        raise
    if quick:
        return _store_quick(row, turns, ratings, luck, seconds)
    return _store(row, turns, ratings, luck, seconds)


# The site promises every follow-up within two minutes of its due time (issue
# 40), and one analysis process rates one game at a time: a full pass takes up
# to ~30 s of wall time on a busy machine (docs/OPERATIONS.md), a quick one a
# small part of that (bench/analysis_quick.py: 0.03 s of CPU against 4 for a
# partida simple, 0.9 against 4.3 for a match game). A row asked for this long
# ago has used half of the two minutes waiting: a full pass, and the full
# passes of the rows behind it, could end past them.
QUICK_AFTER = timedelta(seconds=60)


def runs_quick(row: GameAnalysis) -> bool:
    """Whether this run of a game's analysis is its quick first pass: the queue is behind.

    Behind: another analysis waits for the same process (PENDING: every game
    of a burst would wait for the full passes of those ahead, so each has its
    quick pass first, the first one too), or this one was asked for more than
    QUICK_AFTER ago. Only a game with no other analysis at all has one: when
    its quick pass (or an earlier version's analysis) is there already, this
    run is the full pass that follows, whatever the queue; so a game is rated
    at most once at each depth, and the catch-up's own runs are never cut short.
    """
    if GameAnalysis.objects.filter(game_id=row.game_id).exclude(pk=row.pk).exists():
        return False
    if row.requested_at <= clock.now() - QUICK_AFTER:
        return True
    others = GameAnalysis.objects.filter(version=row.version, status=GameAnalysis.Status.PENDING)
    return others.exclude(pk=row.pk).exists()


def _rate(
    game: Game, settings: analysis.Settings
) -> tuple[list[Turn], list[analysis.Rating], dict[str, Any] | None]:
    match = game.match
    turns = list(Turn.objects.filter(game__match=match).order_by("game__number", "number"))
    actions = [turn_action(turn) for turn in turns]
    wanted = [i for i, turn in enumerate(turns) if turn.game_id == game.pk]
    rules = MatchRules.from_json(match.room.rules)
    ratings = analysis.analyse(analysis.match_decisions(rules, actions, wanted), settings)
    if settings.luck_level == analysis.NO_LUCK:
        return turns, ratings, None  # the quick pass: the full one measures it
    luck = analysis.game_luck(rules, actions, wanted, settings.luck_level)
    return turns, ratings, _luck_json(luck, turns)


def _store(
    row: GameAnalysis,
    turns: list[Turn],
    ratings: list[analysis.Rating],
    luck: dict[str, Any] | None,
    seconds: float,
) -> GameAnalysis:
    room_id = row.game.match.room_id  # read with the row (select_related)
    with transaction.atomic():
        row = GameAnalysis.objects.select_for_update().get(pk=row.pk)
        _write(row, turns, ratings, luck, seconds)
        # The boards of the room show the review's link: wake them (same pulse, new state).
        live.room_moved(room_id)
    return row


def _store_quick(
    row: GameAnalysis,
    turns: list[Turn],
    ratings: list[analysis.Rating],
    luck: dict[str, Any] | None,
    seconds: float,
) -> GameAnalysis:
    """The quick pass's verdicts in the game's quick row, DONE; ``row`` DEFERRED.

    The quick row takes the asked-for time of ``row``: it answers that request.
    The pages show it until ``row`` is DONE (games.selectors.review).
    """
    room_id = row.game.match.room_id
    with transaction.atomic():
        row = GameAnalysis.objects.select_for_update().get(pk=row.pk)
        quick, _ = GameAnalysis.objects.select_for_update().get_or_create(
            game_id=row.game_id,
            version=evaluator.quick_version(),
            defaults={"requested_at": row.requested_at, "started_at": row.started_at},
        )
        _write(quick, turns, ratings, luck, seconds)
        if row.status != GameAnalysis.Status.DONE:  # a full pass never goes back
            row.status = GameAnalysis.Status.DEFERRED
            row.save(update_fields=["status"])
        live.room_moved(room_id)
    return row


def _write(
    row: GameAnalysis,
    turns: list[Turn],
    ratings: list[analysis.Rating],
    luck: dict[str, Any] | None,
    seconds: float,
) -> None:
    """Replace ``row``'s verdicts and figures, DONE (inside the caller's transaction)."""
    summaries = analysis.summarise(ratings)
    row.turns.all().delete()
    TurnAnalysis.objects.bulk_create(
        _turn_row(row, turns[rating.decision.index], rating) for rating in ratings
    )
    row.status = GameAnalysis.Status.DONE
    row.finished_at = clock.now()
    row.seconds = round(seconds, 3)
    row.summary = [summary.to_json() for summary in summaries]
    row.luck = luck
    row.save()


def _luck_json(luck: analysis.GameLuck, turns: list[Turn]) -> dict[str, Any]:
    sides = luck.summaries()
    return {
        "unit": luck.unit,
        "rolls": [
            {
                "turn": turns[roll.index].number,
                "side": roll.side,
                "dice": list(roll.dice),
                "luck": round(roll.luck, 4),
                "value": round(roll.value, 5),
                "mark": roll.mark,
                "level": round(roll.level_before, 5),  # the roller's standing before it
            }
            for roll in luck.rolls
        ],
        "sides": [sides[0].to_json(sides[1]), sides[1].to_json(sides[0])],
        "end": None if luck.end is None else round(luck.end, 5),
    }


def _steps(play: Iterable[Iterable[int]] | None) -> list[list[int]] | None:
    return [list(step) for step in play] if play is not None else None


def _turn_row(row: GameAnalysis, turn: Turn, rating: analysis.Rating) -> TurnAnalysis:
    return TurnAnalysis(
        analysis=row,
        turn=turn,
        side=rating.decision.side,
        kind=rating.decision.kind,
        forced=rating.forced,
        counted=rating.counted,
        played_equity=round(rating.played_equity, 4),
        best_equity=round(rating.best_equity, 4),
        loss=round(rating.loss, 4),
        mark=rating.mark,
        best=rating.best,
        best_steps=_steps(rating.best_play),
        alternatives=[
            {"notation": alt.notation, "steps": _steps(alt.play), "equity": round(alt.equity, 4)}
            for alt in rating.alternatives
        ],
        cube={k: round(v, 4) for k, v in rating.cube.items()} if rating.cube else None,
    )


def requeue_stuck(*, limit: int = 50) -> int:
    """Owe again the analyses RUNNING for longer than stuck_after(); return how many.

    The outbox covers a message lost before a worker took it, and the broker
    gives back the message of a worker killed mid-run (acks_late,
    reject_on_worker_lost, Redis's visibility timeout). Neither covers a run
    that stopped without FAILED or DONE and whose message was acknowledged:
    the hard time limit kills the process (Celery acknowledges a timeout), the
    retries for database errors run out, or the database fails while writing
    FAILED. Such a row would stay RUNNING for good, and a seat cannot ask for a
    RUNNING analysis again. It goes back to PENDING, owed through the outbox
    like a new one (its run must not take it for one still under way);
    re-running replaces the rows of the same version.
    """
    now = clock.now()
    with transaction.atomic():
        ids = list(
            GameAnalysis.objects.select_for_update(skip_locked=True)
            .filter(status=GameAnalysis.Status.RUNNING, started_at__lte=now - stuck_after())
            .order_by("started_at")
            .values_list("pk", flat=True)[:limit]
        )
        stuck = GameAnalysis.objects.filter(pk__in=ids)
        rooms = set(stuck.values_list("game__match__room_id", flat=True))
        stuck.update(status=GameAnalysis.Status.PENDING)
        for analysis_id in ids:
            outbox.schedule(TASK_NAME, analysis_id)
        for room_id in sorted(rooms):
            live.room_moved(room_id)
    return len(ids)


# Analyses of earlier settings caught up at most this many at a time: a game
# that ends now waits behind a handful of them on the analysis queue (a few
# seconds each), never behind the whole archive.
CATCH_UP_IN_FLIGHT = 4


def analyses_catch_up() -> int:
    """Queue again, a few at a time, the finished games behind: analysed under
    earlier settings, or only by their quick pass; return how many were queued.

    When the evaluator changes (games.lib.evaluator: a new version, the luck
    added to the verdicts), the pages show only analyses of the current
    version, so the archive's games would show none until someone asked. A
    game rated by its quick pass (runs_quick) waits for its full one. The beat
    calls this every few minutes: while fewer than CATCH_UP_IN_FLIGHT analyses
    wait or run, the latest games ended go first. Each goes through
    game_analysis_queue (idempotent, owed through the outbox) like a new one.
    """
    return _catch_up(in_flight=CATCH_UP_IN_FLIGHT, quick_only=False)


def analyses_deepen() -> int:
    """After a run (games.tasks.analyse_game): when no analysis waits or runs, owe
    the full pass of the latest game that has only its quick one; return 0 or 1.

    One at a time, chained run after run, so the full passes after a burst
    follow as soon as the queue is idle (not at the beat's next tick), and a
    game that ends meanwhile waits behind one full pass at most. The archive's
    catch-up after an evaluator change stays at the beat's pace.
    """
    return _catch_up(in_flight=1, quick_only=True)


def _catch_up(*, in_flight: int, quick_only: bool) -> int:
    waiting = GameAnalysis.objects.filter(
        version=evaluator.current_version(),
        status__in=[GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING],
    ).count()
    free = in_flight - waiting
    if free <= 0:
        return 0
    ids = due.analyses_behind(limit=free, quick_only=quick_only)
    games = Game.objects.in_bulk(ids)
    for game_id in ids:  # in the selector's order: the latest ended first
        game_analysis_queue(game=games[game_id])
    return len(ids)
