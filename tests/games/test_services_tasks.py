"""games.tasks: the bot's turn and the turn email, run as a worker would run them.

The bots here are bgsage-free random players (same interface), so the tests
are fast; the bots' strength is tested in tests/bots.
"""

import time
from datetime import timedelta

import pytest

from games import services, tasks
from games.engine import Format, MatchRules
from games.models import Match, Seat
from tests.helpers import Persona, current_match, first_legal_play, state_of, when_published


class Worker:
    """Runs a service, then every task it scheduled (and those they schedule), at once."""

    def __init__(self, capture):
        self.capture = capture
        self.emails = []

    def __call__(self, service, **arguments):
        with self.capture(execute=True):
            return service(**arguments)


@pytest.fixture
def worker(monkeypatch, django_capture_on_commit_callbacks):
    worker = Worker(django_capture_on_commit_callbacks)
    when_published(monkeypatch, tasks.bot_turn, tasks.bot_turn)
    when_published(monkeypatch, tasks.turn_email, lambda *args: worker.emails.append(args))
    return worker


def test_the_bot_plays_its_turn_once(db, clock, dice, random_bots):
    dice.push((1, 3))  # the bot (side 1) starts
    seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
    match = current_match(seat.room)
    assert tasks.bot_turn(match.pk, match.version) == "play"
    assert tasks.bot_turn(match.pk, match.version) == "stale"  # a second delivery
    match.refresh_from_db()
    assert match.turn_seat_id == seat.pk and match.version == 2


def test_the_bots_search_ends_its_budget_after_its_turn_began(
    db, clock, dice, random_bots, monkeypatch, settings
):
    settings.BOT_MOVE_BUDGET_SECONDS = 4
    left = []
    real = tasks.next_action

    def next_action(*args, deadline, **kwargs):
        left.append(deadline - time.monotonic())
        return real(*args, deadline=deadline, **kwargs)

    monkeypatch.setattr(tasks, "next_action", next_action)
    dice.push((1, 3))  # the bot (side 1) starts
    seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
    match = current_match(seat.room)
    clock.tick(timedelta(seconds=1))  # the turn waited a second in the queue
    tasks.bot_turn(match.pk, match.version)
    assert 2.5 < left[0] <= 3.0
    # A copy that comes after the budget (a nudge, a re-drive) has no time to search.
    clock.tick(timedelta(seconds=10))
    assert tasks.move_deadline(match.turn_started_at) <= time.monotonic()


def test_a_person_plays_a_whole_game_against_the_bot(db, clock, dice, random_bots, worker):
    seat = worker(
        services.room_create,
        rules=MatchRules(),
        nickname="alice",
        email="alice@example.com",
        email_consent=True,
        bot="chofer",
    )
    alice = Persona("alice", seat=seat)
    room = alice.seat.room
    for _ in range(500):
        match = current_match(room)
        if match.status == Match.Status.FINISHED:
            break
        assert match.turn_seat_id == alice.seat.pk  # the bot always answered at once
        side = match.side_of(alice.seat)
        play = first_legal_play(room, side)
        worker(services.game_play, seat=alice.seat, version=match.version, play=play)
    assert current_match(room).status == Match.Status.FINISHED
    # Each bot move handed the turn back to alice, and asked for her email.
    assert worker.emails and {args[0] for args in worker.emails} == {room.matches.get().pk}


def test_the_bot_takes_its_decisions_with_the_cube(db, clock, dice, random_bots, worker):
    rules = MatchRules(format=Format.MATCH, length=3)
    dice.push((3, 1))
    seat = worker(services.room_create, rules=rules, nickname="alice", bot="chofer")
    room = seat.room
    worker(services.game_play, seat=seat, version=1, play=[[8, 5], [6, 5]])
    # The bot rolled (or doubled) and moved; it is alice's turn again, or her answer.
    match = current_match(room)
    assert match.turn_seat_id == seat.pk
    assert state_of(room).phase.value in ("roll", "doubled")


def test_the_bot_accepts_a_rematch(db, clock, dice, random_bots, worker):
    seat = worker(services.room_create, rules=MatchRules(), nickname="alice", bot="domador")
    match = current_match(seat.room)
    worker(services.match_resign, seat=seat, version=match.version)
    worker(services.rematch_offer, seat=seat)
    latest = current_match(seat.room)
    assert latest.number == 2 and latest.side_of(seat) == 1


class TestTurnEmail:
    def test_it_sends_one_email_with_the_link_to_the_room(
        self, room, alice, bob, mailoutbox, clock
    ):
        Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
        clock.tick(timedelta(hours=3))  # bob left the board after joining
        match = services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
        assert tasks.turn_email(match.pk, match.version) is True
        assert tasks.turn_email(match.pk, match.version) is False
        [email] = mailoutbox
        assert email.to == ["bob@example.com"]
        assert f"/mesa/{room.slug}/" in email.body and "alice" in email.body

    def test_a_turn_already_played_sends_nothing(self, room, alice, bob, mailoutbox):
        Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
        match = services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
        services.match_resign(seat=bob.seat, version=match.version)
        assert tasks.turn_email(match.pk, match.version) is False
        assert mailoutbox == []


@pytest.mark.parametrize(
    ("bot", "rules"),
    [
        ("domador", MatchRules()),
        pytest.param(
            "empresario", MatchRules(format=Format.MATCH, length=3), marks=pytest.mark.slow
        ),
    ],
)
def test_a_real_bot_plays_a_whole_match_through_the_services(db, clock, dice, worker, bot, rules):
    seat = worker(services.room_create, rules=rules, nickname="alice", bot=bot)
    room = seat.room
    for _ in range(2000):
        match = current_match(room)
        if match.status == Match.Status.FINISHED:
            break
        assert match.turn_seat_id == seat.pk  # the bot answered every time
        phase = state_of(room).phase.value
        if phase == "roll":
            worker(services.game_roll, seat=seat, version=match.version)
        elif phase == "doubled":
            worker(services.game_take, seat=seat, version=match.version)
        elif phase == "resign_offered":
            worker(services.game_resign_accept, seat=seat, version=match.version)
        else:
            play = first_legal_play(room, match.side_of(seat))
            worker(services.game_play, seat=seat, version=match.version, play=play)
    assert current_match(room).status == Match.Status.FINISHED
