"""Two workers running the same sweep or mail task at the same moment, on PostgreSQL.

Each thread has its own connection and transactions that really commit. The
row locks (the sweeps wait on them, the seat rows for "Es tu turno") and the
SentEmail keys must close each absent game once and send each email once.
"""

from datetime import timedelta

import pytest

from games import services, tasks
from games.engine import MatchRules
from games.models import Match, Seat, Turn
from tests.helpers import needs_postgresql, race, sent, when_published

pytestmark = needs_postgresql("SQLite has no row locks and no SKIP LOCKED")

ROOMS = 6


@pytest.fixture(autouse=True)
def mail_inline(monkeypatch):
    """Keep the follow-up off the broker; the end of a game is mailed at once, in the thread."""
    for task in (tasks.turn_email, tasks.opponent_joined_email, tasks.bot_turn):
        when_published(monkeypatch, task, lambda *args: None)
    when_published(monkeypatch, tasks.match_ended_email, tasks.match_ended_email)


@pytest.fixture
def tables(db, clock, dice):
    """ROOMS rooms opened at the same minute; each host is on turn, both players consented."""
    hosts = []
    for number in range(ROOMS):
        host = services.room_create(
            rules=MatchRules(),
            nickname=f"host{number}",
            email=f"host{number}@example.com",
            email_consent=True,
        )
        dice.push((3, 1))
        services.room_join(
            room=host.room,
            nickname=f"guest{number}",
            email=f"guest{number}@example.com",
            email_consent=True,
        )
        hosts.append(host)
    return hosts


def test_two_reminder_sweeps_at_once_remind_each_player_once(tables, clock, mailoutbox):
    clock.tick(timedelta(hours=24))
    outcomes = race(tasks.send_absence_reminders, tasks.send_absence_reminders)

    assert sum(outcomes) == ROOMS, outcomes
    assert sent(mailoutbox) == {
        (f"host{n}@example.com", f"Te quedan 24 horas para jugar contra guest{n}"): 1
        for n in range(ROOMS)
    }


def test_two_absence_sweeps_at_once_close_each_game_once_and_mail_each_end_once(
    tables, clock, mailoutbox
):
    clock.tick(timedelta(hours=48))
    outcomes = race(tasks.close_absent_games, tasks.close_absent_games)

    assert sum(outcomes) == ROOMS, outcomes
    assert Match.objects.filter(status=Match.Status.FINISHED, winner_side=1).count() == ROOMS
    assert Turn.objects.filter(kind="forfeit").count() == ROOMS
    expected = {}
    for n in range(ROOMS):
        expected[(f"host{n}@example.com", f"Terminó la partida contra guest{n}")] = 1
        expected[(f"guest{n}@example.com", f"Terminó la partida contra host{n}")] = 1
    assert sent(mailoutbox) == expected


def test_two_digest_runs_at_once_send_each_address_one_digest(tables, clock, mailoutbox):
    Seat.objects.filter(number=1).update(notify=Seat.Notify.DAILY)
    clock.tick(timedelta(hours=12))
    outcomes = race(*[lambda: tasks.send_daily_digests(batch=2)] * 2)

    assert sum(outcomes) == ROOMS, outcomes
    assert sent(mailoutbox) == {
        (f"host{n}@example.com", "Tu resumen del día en Mesa"): 1 for n in range(ROOMS)
    }


def test_turn_emails_for_one_address_at_once_make_one_message(tables, clock, mailoutbox):
    # Every host plays under one address; three of their games call the task at once.
    Seat.objects.filter(number=1).update(email="same@example.com")
    clock.tick(timedelta(hours=3))
    matches = list(Match.objects.order_by("pk")[:3])
    outcomes = race(*[lambda m=m: tasks.turn_email(m.pk, m.version) for m in matches])

    assert sorted(outcomes) == [False, False, True], outcomes
    [email] = mailoutbox
    assert email.subject == f"Es tu turno en {ROOMS} partidas de Mesa"
