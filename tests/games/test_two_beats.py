"""Two beats at once: every sweep and periodic email at most once per key, and
nothing owed skipped (with two beats, one run sent 12 emails nobody was
owed, another never sent 3 of 43).

Each test reproduces one cause, found in the code:

- the reminder's claim named the turn, not the deadline it reminds of: a
  vacation that moved the deadline after the reminder left the new deadline
  with none;
- skip_locked let a row go that another transaction held, and the holder did
  not do the skipper's part: a vacation started while a sweep held a match
  never wrote that match's new deadline (so its reminder never came), and a
  reminder sweep passed over a match the absence sweep was looking at, on its
  last run before the deadline;
- "someone sat down" marked the turn it announces as told only after sending,
  outside its claim, so "Es tu turno" for that turn, claimed meanwhile, went
  out as well.

The race tests need PostgreSQL (row locks); a thread holding a row lock
stands for the other beat's sweep.
"""

import importlib
import threading
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.db.models import F

from games import services, tasks
from games.engine import MatchRules
from games.mail import messages
from games.models import FollowUp, Match, Seat
from games.selectors import due
from games.services.vacations import vacation_start
from tests.helpers import current_match, first_legal_play, make_player, needs_postgresql, sent

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
ROOMS = 4


def on_postgresql(test):
    for mark in needs_postgresql("row locks and SKIP LOCKED"):
        test = mark(test)
    return test


def reminders(mailoutbox, opponent="ana"):
    subject = f"Te quedan 24 horas para jugar contra {opponent}"
    return [message for message in mailoutbox if message.subject == subject]


class Holder(threading.Thread):
    """The other beat's sweep: holds the match's row lock, as every sweep takes it
    (due.lock_for_sweep), until told to let go, and writes nothing."""

    def __init__(self, match_id: int):
        super().__init__(daemon=True)
        self.match_id = match_id
        self.held, self.go = threading.Event(), threading.Event()

    def run(self):
        try:
            with transaction.atomic():
                due.lock_for_sweep(self.match_id)
                self.held.set()
                self.go.wait(10)
        finally:
            connections.close_all()

    def __enter__(self):
        self.start()
        assert self.held.wait(10), "the holder never got the lock"
        return self

    def __exit__(self, *exc):
        self.go.set()
        self.join(10)


def in_thread(call):
    """Run `call` on a thread of its own (its own connection); the thread and its outcomes."""
    outcomes: list = []

    def run():
        try:
            outcomes.append(call())
        except Exception as error:  # the test looks at it
            outcomes.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcomes


@pytest.fixture
def ana(db):
    return make_player("ana")


@pytest.fixture
def ben(db):
    """ben, an account whose address is confirmed: he is mailed."""
    return make_player("ben")


@pytest.fixture
def ben_on_turn(ana, ben, clock, dice):
    """ana (an account, seat 1) opens with 3-1 and plays it; ben (an account) is on turn."""
    seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
    dice.push((3, 1))
    services.room_join(room=seat.room, nickname="ben", user=ben)
    clock.tick(HOUR)
    match = current_match(seat.room)
    services.game_play(seat=seat, version=match.version, play=first_legal_play(seat.room, 0))
    match = current_match(seat.room)
    assert match.turn_seat.user_id == ben.pk
    return match


# --- the reminder's key: the deadline it reminds of --------------------------------


@pytest.mark.django_db
def test_a_deadline_a_vacation_moved_after_the_reminder_is_reminded_once_more(
    ben_on_turn, ben, clock, mailoutbox
):
    started = ben_on_turn.turn_started_at
    clock.tick(25 * HOUR)  # 23 hours left
    assert tasks.send_absence_reminders() == 1
    assert tasks.send_absence_reminders() == 0  # the same deadline: never twice

    vacation_start(user=ben, days=2)  # the deadline moves two days on
    moved = Match.objects.get(pk=ben_on_turn.pk).absence_due_at
    assert moved == started + 4 * DAY
    clock.tick(2 * DAY)  # ben is back, 23 hours before the moved deadline
    assert tasks.send_absence_reminders() == 1
    assert tasks.send_absence_reminders() == 0
    assert len(reminders(mailoutbox)) == 2


# --- skip_locked: the row another transaction held ----------------------------------


@on_postgresql
def test_a_vacation_started_while_a_sweep_holds_the_match_still_moves_its_deadline(
    ben_on_turn, ben, clock, mailoutbox
):
    started = ben_on_turn.turn_started_at
    clock.tick(DAY)
    with Holder(ben_on_turn.pk):
        starter, outcome = in_thread(lambda: vacation_start(user=ben, days=5))
        starter.join(0.5)  # it waits for the sweep, or (before) skipped the match
    starter.join(10)
    assert not isinstance(outcome[0], Exception), outcome

    match = Match.objects.get(pk=ben_on_turn.pk)
    assert match.absence_due_at == started + 2 * DAY + 5 * DAY
    clock.tick(5 * DAY + HOUR)  # back for an hour: 23 hours left of the moved deadline
    assert tasks.send_absence_reminders() == 1
    assert len(reminders(mailoutbox)) == 1


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


@on_postgresql
def test_the_last_reminder_sweep_before_the_deadline_reminds_a_match_another_sweep_holds(
    tables, clock, mailoutbox
):
    clock.tick(2 * DAY - timedelta(minutes=5))  # 5 minutes left, nobody reminded yet
    held = current_match(tables[0].room)
    with Holder(held.pk):
        sweep, outcome = in_thread(tasks.send_absence_reminders)
        sweep.join(0.5)
    sweep.join(10)
    assert outcome == [ROOMS]

    clock.tick(timedelta(minutes=10))  # the next sweep comes after the deadline
    assert tasks.send_absence_reminders() == 0
    assert sent(mailoutbox) == {
        (f"host{n}@example.com", f"Te quedan 24 horas para jugar contra guest{n}"): 1
        for n in range(ROOMS)
    }


@on_postgresql
def test_two_beats_run_every_sweep_twice_at_once_and_each_email_goes_once(
    tables, clock, mailoutbox
):
    # Room 0 kept waiting (its "you may close" is owed), room 1 will be closed
    # by absence, rooms 2 and 3 are 23 hours from their deadline.
    match0 = current_match(tables[0].room)
    guest0 = Seat.objects.get(room=tables[0].room, number=2)
    clock.tick(2 * DAY)  # keeping waiting is a choice from the deadline on
    services.absence_keep_waiting(seat=guest0, version=match0.version)
    clock.tick(HOUR)
    for host in tables[2:]:
        match = current_match(host.room)
        Match.objects.filter(pk=match.pk).update(
            turn_started_at=clock.at - 25 * HOUR, absence_due_at=clock.at + 23 * HOUR
        )
    sweeps = [
        tasks.send_absence_reminders,
        tasks.send_absence_claimable,
        tasks.close_absent_games,
        tasks.expire_idle_rooms,
    ]
    threads = [in_thread(sweep) for sweep in sweeps * 2]
    for thread, _ in threads:
        thread.join(20)
    assert all(not isinstance(o, Exception) for _, outcome in threads for o in outcome)
    # The ends of the games are owed through the outbox: what its worker does, twice.
    for _ in range(2):
        for row in FollowUp.objects.filter(task="games.tasks.match_ended_email"):
            tasks.match_ended_email(*row.args)

    assert sent(mailoutbox) == {
        ("guest0@example.com", "Ya puedes cerrar la partida contra host0"): 1,
        ("host1@example.com", "Terminó la partida contra guest1"): 1,
        ("guest1@example.com", "Terminó la partida contra host1"): 1,
        ("host2@example.com", "Te quedan 24 horas para jugar contra guest2"): 1,
        ("host3@example.com", "Te quedan 24 horas para jugar contra guest3"): 1,
    }


# --- "someone sat down": the turn it announces, claimed before it is sent ------------


@pytest.mark.django_db
def test_someone_sat_down_and_es_tu_turno_never_both_announce_one_turn(
    clock, dice, monkeypatch, mailoutbox
):
    host = services.room_create(
        rules=MatchRules(), nickname="ana", email="ana@example.com", email_consent=True
    )
    clock.tick(HOUR)  # ana left the board
    dice.push((3, 1))  # ana opens: her turn, announced by "ben se sentó a tu mesa"
    services.room_join(room=host.room, nickname="ben")
    match = current_match(host.room)
    assert match.turn_seat_id == host.pk

    real_send = messages._send

    def meanwhile(recipient, template_name, context):
        real_send(recipient, template_name, context)
        if template_name == "opponent_joined":  # the turn email's worker, at this moment
            tasks.turn_email(match.pk, match.version)

    monkeypatch.setattr(messages, "_send", meanwhile)
    clock.tick(timedelta(minutes=1))
    assert tasks.opponent_joined_email(host.room.pk) == 1
    assert tasks.turn_email(match.pk, match.version) is False
    assert [message.subject for message in mailoutbox] == ["ben se sentó a tu mesa"]


@pytest.mark.django_db
def test_the_upgrade_keeps_a_reminder_sent_for_this_turn_as_sent_for_its_deadline(
    ben_on_turn, clock
):
    from django.apps import apps

    upgrade = importlib.import_module("games.migrations.0013_reminder_key_is_the_deadline")
    Match.objects.filter(pk=ben_on_turn.pk).update(reminder_sent_for=F("turn_started_at"))
    upgrade.turn_to_deadline(apps, None)
    match = Match.objects.get(pk=ben_on_turn.pk)
    assert match.reminder_sent_for == match.absence_due_at
    clock.tick(25 * HOUR)
    assert tasks.send_absence_reminders() == 0  # reminded before the upgrade
