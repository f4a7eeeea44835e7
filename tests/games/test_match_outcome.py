"""A match given up says so: who abandoned, the score then, what the winner was credited.

The sentence is written once on the server (games.selectors.results) and read
as it is by the board's status line, the form board, the archive and Mis partidas.
"""

import pytest
from django.urls import reverse

from games import selectors, services
from games.engine import Format, MatchRules
from tests.helpers import bind, current_match, first_legal_play, state_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def rules():
    return MatchRules(format=Format.MATCH, length=5)


def abandon_at_one_nil(room, alice, bob, dice):
    """alice wins game 1 by a single resignation (1-0), then gives up the match in game 2."""
    services.game_play(
        seat=alice.seat, version=current_match(room).version, play=first_legal_play(room, 0)
    )
    services.game_resign_offer(seat=bob.seat, version=current_match(room).version, value=1)
    dice.push((3, 1))  # game 2's opening: alice starts
    services.game_resign_accept(seat=alice.seat, version=current_match(room).version)
    assert current_match(room).state["score"] == [1, 0]
    services.match_resign(seat=alice.seat, version=current_match(room).version)


OUTCOME = (
    "alice abandonó el encuentro en la partida 2, con alice 1, bob 0 (a 5 puntos): "
    "bob gana el encuentro. La partida que se jugaba no suma puntos."
)


def test_the_board_states_who_abandoned_the_score_then_and_what_the_winner_got(
    room, alice, bob, carol, dice
):
    abandon_at_one_nil(room, alice, bob, dice)
    state = carol.client.get(state_url(room)).json()
    assert state["match"]["outcome"] == OUTCOME
    # The form board (no JavaScript) says the same.
    page = carol.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert OUTCOME in page


def test_the_archive_and_mis_partidas_say_what_happened(room, alice, bob, dice):
    abandon_at_one_nil(room, alice, bob, dice)
    archive = alice.client.get(reverse("games:room_archive", args=[room.slug])).content.decode()
    assert OUTCOME in archive
    bind(bob, room)
    mine = bob.client.get(reverse("games:my_rooms")).content.decode()
    assert OUTCOME in mine


def test_a_finished_match_without_abandon_says_the_final_score(room, alice, bob):
    match = current_match(room)
    services.game_play(seat=alice.seat, version=match.version, play=first_legal_play(room, 0))
    match = current_match(room)
    state = selectors.room_state(room)["match"]
    assert state["outcome"] is None  # still playing
    services.match_resign(seat=bob.seat, version=match.version)
    assert selectors.room_state(room)["match"]["outcome"] == (
        "bob abandonó el encuentro en la partida 1, con alice 0, bob 0 (a 5 puntos): "
        "alice gana el encuentro. La partida que se jugaba no suma puntos."
    )
