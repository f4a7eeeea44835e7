"""End to end: a turn commits, a real Celery worker takes the task from Redis,
and "Es tu turno" reaches an SMTP server on loopback with bob's seat link.

The worker is a separate process on the test's own database (a transactional
test, so what this process writes is committed and visible to it), a Redis
database of its own (flushed first; CI's run uses db 15) and an aiosmtpd
server on a free port.
"""

import os
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games import services, tasks
from games.engine import MatchRules
from games.lib import clock, deadlines
from tests.celery_worker import celery_worker
from tests.helpers import (
    REDIS_URL,
    Inbox,
    database_url_for_the_worker,
    free_port,
    redis_or_skip,
    seat_url,
    when_published,
)

SITE_URL = "https://mesa.example"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def smtp_server():
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()


def test_a_turn_commits_and_es_tu_turno_arrives_with_the_seat_link(dice, smtp_server, monkeypatch):
    from kombu import Connection

    broker = redis_or_skip()
    broker.flushdb()  # nothing left over from an earlier run
    inbox, port = smtp_server
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": database_url_for_the_worker(),
        "CELERY_BROKER_URL": REDIS_URL,
        "EMAIL_URL": f"smtp://127.0.0.1:{port}",
        "SITE_URL": SITE_URL,
        "SECRET_KEY": settings.SECRET_KEY,  # the seat link in the email is derived from it
    }
    # This process publishes the turn email to the worker's Redis, after a one-second
    # pause instead of a minute; the rest of the follow-up stays off every broker.
    monkeypatch.setattr(deadlines, "TURN_EMAIL_PAUSE", timedelta(seconds=1))
    for task in (tasks.opponent_joined_email, tasks.match_ended_email):
        when_published(monkeypatch, task, lambda *args: None)

    with Connection(REDIS_URL) as redis_connection, celery_worker(env) as worker:
        send_to_worker = tasks.turn_email.apply_async
        when_published(
            monkeypatch,
            tasks.turn_email,
            lambda *args: send_to_worker(args, connection=redis_connection),
        )
        # bob sat down an hour ago and left the board; alice plays her turn now.
        with clock.frozen(timezone.now() - timedelta(hours=1)) as frozen:
            alice = services.room_create(
                rules=MatchRules(), nickname="alice", email="alice@example.com"
            )
            dice.push((3, 1))
            bob = services.room_join(
                room=alice.room, nickname="bob", email="bob@example.com", email_consent=True
            )
            frozen.tick(timedelta(hours=1))
            services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])

        deadline = time.monotonic() + 60
        while not inbox.messages and time.monotonic() < deadline:
            assert worker.poll() is None, worker.stdout.read()
            time.sleep(0.2)
        time.sleep(0.5)  # a second message, if any, would arrive now
    broker.flushdb()

    assert len(inbox.messages) == 1, worker.output
    [message] = inbox.messages
    assert message["To"] == "bob@example.com"
    assert message["Subject"] == "Te toca contra alice en la partida simple"
    assert message["List-Unsubscribe"].strip().startswith(f"<{SITE_URL}/cuenta/correo/baja/")
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    link = SITE_URL + seat_url(alice.room, bob.mail_token())
    assert link in text and link in html
    assert "Task games.tasks.turn_email" in worker.output
