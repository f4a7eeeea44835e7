"""A resignation is worth the cube: the state says what each offer scores now
(the engine's count), and in a match the score it leaves; the forms offer that."""

import pytest
from django.urls import reverse

from games import selectors, services
from games.engine import Format, MatchRules
from tests.helpers import bind, current_match, first_legal_play

pytestmark = pytest.mark.django_db


@pytest.fixture
def rules():
    return MatchRules(format=Format.MATCH, length=5)


def cube_at_two(room, alice, bob, dice):
    """alice plays her opening, bob doubles, alice takes: the cube at 2, bob on roll."""
    services.game_play(
        seat=alice.seat, version=current_match(room).version, play=first_legal_play(room, 0)
    )
    services.game_double(seat=bob.seat, version=current_match(room).version)
    dice.push((6, 4))
    services.game_take(seat=alice.seat, version=current_match(room).version)


def test_each_offer_is_worth_the_cube_and_says_the_score_it_leaves(room, alice, bob, dice):
    cube_at_two(room, alice, bob, dice)
    offers = selectors.room_state(room, bob.seat)["match"]["resign_offers"]
    assert [(o["value"], o["points"], o["score"]) for o in offers] == [
        (1, 2, [2, 0]),
        (2, 4, [4, 0]),
        (3, 6, [6, 0]),
    ]
    assert [o["text"] for o in offers] == [
        "partida simple, 2 puntos (el marcador quedaría alice 2, bob 0)",
        "gammon, 4 puntos (el marcador quedaría alice 4, bob 0)",
        "backgammon, 6 puntos (alice ganaría el encuentro)",
    ]
    # Accepted, the offer scores what it said.
    services.game_resign_offer(seat=bob.seat, version=current_match(room).version, value=2)
    offered = selectors.room_state(room, alice.seat)["match"]
    assert offered["resign_offered"] == 2 and offered["resign_offers"][1]["points"] == 4
    services.game_resign_accept(seat=alice.seat, version=current_match(room).version)
    assert current_match(room).state["score"] == [4, 0]


def test_the_form_board_offers_the_worth_at_the_cube(room, alice, bob, dice):
    cube_at_two(room, alice, bob, dice)
    bind(bob, room)
    page = bob.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert (
        '<option value="2">gammon, 4 puntos (el marcador quedaría alice 4, bob 0)</option>' in page
    )
    assert "gammon (2)" not in page


@pytest.mark.parametrize("rules", [MatchRules()])
def test_a_partida_simple_has_one_offer_worth_one_point(room, alice, bob, rules):
    offers = selectors.room_state(room, alice.seat)["match"]["resign_offers"]
    assert [(o["value"], o["points"], o["text"]) for o in offers] == [
        (1, 1, "partida simple, 1 punto")
    ]
