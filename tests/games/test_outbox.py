"""Follow-up work survives a broken broker (games.services.outbox).

A move, a join, a bot room: their follow-up task is a FollowUp row written in
the same transaction, published on commit when the broker answers and by the
follow-up sweep when it did not. Here the broker refuses every publish the way
kombu does when Redis is down; bench/chaos.py does it to a real Redis.
"""

from contextlib import contextmanager
from datetime import timedelta

import pytest
from celery import signals, states
from celery.app.task import Task
from django.db import connection, transaction
from django.urls import reverse
from kombu.exceptions import OperationalError as BrokerDown

from games import services, tasks
from games.engine import MatchRules
from games.lib import deadlines
from games.models import FollowUp, GameAnalysis, Match, Seat, Turn
from games.services import outbox
from tests.helpers import action_url, bind, current_match, play_out, post_json

OPENING_PLAY = [[8, 5], [6, 5]]


@pytest.fixture
def broker(monkeypatch):
    """The broker: `broker.down = True` makes every publish fail as a dead Redis does;
    `broker.lose = True` takes every message and loses it (Redis killed without
    persistence); otherwise every published task runs at once, as a worker would
    (`broker.ran`), with the message's headers and Celery's signals."""

    class Broker:
        down = False
        lose = False
        ran: list = []
        lost: list = []

    state = Broker()

    def apply_async(task, args=None, kwargs=None, **options):
        if state.down:
            raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        headers = dict(options.get("headers") or {})
        if state.lose:
            state.lost.append((task.name, tuple(args or ())))
            return None
        state.ran.append((task.name, tuple(args or ())))
        return task.apply(args, kwargs, headers=headers)

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
    match = current_match(room)
    assert owed.args == [match.pk, 2, match.turn_started_at.isoformat()]
    assert owed.published_at is None

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


def test_a_bot_whose_task_was_lost_gets_it_again_within_seconds(
    db, clock, dice, random_bots, broker, django_capture_on_commit_callbacks
):
    dice.push((1, 3))  # the bot starts
    # The process died between the commit and the publish: the callbacks never run.
    with django_capture_on_commit_callbacks(execute=False):
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
    FollowUp.objects.all().delete()  # and even its outbox row is gone
    match = current_match(seat.room)
    assert match.turn_seat.number == 2

    clock.tick(timedelta(seconds=9))
    assert tasks.nudge_stuck_bots() == 0  # not 10 s yet
    clock.tick(timedelta(seconds=1))
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


# --- published but never run: the broker lost its data ----------------------------------


def end_by_resignation(room, alice, bob, clock, django_capture_on_commit_callbacks):
    """alice resigns from the board; bob, away for an hour, is owed the end's email."""
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    Seat.objects.filter(pk=alice.seat.pk).update(email_consent=False)
    FollowUp.objects.all().delete()
    clock.tick(timedelta(hours=1))
    services.seat_seen(seat=alice.seat)
    with committing(django_capture_on_commit_callbacks):
        return services.match_resign(seat=alice.seat, version=1)


def owed_row(task):
    return FollowUp.objects.get(task=task)


def test_a_bot_turn_the_broker_lost_is_published_again_seconds_later(
    db, clock, dice, random_bots, broker, django_capture_on_commit_callbacks
):
    dice.push((1, 3))  # the bot opens: its turn is owed at once
    broker.lose = True  # ...and Redis takes the message, then dies empty
    with committing(django_capture_on_commit_callbacks):
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
    row = owed_row("games.tasks.bot_turn")
    assert broker.lost == [("games.tasks.bot_turn", tuple(row.args))]
    assert row.published_at == clock() and row.done_at is None
    assert row.due_at == clock() + timedelta(seconds=10)  # the bots' deadline

    clock.tick(timedelta(seconds=9))
    assert outbox.publish_due() == 0  # maybe still on its way
    broker.lose = False
    clock.tick(timedelta(seconds=1))
    with committing(django_capture_on_commit_callbacks):
        assert outbox.publish_due() == 1
    row.refresh_from_db()
    assert row.done_at == clock() and row.redrives == 1
    assert current_match(seat.room).turn_seat_id == seat.pk  # the bot played
    clock.tick(timedelta(hours=1))
    assert outbox.publish_due() == 0


def test_an_email_the_broker_lost_is_owed_within_minutes_and_sent_once(
    room, alice, bob, clock, broker, mailoutbox, django_capture_on_commit_callbacks
):
    broker.lose = True
    end_by_resignation(room, alice, bob, clock, django_capture_on_commit_callbacks)
    row = owed_row("games.tasks.match_ended_email")
    assert row.published_at is not None and row.done_at is None
    broker.lose = False

    clock.tick(timedelta(seconds=89))
    assert outbox.publish_due() == 0  # maybe still in the turn email's pause, or sending
    clock.tick(timedelta(seconds=1))
    assert outbox.publish_due() == 2  # the email, and the game's analysis lost with it
    [email] = mailoutbox
    assert email.to == ["bob@example.com"]
    row.refresh_from_db()
    assert row.done_at is not None and row.redrives == 1
    clock.tick(timedelta(hours=1))
    # Only the analysis's full pass is owed: its run, 90 s late, was the quick pass.
    assert outbox.publish_due() == 1 and len(mailoutbox) == 1


def test_each_queue_is_driven_again_soon_after_its_task_should_have_run(settings):
    sweep = outbox.sweep_every()
    # An email: after the turn email's pause and a slow server, within 2 minutes.
    mail = outbox.redrive_after("games.tasks.match_ended_email")
    assert mail == outbox.redrive_after("games.tasks.turn_email")
    pause, server = deadlines.TURN_EMAIL_PAUSE, timedelta(seconds=settings.EMAIL_TIMEOUT)
    assert pause + server <= mail and mail + sweep <= timedelta(minutes=2)
    analysis = outbox.redrive_after("games.tasks.analyse_game")
    assert analysis + sweep <= timedelta(minutes=2)
    # A bot's turn within 30 s, however often its worker is killed.
    bots = [outbox.redrive_after("games.tasks.bot_turn", n) for n in range(8)]
    assert all(wait + sweep <= timedelta(seconds=30) for wait in bots), bots
    # A bot's turn lost with its worker is nudged soon, leaving time for the restart.
    nudge = timedelta(seconds=settings.CELERY_BEAT_SCHEDULE["nudge-stuck-bots"]["schedule"])
    assert settings.BOT_STUCK_AFTER + nudge <= timedelta(seconds=15)


def worker_died_before_marking(row):
    """The task ran and did its work; the worker died before it marked the row done."""
    row.refresh_from_db()
    assert row.done_at is not None
    FollowUp.objects.filter(pk=row.pk).update(done_at=None)


def test_a_bot_turn_that_ran_and_is_driven_again_does_nothing_twice(
    db, clock, dice, random_bots, broker, django_capture_on_commit_callbacks
):
    dice.push((1, 3))
    with committing(django_capture_on_commit_callbacks):
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
    row = owed_row("games.tasks.bot_turn")
    worker_died_before_marking(row)
    match = current_match(seat.room)
    turns = Turn.objects.count()
    assert match.turn_seat_id == seat.pk

    clock.tick(timedelta(seconds=31))
    with committing(django_capture_on_commit_callbacks):
        assert outbox.publish_due() == 1
    assert broker.ran[-1] == ("games.tasks.bot_turn", tuple(row.args))
    assert Turn.objects.count() == turns  # the version had moved on: "stale"
    assert current_match(seat.room).version == match.version
    row.refresh_from_db()
    assert row.done_at is not None


def test_an_email_that_was_sent_and_is_driven_again_is_not_sent_twice(
    room, alice, bob, clock, broker, mailoutbox, django_capture_on_commit_callbacks
):
    end_by_resignation(room, alice, bob, clock, django_capture_on_commit_callbacks)
    assert len(mailoutbox) == 1
    worker_died_before_marking(owed_row("games.tasks.match_ended_email"))

    clock.tick(timedelta(minutes=11))
    assert outbox.publish_due() == 1
    assert broker.ran[-1][0] == "games.tasks.match_ended_email"
    assert len(mailoutbox) == 1  # the claim "ended:<match>:<seat>" was taken


def test_an_analysis_done_and_driven_again_is_not_redone(
    room, alice, bob, clock, broker, fast_analysis, django_capture_on_commit_callbacks
):
    with committing(django_capture_on_commit_callbacks):
        play_out(room, alice, bob)
    analysis = GameAnalysis.objects.get()
    assert analysis.status == GameAnalysis.Status.DONE
    stored = (analysis.finished_at, sorted(analysis.turns.values_list("pk", flat=True)))
    worker_died_before_marking(owed_row("games.tasks.analyse_game"))

    clock.tick(timedelta(minutes=11))
    assert outbox.publish_due() >= 1
    assert ("games.tasks.analyse_game", (analysis.pk,)) in broker.ran[-3:]
    analysis.refresh_from_db()
    assert (analysis.finished_at, sorted(analysis.turns.values_list("pk", flat=True))) == stored


def test_an_analysis_running_elsewhere_is_left_to_it_one_left_by_a_dead_worker_is_run(
    room, alice, bob, clock, broker, fast_analysis, django_capture_on_commit_callbacks
):
    broker.lose = True
    with committing(django_capture_on_commit_callbacks):
        play_out(room, alice, bob)
    analysis = GameAnalysis.objects.get()
    GameAnalysis.objects.filter(pk=analysis.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock()
    )
    clock.tick(timedelta(seconds=50))
    assert tasks.analyse_game(analysis.pk) == "running"  # another worker is on it
    clock.tick(services.analysis.stuck_after())
    # That one was killed: run, late by now, so its quick pass first.
    assert tasks.analyse_game(analysis.pk) == "deferred"


def test_re_drives_back_off_then_the_row_is_a_dead_letter_until_it_runs(
    db, clock, broker, settings
):
    settings.FOLLOW_UP_REDRIVES_MAX = 3
    broker.lose = True  # a broker that loses everything it is given
    row = outbox.defer("games.tasks.bot_turn", 12345, 1, until=clock())
    clock.tick(outbox.sweep_every())
    assert outbox.publish_due() == 1  # the first publish
    waits = []
    for _ in range(3):
        row.refresh_from_db()
        waits.append(row.due_at - clock())
        clock.tick(row.due_at - clock())
        assert outbox.publish_due() == 1  # published again, not done
    row.refresh_from_db()
    waits.append(row.due_at - clock())
    assert [wait.total_seconds() for wait in waits] == [10, 20, 20, 20]  # a bot's, capped
    assert row.redrives == 3 and row.failed_at is None
    clock.tick(row.due_at - clock())
    assert outbox.publish_due() == 0
    row.refresh_from_db()
    assert row.failed_at is not None and "never ran" in row.error  # in the admin's dead letters
    assert len(broker.lost) == 4

    assert outbox.mark_done(row.pk)  # a late copy ran after all: no dead letter
    row.refresh_from_db()
    assert row.failed_at is None and row.done_at is not None
    assert outbox.publish_due() == 0


def test_a_task_marks_its_row_done_when_it_ends_not_when_it_retries(db, clock):
    row = outbox.defer("games.tasks.bot_turn", 12345, 1, until=clock())
    tasks.bot_turn.push_request(headers={outbox.HEADER: str(row.pk)})
    try:
        tasks._follow_up_done(task=tasks.bot_turn, state=states.RETRY)
        row.refresh_from_db()
        assert row.done_at is None  # the retry's message carries the header on
        tasks._follow_up_done(task=tasks.bot_turn, state=states.FAILURE)
        row.refresh_from_db()
        assert row.done_at == clock()
    finally:
        tasks.bot_turn.pop_request()
    # A task run without the header (beat's sweeps, a nudge) touches no row.
    other = outbox.defer("games.tasks.bot_turn", 12345, 2, until=clock())
    assert tasks.bot_turn.apply((12345, 2)).get() == "stale"
    other.refresh_from_db()
    assert other.done_at is None


def test_the_real_publish_names_the_row_in_the_messages_headers(db, clock):
    sent = []

    def keep(headers=None, **kwargs):
        sent.append(dict(headers or {}))

    row = outbox.defer("games.tasks.match_ended_email", 12345, until=clock())
    signals.after_task_publish.connect(keep, weak=False)
    try:
        assert outbox.publish(row)  # Celery's own publish, to the test broker
        clock.tick(outbox.sweep_every())
        FollowUp.objects.filter(pk=row.pk).update(due_at=clock())
        assert outbox.publish_due() == 1
    finally:
        signals.after_task_publish.disconnect(keep)
    assert [headers.get(outbox.HEADER) for headers in sent] == [str(row.pk)] * 2
    assert [headers["task"] for headers in sent] == ["games.tasks.match_ended_email"] * 2


def test_the_sweep_reads_the_rows_not_done_through_their_index_on_postgresql(db, clock):
    if connection.vendor != "postgresql":
        pytest.skip("EXPLAIN output differs on SQLite")
    outbox.defer("games.tasks.bot_turn", 12345, 1, until=clock())
    query = FollowUp.objects.select_for_update(skip_locked=True)
    with connection.cursor() as cursor, transaction.atomic():
        cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table would be scanned anyway
        plan = outbox.owed_rows(query, clock()).explain()
    assert "followup_owed_idx" in plan, plan
