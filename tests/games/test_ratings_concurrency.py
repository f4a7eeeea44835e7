"""Ratings and vacations at the same moment, on a real PostgreSQL: each written once.

ana resigns at three tables at once, against ben, carla and ben again: every
thread locks the two Rating rows it moves (in id order), so the three
changes to ana's rating are applied one after another, nobody deadlocks,
and the recompute from the match records agrees with what was stored.
"""

import pytest

from accounts.models import Rating, RatingChange
from games import services
from games.engine import MatchRules
from games.selectors import ratings
from tests.helpers import account, current_match, needs_postgresql, race

pytestmark = needs_postgresql("SQLite locks the whole database, not the row")


@pytest.fixture(autouse=True)
def no_tasks(monkeypatch):
    # The transactions commit for real here: keep their follow-up off the broker.
    from games.services import outbox

    monkeypatch.setattr(outbox, "publish", lambda row: False)


def test_three_matches_of_one_player_ending_at_once_are_each_rated_once(clock, dice):
    ana, ben, carla = account("ana"), account("ben"), account("carla")
    seats = []
    for rival in (ben, carla, ben):
        host = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
        dice.push((3, 1))
        services.room_join(room=host.room, nickname=rival.username, user=rival)
        seats.append(host)
    # The ratings exist before the race (as after anyone's first match), so it
    # is about their locks, not about creating them.
    for user in (ana, ben, carla):
        Rating.objects.create(user=user)
    outcomes = race(
        *(
            lambda seat=seat: services.match_resign(
                seat=seat, version=current_match(seat.room).version
            )
            for seat in seats
        )
    )
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert RatingChange.objects.count() == 6
    assert Rating.objects.get(user=ana).matches == 3
    assert Rating.objects.get(user=ana).experience == 3
    found = ratings.check_stored()
    assert found.agrees, found.differences
    assert found.matches == 3


def test_two_vacations_asked_at_once_make_one(clock):
    from accounts.models import Vacation
    from games.lib.errors import Conflict
    from games.services.vacations import vacation_start

    ben = account("ben")
    outcomes = race(
        lambda: vacation_start(user=ben, days=20), lambda: vacation_start(user=ben, days=20)
    )
    assert sum(isinstance(o, Conflict) and o.code == "on_vacation" for o in outcomes) == 1
    assert Vacation.objects.filter(user=ben).count() == 1
