"""Redis killed without persistence while work is queued, restarted empty: nothing stranded.

Real processes: a Redis of the test's own (no RDB, no AOF: a restart comes
back empty), one Celery worker on every queue, an SMTP server on loopback,
the test's database. The worker is frozen (SIGSTOP) while bot turns, emails
and analyses are owed, so their messages sit in Redis; Redis is SIGKILLed and
started again empty, the same worker goes on (SIGCONT) against it, and the
follow-up sweep, run here as beat would run it once the deadlines passed,
re-drives what was published but never ran. Every owed bot turn, email and
analysis is then done exactly once; a task that had run before the kill but
whose "done" was lost is driven again and does nothing.
"""

import os
import signal
import time
from collections import Counter
from datetime import timedelta

import pytest
from celery.app.task import Task
from django.conf import settings
from django.utils import timezone

from games import services
from games.analysis import QUICK_SUFFIX
from games.engine import MatchRules
from games.lib import clock
from games.models import FollowUp, GameAnalysis, Match, Seat, Turn
from games.services import outbox
from tests.celery_worker import celery_worker
from tests.helpers import Inbox, current_match, database_url_for_the_worker, free_port
from tests.private_redis import PrivateRedis

pytestmark = pytest.mark.django_db(transaction=True)

BOT_ROOMS, PEOPLE_ROOMS = 3, 2


@pytest.fixture
def smtp_sink():
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()


def wait_until(condition, worker, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        assert worker.poll() is None, f"the worker exited while waiting for {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}: {not_done()}"
        time.sleep(0.2)


def not_done():
    return [(row.task, row.args, row.redrives) for row in FollowUp.objects.filter(done_at=None)]


def bot_room(dice):
    dice.push((1, 3))  # the computer opens: its turn is owed at once
    return services.room_create(rules=MatchRules(), nickname="ana", bot="domador").room


def bot_turns(room) -> int:
    return Turn.objects.filter(game__match__room=room, seat__number=2).count()


def people_room(dice, n):
    """Two people, both mailed: "someone sat down" for the host, then the host
    resigns and each is told how it ended: three emails and one analysis."""
    host = services.room_create(
        rules=MatchRules(), nickname=f"eva{n}", email=f"eva{n}@example.com", email_consent=True
    )
    dice.push((3, 1))  # the host opens
    services.room_join(
        room=host.room, nickname=f"leo{n}", email=f"leo{n}@example.com", email_consent=True
    )
    # Neither watched the join or the end (the clock stands still here: they
    # would have been on the board at that very moment): they left long before.
    Seat.objects.filter(room=host.room).update(last_seen_at=clock.now() - timedelta(hours=1))
    services.match_resign(seat=host, version=current_match(host.room).version)
    return host.room


def test_a_broker_that_loses_its_data_strands_no_bot_turn_email_or_analysis(
    dice, smtp_sink, monkeypatch
):
    from kombu import Connection

    inbox, smtp_port = smtp_sink
    with PrivateRedis() as redis:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DATABASE_URL": database_url_for_the_worker(),
            "CELERY_BROKER_URL": redis.url,
            "EMAIL_URL": f"smtp://127.0.0.1:{smtp_port}",
            "SECRET_KEY": settings.SECRET_KEY,
        }
        # Everything this process publishes goes to the private Redis, on a
        # fresh connection each time (one from before the restart is dead).
        publish = Task.apply_async

        def to_the_private_redis(task, args=None, kwargs=None, **options):
            with Connection(redis.url) as broker:
                return publish(task, args, kwargs, connection=broker, **options)

        monkeypatch.setattr(Task, "apply_async", to_the_private_redis)
        with celery_worker(env) as worker:
            # A bot's turn that ran before the kill, whose "done" was lost.
            ran = bot_room(dice)
            wait_until(lambda: bot_turns(ran) == 1, worker, 60, "the first bot turn")
            [ran_row] = FollowUp.objects.filter(task="games.tasks.bot_turn")
            wait_until(
                lambda: FollowUp.objects.get(pk=ran_row.pk).done_at is not None,
                worker,
                10,
                "the first bot turn to be marked done",
            )
            FollowUp.objects.filter(pk=ran_row.pk).update(done_at=None)

            worker.send_signal(signal.SIGSTOP)  # frozen: what follows stays queued
            try:
                # The people left the board an hour ago (so they are mailed).
                with clock.frozen(timezone.now() - timedelta(hours=1)):
                    bots = [bot_room(dice) for _ in range(BOT_ROOMS)]
                    people = [people_room(dice, n) for n in range(PEOPLE_ROOMS)]
                owed = FollowUp.objects.filter(done_at=None, failed_at=None)
                assert owed.count() > BOT_ROOMS + 3 * PEOPLE_ROOMS
                assert not owed.filter(published_at=None).exists()  # all handed to Redis
                assert redis.client().dbsize() > 0

                redis.restart_empty()  # SIGKILL, no persistence: every message is gone
                assert redis.client().dbsize() == 0
            finally:
                worker.send_signal(signal.SIGCONT)

            # Beat's follow-up sweep, once the longest deadline (10 min) has passed.
            lost = list(owed.values_list("pk", flat=True))  # ran_row among them
            later = timezone.now() + timedelta(minutes=11)
            with clock.frozen(later):
                assert outbox.publish_due() == len(lost)

            emails = 3 * PEOPLE_ROOMS
            analyses = GameAnalysis.objects.filter(game__match__room__in=people)
            # Asked for an hour ago: each game's quick pass first, then its full one.
            full = analyses.exclude(version__endswith=QUICK_SUFFIX)
            wait_until(
                lambda: (
                    all(bot_turns(room) == 1 for room in bots)
                    and len(inbox.messages) >= emails
                    and full.filter(status=GameAnalysis.Status.DONE).count() == PEOPLE_ROOMS
                    and not FollowUp.objects.filter(pk__in=lost, done_at=None).exists()
                ),
                worker,
                50,
                "every owed follow-up",
            )
            # What was lost is done: much later the sweep re-drives none of it
            # (only the bots' new "Es tu turno", still in its 60 s pause, is not done).
            with clock.frozen(later + timedelta(hours=1)):
                outbox.publish_due()
            assert not FollowUp.objects.filter(pk__in=lost, redrives__gt=1).exists()
            time.sleep(1)  # a second copy of anything would arrive now

    output = worker.output
    for room in [ran, *bots]:
        assert bot_turns(room) == 1, output  # each bot turn played once
        match = current_match(room)
        assert match.turn_seat.number == 1 and match.status == Match.Status.PLAYING
    received = Counter((message["To"], message["Subject"]) for message in inbox.messages)
    assert len(received) == emails and set(received.values()) == {1}, received
    for n in range(PEOPLE_ROOMS):
        assert {to for to, _ in received} >= {f"eva{n}@example.com", f"leo{n}@example.com"}
    analysed = [
        line for line in output.splitlines() if "analyse_game[" in line and "succeeded" in line
    ]
    # Each ran once at each depth: the quick pass (its row then deferred), the full one.
    results = Counter(line.rsplit(": ", 1)[1] for line in analysed)
    assert results == {"'deferred'": PEOPLE_ROOMS, "'done'": PEOPLE_ROOMS}, output
    assert analyses.filter(status=GameAnalysis.Status.DONE).count() == 2 * PEOPLE_ROOMS
    assert "'stale'" in output  # the bot turn driven again found its version moved on
