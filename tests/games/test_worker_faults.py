"""A real worker killed between the bot's commit and its publish (SIGKILL).

Before the outbox, the bot's next task was published after the commit by
the worker itself: killed in between, the game waited for a bot that was
never asked again. Now the follow-up row commits with the move, and the
follow-up sweep hands it to the next worker.

Real worker processes on Redis db 11 (flushed), on the test's own database,
as in test_correspondence_worker.
"""

import os
import time
from datetime import timedelta

import pytest
from celery.app.task import Task
from django.utils import timezone

from games import services, tasks
from games.engine import Format, MatchRules
from games.lib import clock
from games.models import FollowUp, Match
from tests.celery_worker import celery_worker
from tests.helpers import (
    REDIS_URL,
    current_match,
    database_url_for_the_worker,
    redis_or_skip,
)

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(condition, worker, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        if worker.poll() is not None:
            return
        time.sleep(0.2)


def test_a_worker_killed_between_the_bots_commit_and_its_publish_leaves_no_game_stuck(
    dice, monkeypatch
):
    from kombu import Connection

    broker = redis_or_skip()
    broker.flushdb()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": database_url_for_the_worker(),
        "CELERY_BROKER_URL": REDIS_URL,
        "EMAIL_URL": "consolemail://",
    }
    with Connection(REDIS_URL) as redis:
        publish = Task.apply_async
        monkeypatch.setattr(
            Task,
            "apply_async",
            lambda task, args=None, kwargs=None, **options: publish(
                task, args, kwargs, connection=redis, **options
            ),
        )
        # A match to 3 against the computer: with the cube in play the bot
        # first rolls (one task, one commit), then owes its move (the next).
        dice.push((3, 1))  # alice opens
        seat = services.room_create(
            rules=MatchRules(format=Format.MATCH, length=3), nickname="alice", bot="domador"
        )
        room = seat.room
        with celery_worker(env, app="tests.dying_worker") as worker:
            services.game_play(seat=seat, version=1, play=[[8, 5], [6, 5]])
            worker.wait(timeout=60)  # it dies at the bot's publish
        assert worker.returncode == -9, worker.output
        match = current_match(room)
        assert match.version > 2  # the bot's action committed
        owed = FollowUp.objects.filter(published_at=None, created_at__gte=match.created_at)
        assert owed.exists()  # ...and what it owes waits in the outbox

        with celery_worker(env) as worker:
            # Beat's follow-up sweep, a minute on, in this process.
            with clock.frozen(timezone.now() + timedelta(minutes=2)):
                assert tasks.publish_follow_ups() >= 1
            wait_for(lambda: current_match(room).turn_seat_id == seat.pk, worker)
    broker.flushdb()

    match = current_match(room)
    assert match.turn_seat_id == seat.pk or match.status == Match.Status.FINISHED, worker.output
    assert "Task games.tasks.bot_turn" in worker.output
