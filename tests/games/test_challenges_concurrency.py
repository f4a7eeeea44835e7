"""Two players accepting one challenge at the same instant, on a real PostgreSQL.

Each thread has its own connection and transaction; the Challenge row lock
lets exactly one of them open a room, and the other finds it taken (409).
Two expiry sweeps at once expire each challenge once.
"""

from datetime import timedelta

import pytest

from games import services
from games.engine import MatchRules
from games.lib.errors import Conflict
from games.models import Challenge, Match, Room
from games.services.challenges import MAX_OPEN_CHALLENGES
from tests.helpers import make_player, needs_postgresql, race, when_published

pytestmark = needs_postgresql("SQLite locks the whole database, not the row")


@pytest.fixture(autouse=True)
def no_tasks(monkeypatch):
    # The transactions commit for real here: keep their follow-up off the broker.
    from games import tasks

    for task in (tasks.turn_email, tasks.opponent_joined_email, tasks.bot_turn):
        when_published(monkeypatch, task, lambda *args: None)


def test_two_players_accepting_at_once_make_exactly_one_match(clock, dice):
    ana, beto, cris = make_player("ana"), make_player("beto"), make_player("cris")
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    outcomes = race(
        lambda: services.challenge_accept(challenge=challenge, user=beto),
        lambda: services.challenge_accept(challenge=challenge, user=cris),
    )
    refused = [o for o in outcomes if isinstance(o, Exception)]
    seated = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(seated) == 1 and len(refused) == 1
    assert isinstance(refused[0], Conflict) and refused[0].code == "challenge_taken"
    assert Room.objects.count() == 1 and Match.objects.count() == 1
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.ACCEPTED
    assert challenge.accepted_by_id == seated[0].user_id
    assert challenge.room_id == seated[0].room_id


def test_the_same_player_accepting_from_two_tabs_gets_one_match(clock, dice):
    ana, beto = make_player("ana"), make_player("beto")
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    outcomes = race(
        lambda: services.challenge_accept(challenge=challenge, user=beto),
        lambda: services.challenge_accept(challenge=challenge, user=beto),
    )
    assert sum(isinstance(o, Conflict) for o in outcomes) == 1
    assert Room.objects.count() == 1


def test_two_beats_expire_each_challenge_once(clock):
    ana, beto = make_player("ana"), make_player("beto")
    for author in (ana, ana, beto):
        services.challenge_post(author=author, rules=MatchRules())
    clock.tick(timedelta(days=7))
    outcomes = race(services.challenges_expire, services.challenges_expire)
    assert not any(isinstance(o, Exception) for o in outcomes)
    assert sum(outcomes) == 3
    assert set(Challenge.objects.values_list("status", flat=True)) == {"expired"}


def test_an_accept_and_the_sweep_at_the_deadline_leave_one_story(clock, dice):
    ana, beto = make_player("ana"), make_player("beto")
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    clock.tick(timedelta(days=7) - timedelta(seconds=1))
    outcomes = race(
        lambda: services.challenge_accept(challenge=challenge, user=beto),
        services.challenges_expire,
    )
    challenge.refresh_from_db()
    # Not yet due: the sweep expires nothing and the accept wins.
    assert outcomes[1] == 0 and challenge.status == Challenge.Status.ACCEPTED


def test_two_posts_at_once_never_pass_the_cap(clock):
    ana = make_player("ana")
    for _ in range(MAX_OPEN_CHALLENGES - 1):
        services.challenge_post(author=ana, rules=MatchRules())
    outcomes = race(
        lambda: services.challenge_post(author=ana, rules=MatchRules()),
        lambda: services.challenge_post(author=ana, rules=MatchRules()),
    )
    assert sum(isinstance(o, Conflict) for o in outcomes) == 1
    assert Challenge.objects.count() == MAX_OPEN_CHALLENGES
