"""Follow-up work survives a broken broker (games.services.outbox).

A move, a join, a bot room: their follow-up task is a FollowUp row written in
the same transaction, published on commit when the broker answers and by the
follow-up sweep when it did not. Here the broker refuses every publish the way
kombu does when Redis is down; bench/chaos.py does it to a real Redis.
"""

from contextlib import contextmanager
from datetime import timedelta

import pytest
from celery.app.task import Task
from django.urls import reverse
from kombu.exceptions import OperationalError as BrokerDown

from games import services, tasks
from games.engine import MatchRules
from games.models import FollowUp, Match, Seat
from games.services import outbox
from tests.helpers import action_url, bind, current_match, post_json

OPENING_PLAY = [[8, 5], [6, 5]]


@pytest.fixture
def broker(monkeypatch):
    """The broker: `broker.down = True` makes every publish fail as a dead Redis does;
    while up, every published task runs at once, as a worker would (`broker.ran`)."""

    class Broker:
        down = False
        ran: list = []

    state = Broker()

    def apply_async(task, args=None, kwargs=None, **options):
        if state.down:
            raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        state.ran.append((task.name, tuple(args or ())))
        return task(*(args or ()), **(kwargs or {}))

    monkeypatch.setattr(Task, "apply_async", apply_async)
    return state


@contextmanager
def committing(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        yield


def sweep(clock):
    """A minute later, beat's follow-up sweep and the bot sweep run."""
    clock.tick(timedelta(minutes=1, seconds=1))
    return tasks.publish_follow_ups() + tasks.nudge_stuck_bots()


def test_a_move_with_the_broker_down_is_saved_answered_and_its_email_sent_later(
    room, alice, bob, clock, broker, mailoutbox, django_capture_on_commit_callbacks
):
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    FollowUp.objects.all().delete()  # what the setup owed
    bind(alice, room)
    clock.tick(timedelta(hours=1))  # bob left the board long ago
    broker.down = True
    with committing(django_capture_on_commit_callbacks):
        response = post_json(
            alice.client,
            action_url(room, "play"),
            {"version": 1, "play": OPENING_PLAY},
        )
    assert response.status_code == 200
    assert response.json()["version"] == 2  # the answer is the saved state
    [owed] = FollowUp.objects.filter(task="games.tasks.turn_email")
    assert owed.args == [current_match(room).pk, 2] and owed.published_at is None

    assert sweep(clock) == 0  # still down: the row waits
    assert mailoutbox == []
    broker.down = False
    assert sweep(clock) == 1
    [email] = mailoutbox
    assert email.to == ["bob@example.com"]
    owed.refresh_from_db()
    assert owed.published_at is not None
    assert sweep(clock) == 0  # published once


def test_a_join_and_a_bot_room_with_the_broker_down_keep_their_seat(
    db, clock, dice, broker, random_bots, django_capture_on_commit_callbacks, client
):
    broker.down = True
    dice.push((1, 3))  # the bot opens: its first turn is owed at once
    with committing(django_capture_on_commit_callbacks):
        created = post_json(
            client, reverse("games:api_create"), {"nickname": "ana", "bot": "chofer"}
        )
    assert created.status_code == 201
    slug = created.json()["room"]["slug"]
    # The browser holds its seat: the room is not orphaned.
    assert client.get(reverse("games:api_state", args=[slug])).json()["viewer"]["seat"] == 1

    host = services.room_create(rules=MatchRules(), nickname="eva", email="eva@example.com")
    guest = client.__class__()
    with committing(django_capture_on_commit_callbacks):
        joined = post_json(
            guest, reverse("games:api_join", args=[host.room.slug]), {"nickname": "leo"}
        )
    assert joined.status_code == 200
    assert joined.json()["viewer"]["seat"] == 2

    broker.down = False
    sweep(clock)
    names = [name for name, _args in broker.ran]
    assert "games.tasks.opponent_joined_email" in names
    # The bot opened; it has played by now and handed the turn to ana.
    assert Match.objects.get(room__slug=slug).turn_seat.number == 1


def test_a_bot_whose_task_was_lost_gets_it_again_after_a_minute(
    db, clock, dice, random_bots, broker, django_capture_on_commit_callbacks
):
    dice.push((1, 3))  # the bot starts
    # The process died between the commit and the publish: the callbacks never run.
    with django_capture_on_commit_callbacks(execute=False):
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
    FollowUp.objects.all().delete()  # and even its outbox row is gone
    match = current_match(seat.room)
    assert match.turn_seat.number == 2

    clock.tick(timedelta(seconds=30))
    assert tasks.nudge_stuck_bots() == 0  # not a minute yet
    with committing(django_capture_on_commit_callbacks):
        assert sweep(clock) >= 1
    match.refresh_from_db()
    assert match.turn_seat_id == seat.pk  # the bot played and handed the turn back


def test_the_sweep_publishes_each_row_once_and_forgets_old_ones(db, clock, broker):
    row = outbox.defer("games.tasks.match_ended_email", 12345, until=clock())
    assert sweep(clock) == 1 and sweep(clock) == 0
    row.refresh_from_db()
    assert row.published_at is not None
    clock.tick(outbox.KEEP_PUBLISHED)
    sweep(clock)
    assert not FollowUp.objects.filter(pk=row.pk).exists()


def test_a_mail_retry_row_goes_through_the_real_publish(db, clock, settings):
    # Celery checks arguments against the task's function when publishing;
    # `attempt` belongs to the mail task's machinery, not to the function. A
    # refused publish would turn the row into a dead letter (failed_at).
    error = ConnectionRefusedError("the mail server is away")
    rows = [
        outbox.retry_later("games.tasks.match_ended_email", (1,), attempt=3, error=error),
        outbox.retry_later("games.tasks.turn_email", (1, 2), attempt=1, error=error),
    ]
    assert [row.kwargs for row in rows] == [{"attempt": 3}, {"attempt": 1}]
    assert outbox.publish_due() == 0  # not due before the backoff
    clock.tick(timedelta(seconds=2 * settings.MAIL_RETRY_MAX_SECONDS) + outbox.sweep_every())
    assert outbox.publish_due() == 2  # not the mocked broker: Celery's own apply_async
    for row in rows:
        row.refresh_from_db()
        assert row.published_at is not None and row.failed_at is None, row.error


def test_a_row_that_cannot_be_published_is_set_aside_not_blocking_the_rest(db, clock, broker):
    bad = outbox.defer("games.tasks.no_such_task", 1, until=clock())
    good = outbox.defer("games.tasks.match_ended_email", 12345, until=clock())
    assert sweep(clock) == 1
    bad.refresh_from_db(), good.refresh_from_db()
    assert bad.failed_at is not None and "no_such_task" in bad.error
    assert good.published_at is not None
