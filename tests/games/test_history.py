"""The history's lines, written once on the server (games.selectors.history) for both boards.

The SVG board gets them on the state's history entries and only lays them out
(static/js/board/history.js, tests/js/history.test.mjs); these are the words.
"""

import pytest
from django.utils import translation

from games import selectors, services
from games.selectors.history import describe_turn, sheet_lines
from tests.helpers import bind, first_legal_play, state_url, version_of

NAMES = {0: "alice", 1: "bob"}

HISTORY = [
    {"game": 1, "side": 0, "kind": "roll", "dice": [4, 4]},
    {"game": 1, "side": 0, "kind": "roll", "dice": [3, 1]},
    {"game": 1, "side": 0, "kind": "play", "notation": "8/5 6/5"},
    {"game": 1, "side": 1, "kind": "roll", "dice": [4, 6], "automatic": True},
    {"game": 1, "side": 1, "kind": "play", "notation": "24/18 13/9"},
    {"game": 1, "side": 0, "kind": "roll", "dice": [6, 6], "blocked": True},
    {"game": 1, "side": 1, "kind": "roll", "dice": [2, 1]},
    {"game": 1, "side": 1, "kind": "play", "notation": ""},
    {"game": 1, "side": 0, "kind": "double", "cube_value": 1},
    {"game": 1, "side": 1, "kind": "beaver", "cube_value": 2},
    {"game": 1, "side": 0, "kind": "take", "cube_value": 4},
    {"game": 1, "side": 0, "kind": "resign_offer", "value": 2, "cube_value": 4},
    {"game": 1, "side": 1, "kind": "resign_decline"},
    {"game": 1, "side": 0, "kind": "forfeit", "reason": "absence"},
    {"game": 2, "side": 1, "kind": "roll", "dice": [2, 5]},
]


def lines(language):
    history = [dict(turn) for turn in HISTORY]
    with translation.override(language):
        sheet_lines(history, NAMES)
    return [(turn["opening"], turn["text"]) for turn in history]


def test_each_entry_carries_its_score_sheet_line_a_roll_written_with_its_play():
    assert lines("es") == [
        (True, "Salida: alice saca 4, bob saca 4"),
        (True, "Salida: alice saca 3, bob saca 1"),
        (False, "alice 31: 8/5 6/5"),
        (False, None),
        (False, "bob 64: 24/18 13/9"),
        (False, "alice 66: no puede mover"),
        (False, None),
        (False, "bob 21: no puede mover"),
        (False, "alice dobla a 2"),
        (False, "bob acepta y redobla a 4 (castor)"),
        (False, "alice acepta el cubo en 4"),
        (False, "alice ofrece rendirse: gammon, con el cubo en 4"),
        (False, "bob rechaza la rendición y sigue jugando"),
        (False, "alice pierde por ausencia"),
        (True, "Salida: alice saca 2, bob saca 5"),
    ]


def test_the_lines_are_in_the_requests_language():
    english = [text for _, text in lines("en")]
    assert english[0] == "Opening roll: alice rolls 4, bob rolls 4"
    assert english[5] == "alice 66: cannot move"
    assert english[8] == "alice doubles to 2"
    assert english[11] == "alice offers to resign: gammon, with the cube at 4"


@pytest.mark.django_db
def test_the_state_json_carries_the_lines_in_the_viewers_language(room, alice, bob):
    services.game_play(seat=alice.seat, version=version_of(room), play=first_legal_play(room, 0))
    with translation.override("es"):
        history = selectors.room_state(room)["match"]["history"]
    assert history[0]["opening"] and history[0]["text"].startswith("Salida: alice saca ")
    assert history[1]["text"].startswith("alice ") and "/" in history[1]["text"]
    bind(bob, room)
    english = bob.client.get(state_url(room), HTTP_ACCEPT_LANGUAGE="en").json()["match"]["history"]
    assert english[0]["text"].startswith("Opening roll: alice rolls ")


def test_the_form_boards_roll_lines_say_the_higher_die_first():
    with translation.override("es"):
        assert describe_turn({"kind": "roll", "dice": [2, 6]}, "bob") == "bob tira 6-2"
        blocked = {"kind": "roll", "dice": [1, 5], "blocked": True}
        assert describe_turn(blocked, "bob") == "bob saca 5-1 y no puede mover: pasa el turno"
        # The opening roll is one die each: it says whose die is whose.
        opening = describe_turn({"kind": "roll", "dice": [1, 5]}, "bob", opening=True, names=NAMES)
        assert opening == "Salida: alice saca 1, bob saca 5"
