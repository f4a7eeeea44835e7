"""The beat sweeps over days of injected time: each thing happens exactly once.

Two rooms from the same Monday morning. In the first, alice is on turn and
bob waits; in the second, eva is on turn and fede, waiting, chooses to keep
waiting once the deadline came (the only time he may). Everyone consented to
mail. Every sweep runs twice each time.
"""

import smtplib
from collections import Counter
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection

from games import services, tasks
from games.engine import MatchRules
from games.mail import claims
from games.models import FollowUp, Match, Room, Seat, Turn
from games.selectors import due
from tests.helpers import current_match, sent, when_published

SWEEPS = (
    tasks.send_absence_reminders,
    tasks.close_absent_games,
    tasks.send_absence_claimable,
    tasks.expire_idle_rooms,
)


@pytest.fixture
def sweep(django_capture_on_commit_callbacks, monkeypatch):
    """Run every sweep twice, and the emails they schedule on commit, as a worker would."""
    for task in (tasks.match_ended_email, tasks.turn_email, tasks.opponent_joined_email):
        when_published(monkeypatch, task, task)

    def run():
        done = Counter()
        for _ in range(2):
            for task in SWEEPS:
                with django_capture_on_commit_callbacks(execute=True):
                    done[task.name.rsplit(".", 1)[1]] += task()
        return +done  # only what happened

    return run


@pytest.fixture
def second_room(room, dice, bob):
    dice.push((3, 1))
    eva = services.room_create(
        rules=MatchRules(), nickname="eva", email="eva@example.com", email_consent=True
    )
    services.room_join(room=eva.room, nickname="fede", email="fede@example.com", email_consent=True)
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    return eva.room


def fede_keeps_waiting(room):
    """fede, waiting in the second room, chooses to keep waiting (from 48 h on)."""
    fede = Seat.objects.get(room=room, number=2)
    services.absence_keep_waiting(seat=fede, version=current_match(room).version)


def test_the_reminder_the_absence_closure_and_the_expiry_each_happen_once(
    room, second_room, clock, sweep, mailoutbox
):
    clock.tick(timedelta(hours=23, minutes=50))
    assert sweep() == {}
    assert mailoutbox == []

    # 24 h: the players on turn are reminded, once.
    clock.tick(timedelta(minutes=10))
    assert sweep() == {"send_absence_reminders": 2}
    assert sent(mailoutbox) == {
        ("alice@example.com", "Te quedan 24 horas para jugar contra bob"): 1,
        ("eva@example.com", "Te quedan 24 horas para jugar contra fede"): 1,
    }
    mailoutbox.clear()

    # 48 h: alice's game closes by absence; fede kept waiting and is told he may close.
    clock.tick(timedelta(hours=24))
    fede_keeps_waiting(second_room)
    assert sweep() == {"close_absent_games": 1, "send_absence_claimable": 1}
    match = current_match(room)
    assert match.status == Match.Status.FINISHED and match.winner_side == 1
    assert Turn.objects.filter(game__match=match, kind="forfeit").count() == 1
    assert current_match(second_room).status == Match.Status.PLAYING
    assert sent(mailoutbox) == {
        ("alice@example.com", "Terminó la partida contra bob"): 1,
        ("bob@example.com", "Terminó la partida contra alice"): 1,
        ("fede@example.com", "Ya puedes cerrar la partida contra eva"): 1,
    }
    [to_bob] = [email for email in mailoutbox if email.to == ["bob@example.com"]]
    assert "Ganaste contra alice por ausencia" in to_bob.body
    mailoutbox.clear()

    # A few days on: nothing new until the seventh day after fede's choice, the
    # room's last move.
    clock.tick(timedelta(days=6, hours=23))
    assert sweep() == {}

    # 7 days: the second room expires with no winner; the first one is over already.
    clock.tick(timedelta(hours=1))
    assert sweep() == {"expire_idle_rooms": 1}
    second_room.refresh_from_db()
    assert second_room.status == Room.Status.EXPIRED
    assert current_match(second_room).winner_side is None
    assert sent(mailoutbox) == {
        ("eva@example.com", "Terminó la partida contra fede"): 1,
        ("fede@example.com", "Terminó la partida contra eva"): 1,
    }
    assert "caducó" in mailoutbox[0].body

    clock.tick(timedelta(days=30))
    assert sweep() == {}


def test_a_turn_played_before_the_reminder_starts_its_own_clock(
    room, alice, bob, clock, sweep, mailoutbox
):
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    clock.tick(timedelta(hours=20))
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    clock.tick(timedelta(hours=20))
    assert sweep() == {}  # alice played in time; bob's turn is 20 h old
    clock.tick(timedelta(hours=4))
    assert sweep() == {"send_absence_reminders": 1}
    assert sent(mailoutbox) == {
        ("bob@example.com", "Te quedan 24 horas para jugar contra alice"): 1
    }


@pytest.mark.parametrize(
    "query",
    [
        pytest.param(due.absence_claimable_matches, id="absence-claimable"),
        pytest.param(lambda: due.digest_page(after=0)[:200], id="digest"),
    ],
)
def test_the_mail_sweeps_read_matches_through_an_index_on_postgresql(room, query):
    if connection.vendor != "postgresql":
        pytest.skip("EXPLAIN output differs on SQLite")
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")  # a tiny table would be scanned anyway
        plan = query().explain()
        cursor.execute("SET enable_seqscan = on")
    assert "Seq Scan on games_match" not in plan, plan


@pytest.mark.parametrize(
    ("task", "after", "due"),
    [
        (tasks.send_absence_reminders, timedelta(hours=24), 2),  # alice and eva
        (tasks.send_absence_claimable, timedelta(hours=48), 1),  # fede kept waiting
    ],
)
def test_a_failed_sweep_email_is_sent_by_the_retry(
    second_room, clock, mailoutbox, task, after, due
):
    clock.tick(after)
    if task is tasks.send_absence_claimable:
        fede_keeps_waiting(second_room)
    refused = smtplib.SMTPServerDisconnected("the server went away")
    with mock.patch("games.mail.messages.send_templated_mail", side_effect=refused):
        assert task() == 0
    assert mailoutbox == []
    # The sweep waits in the outbox for its retry, with its claims released.
    [retry] = FollowUp.objects.filter(task=task.name)
    assert retry.kwargs == {"attempt": 1} and retry.due_at > clock()
    assert task(*retry.args, **retry.kwargs) == due
    assert len(mailoutbox) == due


def _play_right_after_the_claim(monkeypatch, room, number):
    """The player of seat `number` plays between the sweep's claim and its email."""
    real = claims.claim_turn_field

    def claim_then_play(*args, **kwargs):
        claim = real(*args, **kwargs)
        seat = Seat.objects.get(room=room, number=number)
        version = current_match(room).version
        services.game_play(seat=seat, version=version, play=[[8, 5], [6, 5]])
        return claim

    monkeypatch.setattr(claims, "claim_turn_field", claim_then_play)


def test_a_reminder_whose_turn_was_played_meanwhile_goes_to_nobody(
    room, bob, clock, monkeypatch, mailoutbox
):
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    clock.tick(timedelta(hours=24))
    _play_right_after_the_claim(monkeypatch, room, 1)  # alice plays: bob is on turn now
    assert tasks.send_absence_reminders() == 0
    assert mailoutbox == []


def test_a_may_close_email_whose_turn_was_played_meanwhile_goes_to_nobody(
    second_room, clock, monkeypatch, mailoutbox
):
    clock.tick(timedelta(hours=48))
    fede_keeps_waiting(second_room)
    _play_right_after_the_claim(monkeypatch, second_room, 1)  # eva plays: fede is on turn
    assert tasks.send_absence_claimable() == 0
    assert mailoutbox == []
