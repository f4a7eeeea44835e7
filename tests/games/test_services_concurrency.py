"""Two requests for the same turn at the same moment, on a real PostgreSQL.

Each thread has its own database connection and its own transaction; the
Match row lock lets exactly one of them apply the turn, and the other sees
the new version and gets a 409.
"""

from datetime import timedelta

import pytest

from games import services
from games.engine import Format, MatchRules
from games.lib.errors import Conflict
from games.models import Turn
from tests.helpers import current_match, needs_postgresql, race, when_published

pytestmark = needs_postgresql("SQLite locks the whole database, not the row")


@pytest.fixture(autouse=True)
def no_tasks(monkeypatch):
    # The transactions commit for real here: keep their follow-up off the broker.
    from games import tasks

    when_published(monkeypatch, tasks.turn_email, lambda *args: None)
    when_published(monkeypatch, tasks.bot_turn, lambda *args: None)


def test_the_same_play_sent_twice_at_once_is_applied_once(room, alice, bob):
    play = [[8, 5], [6, 5]]
    outcomes = race(
        lambda: services.game_play(seat=alice.seat, version=1, play=play),
        lambda: services.game_play(seat=alice.seat, version=1, play=play),
    )
    applied = [o for o in outcomes if not isinstance(o, Exception)]
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(applied) == 1 and len(refused) == 1
    assert isinstance(refused[0], Conflict) and refused[0].status == 409
    assert refused[0].code == "stale_version"
    match = current_match(room)
    assert match.version == 2
    assert Turn.objects.filter(game__match=match, kind="play").count() == 1


@pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=3)])
def test_two_tabs_rolling_at_once_roll_once(rules, room, alice, bob):
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    outcomes = race(
        lambda: services.game_roll(seat=bob.seat, version=2),
        lambda: services.game_roll(seat=bob.seat, version=2),
    )
    assert sum(isinstance(o, Conflict) for o in outcomes) == 1
    match = current_match(room)
    game = match.games.get()
    assert game.rolls_drawn == 2  # the opening and one roll for bob
    assert Turn.objects.filter(game=game, kind="roll", automatic=False).count() == 1


def test_a_play_and_a_resignation_at_once_leave_one_story(room, alice, bob):
    outcomes = race(
        lambda: services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]]),
        lambda: services.match_resign(seat=bob.seat, version=1),
    )
    assert sum(isinstance(o, Conflict) for o in outcomes) == 1
    assert current_match(room).version == 2


def test_two_sweeps_at_once_close_an_absent_game_once(room, clock):
    clock.tick(timedelta(hours=48))
    match_id = current_match(room).pk
    outcomes = race(
        lambda: services.absence_close(match_id=match_id),
        lambda: services.absence_close(match_id=match_id),
    )
    assert sum(outcome is not None for outcome in outcomes) == 1
    assert not any(isinstance(outcome, Exception) for outcome in outcomes)
    assert Turn.objects.filter(game__match_id=match_id, kind="forfeit").count() == 1


def test_two_people_joining_at_once_take_one_seat(alice):
    room = alice.seat.room
    outcomes = race(
        lambda: services.room_join(room=room, nickname="bob"),
        lambda: services.room_join(room=room, nickname="carol"),
    )
    assert sum(isinstance(outcome, Conflict) for outcome in outcomes) == 1
    assert room.seats.count() == 2 and room.matches.count() == 1


def test_both_offering_a_rematch_at_once_start_one_match(room, alice, bob):
    services.match_resign(seat=alice.seat, version=1)
    race(
        lambda: services.rematch_offer(seat=alice.seat),
        lambda: services.rematch_offer(seat=bob.seat),
    )
    assert list(room.matches.order_by("number").values_list("number", flat=True)) == [1, 2]


def test_two_tabs_accepting_the_same_rematch_at_once_start_one_match(room, alice, bob):
    services.match_resign(seat=alice.seat, version=1)
    services.rematch_offer(seat=alice.seat)
    outcomes = race(
        lambda: services.rematch_accept(seat=bob.seat),
        lambda: services.rematch_accept(seat=bob.seat),
    )
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(refused) == 1
    assert isinstance(refused[0], Conflict) and refused[0].status == 409
    assert list(room.matches.order_by("number").values_list("number", flat=True)) == [1, 2]
