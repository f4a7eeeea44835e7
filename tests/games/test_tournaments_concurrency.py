"""Tournaments' races on a real PostgreSQL: each thread its own connection.

Two semifinals ending at the same instant open the final once; two players
asking for the last seat get one seat; a withdrawal racing a result leaves
one story; the beat's creation run twice makes one tournament.
"""

import pytest

from accounts.models import Rating
from games import services
from games.lib.errors import Conflict
from games.models import Entry, Match, Room, Seat, Tournament, TournamentMatch
from games.services import site_tournaments as beat
from tests.helpers import make_player, needs_postgresql, race, when_published

pytestmark = needs_postgresql("SQLite locks the whole database, not the row")


@pytest.fixture(autouse=True)
def no_tasks(monkeypatch):
    from games import tasks

    for task in (
        tasks.turn_email,
        tasks.opponent_joined_email,
        tasks.bot_turn,
        tasks.tournament_match_email,
        tasks.tournament_cancelled_email,
        tasks.match_ended_email,
        tasks.turn_push,
        tasks.analyse_game,
    ):
        when_published(monkeypatch, task, lambda *args: None)


def _players(count):
    found = []
    for number in range(1, count + 1):
        user = make_player(f"p{number}")
        Rating.objects.create(user=user, rating=1850 - 10 * number, matches=1)
        found.append(user)
    return found


def _knockout(players):
    tournament = services.tournament_create(
        host=None, name="Copa", kind="knockout", capacity=len(players), lengths=[1]
    )
    for user in players:
        services.tournament_join(tournament=tournament, user=user)
    return tournament


def _resign_call(row, loser):
    def call():
        seat = Seat.objects.get(room_id=row.room_id, user=loser)
        match = Match.objects.get(room_id=row.room_id)
        return services.match_resign(seat=seat, version=match.version)

    return call


def _place(tournament, round_, index):
    return TournamentMatch.objects.get(tournament=tournament, round=round_, index=index)


def test_two_semifinals_ending_at_once_open_the_final_once(clock, dice):
    players = _players(4)
    tournament = _knockout(players)
    outcomes = race(
        _resign_call(_place(tournament, 1, 0), players[3]),
        _resign_call(_place(tournament, 1, 1), players[2]),
    )
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    final = _place(tournament, 2, 0)
    assert (final.player_a.user, final.player_b.user) == (players[0], players[1])
    assert final.status == "playing" and final.room_id is not None
    assert Room.objects.count() == 3  # two semifinals and one final


def test_two_players_asking_for_the_last_seat_get_one(clock, dice):
    players = _players(5)
    tournament = services.tournament_create(
        host=None, name="Copa", kind="knockout", capacity=4, lengths=[1]
    )
    for user in players[:3]:
        services.tournament_join(tournament=tournament, user=user)
    outcomes = race(
        lambda: services.tournament_join(tournament=tournament, user=players[3]),
        lambda: services.tournament_join(tournament=tournament, user=players[4]),
    )
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], Conflict)
    assert refused[0].code == "tournament_not_open"
    assert Entry.objects.count() == 4
    assert TournamentMatch.objects.filter(round=1, status="playing").count() == 2


def test_a_withdrawal_racing_a_result_leaves_one_story(clock, dice):
    players = _players(4)
    tournament = _knockout(players)
    row = _place(tournament, 1, 0)
    outcomes = race(
        _resign_call(row, players[3]),  # p4 resigns: p1 wins
        lambda: services.tournament_withdraw(tournament=tournament, user=players[0]),
    )
    row.refresh_from_db()
    assert row.status == "finished"
    # Whichever came first decided it; nobody won it twice, and p1 is withdrawn.
    assert Entry.objects.get(user=players[0]).status == Entry.Status.WITHDRAWN
    assert Match.objects.get(room_id=row.room_id).status == Match.Status.FINISHED
    resigned_first = not isinstance(outcomes[0], Exception)
    assert row.winner.user == (players[0] if resigned_first else players[3])


def test_the_beats_creation_run_twice_makes_one_of_each(clock):
    outcomes = race(beat.keep_site_tournaments_open, beat.keep_site_tournaments_open)
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    keys = list(Tournament.objects.values_list("site_key", flat=True))
    assert sorted(keys) == sorted(spec.key for spec in beat.SITE_TOURNAMENTS)
    assert sum(outcomes) == len(beat.SITE_TOURNAMENTS)
