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

from django.db import transaction

from games import analysis
from games.engine import MatchRules
from games.lib import clock, evaluator
from games.lib.errors import Conflict
from games.models import Game, GameAnalysis, Turn, TurnAnalysis
from games.selectors.records import turn_action
from games.services import live, outbox

TASK_NAME = "games.tasks.analyse_game"
# A RUNNING analysis started longer ago than this is stuck, and is sent again.
STUCK_AFTER = timedelta(minutes=30)
# The analysis task's hard time limit (games.tasks.analyse_game): a run
# started longer ago than this is over, whatever its row says.
RUNS_AT_MOST = timedelta(seconds=230)


def game_analysis_queue(*, game: Game) -> GameAnalysis:
    """Ask for the analysis of a finished game (idempotent), owed through the outbox.

    A game already analysed, or waiting for it, with these settings is left
    alone; a failed one is queued again.
    """
    if game.status != Game.Status.FINISHED:
        raise Conflict("game_not_over", "only a finished game is analysed")
    now = clock.now()
    with transaction.atomic():
        row, created = GameAnalysis.objects.get_or_create(
            game=game, version=evaluator.current_version(), defaults={"requested_at": now}
        )
        if not created and row.status != GameAnalysis.Status.FAILED:
            return row
        if not created:
            row.status = GameAnalysis.Status.PENDING
            row.requested_at = now
            row.save(update_fields=["status", "requested_at"])
        outbox.schedule(TASK_NAME, row.pk)
        live.room_moved(game.match.room_id)  # the boards say it is queued
    return row


def game_analysis_run(*, analysis_id: int) -> GameAnalysis | None:
    """Evaluate every decision of the game and store the verdicts, replacing earlier ones.

    1. mark the row RUNNING (a short transaction);
    2. replay the match's Turn rows and rate the game's decisions (no transaction);
    3. replace the TurnAnalysis rows and store each player's figures, DONE.
    A row already DONE is left as it is (the task came twice: the broker
    redelivered it, or the follow-up sweep re-drove it), and so is one
    RUNNING for less than the task's hard time limit (another worker is on
    it); a RUNNING row older than that was left by a dead worker, and is run.
    """
    row = GameAnalysis.objects.select_related("game__match__room").filter(pk=analysis_id).first()
    if row is None:
        return None
    if row.version != evaluator.current_version():
        return row  # queued under settings this worker no longer has
    if row.status == GameAnalysis.Status.DONE:
        return row
    if (
        row.status == GameAnalysis.Status.RUNNING
        and row.started_at is not None
        and row.started_at > clock.now() - RUNS_AT_MOST
    ):
        return row
    GameAnalysis.objects.filter(pk=row.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock.now()
    )
    live.room_moved(row.game.match.room_id)  # the boards say it is being analysed
    try:
        started = time.perf_counter()
        turns, ratings, luck = _rate(row.game)
        seconds = time.perf_counter() - started
    except Exception:
        GameAnalysis.objects.filter(pk=row.pk).update(status=GameAnalysis.Status.FAILED)
        live.room_moved(row.game.match.room_id)
        raise
    return _store(row, turns, ratings, luck, seconds)


def _rate(game: Game) -> tuple[list[Turn], list[analysis.Rating], analysis.GameLuck]:
    match = game.match
    turns = list(Turn.objects.filter(game__match=match).order_by("game__number", "number"))
    actions = [turn_action(turn) for turn in turns]
    wanted = [i for i, turn in enumerate(turns) if turn.game_id == game.pk]
    rules = MatchRules.from_json(match.room.rules)
    settings = evaluator.SETTINGS
    ratings = analysis.analyse(analysis.match_decisions(rules, actions, wanted), settings)
    luck = analysis.game_luck(rules, actions, wanted, settings.luck_level)
    return turns, ratings, luck


def _store(
    row: GameAnalysis,
    turns: list[Turn],
    ratings: list[analysis.Rating],
    luck: analysis.GameLuck,
    seconds: float,
) -> GameAnalysis:
    summaries = analysis.summarise(ratings)
    room_id = row.game.match.room_id  # read with the row (select_related)
    with transaction.atomic():
        row = GameAnalysis.objects.select_for_update().get(pk=row.pk)
        row.turns.all().delete()
        TurnAnalysis.objects.bulk_create(
            _turn_row(row, turns[rating.decision.index], rating) for rating in ratings
        )
        row.status = GameAnalysis.Status.DONE
        row.finished_at = clock.now()
        row.seconds = round(seconds, 3)
        row.summary = [summary.to_json() for summary in summaries]
        row.luck = _luck_json(luck, turns)
        row.save()
        # The boards of the room show the review's link: wake them (same pulse, new state).
        live.room_moved(room_id)
    return row


def _luck_json(luck: analysis.GameLuck, turns: list[Turn]) -> dict[str, object]:
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
    """Owe again the analyses RUNNING for longer than STUCK_AFTER; return how many.

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
            .filter(status=GameAnalysis.Status.RUNNING, started_at__lte=now - STUCK_AFTER)
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
