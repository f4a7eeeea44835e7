"""Written answers and plays on the board without JavaScript: plain forms and redirects.

The same services and checks as the API (games.web.action_requests); here what a
player sees on the page and what each form writes.
"""

import pytest
from django.urls import reverse

from games import selectors
from games.engine import Format, MatchRules
from games.models import Turn
from tests.helpers import bind, current_match, first_legal_play

# From the opening 3-1, each side playing its first legal play: a race after
# bob's play (the same rolls as tests/games/test_conditional.py).
TO_RACE = [(5, 5), (6, 5), (4, 4), (5, 5), (5, 5)]


@pytest.fixture
def rules():
    return MatchRules(format=Format.MATCH, length=5)


def act(persona, room, action, fields):
    return persona.client.post(reverse("games:act", args=[room.slug, action]), fields)


def page(persona, room) -> str:
    return persona.client.get(reverse("games:room", args=[room.slug])).content.decode()


def play_first(room, persona):
    """The persona's first legal play, sent through the board's form."""
    match = current_match(room)
    steps = first_legal_play(room, match.side_of(persona.seat))
    choice = " ".join(f"{src}-{dst}" for src, dst in steps)
    response = act(persona, room, "play", {"version": match.version, "choice": choice})
    assert response.status_code == 302


def written_answer(room, persona):
    return selectors.room_state(room, persona.seat)["match"]["conditional"]["answer"]


@pytest.fixture
def alice_played(room, alice, bob):
    """alice played the opening 3-1 from her form; bob may double or roll."""
    bind(alice, room)
    bind(bob, room)
    play_first(room, alice)
    return current_match(room)


def test_the_answer_is_written_changed_and_cleared_from_the_page(room, alice, bob, alice_played):
    version = alice_played.version
    html = page(alice, room)
    assert "Déjalo escrito" in html and "Si bob te dobla en su próximo turno:" in html
    assert 'name="answer" id="cond-form-answer-ask" value="" checked' in html
    assert "No tienes nada escrito: si te dobla, decides tú." in html
    assert "cond-form-answer-beaver" not in html  # no beavers in a match

    assert (
        act(alice, room, "cond_answer", {"version": version, "answer": "take"}).status_code == 302
    )
    assert written_answer(room, alice) == "take"
    html = page(alice, room)
    assert 'id="cond-form-answer-take" value="take" checked' in html
    assert "Tienes escrito: «Acepto». La mesa lo jugará en cuanto te doble." in html
    # Private: bob's panel is about his own answer, never alice's.
    theirs = page(bob, room)
    assert "Si alice te dobla en su próximo turno:" in theirs and "Tienes escrito" not in theirs

    act(alice, room, "cond_answer", {"version": version, "answer": "drop"})
    assert written_answer(room, alice) == "drop"
    assert "Tienes escrito: «Rechazo»." in page(alice, room)

    act(alice, room, "cond_answer", {"version": version, "answer": ""})  # the clear button
    assert written_answer(room, alice) is None
    assert "No tienes nada escrito" in page(alice, room)
    kinds = list(Turn.objects.filter(kind="cond_answer").values_list("reason", flat=True))
    assert kinds == ["take", "drop", ""]


def test_a_written_take_from_the_form_is_played_when_bob_doubles(room, alice, bob, alice_played):
    version = alice_played.version
    act(alice, room, "cond_answer", {"version": version, "answer": "take"})
    act(bob, room, "double", {"version": version})
    take = Turn.objects.get(kind="take")
    assert (take.side, take.automatic, take.reason) == (0, True, "conditional")
    assert current_match(room).state["cube_value"] == 2


@pytest.mark.parametrize("rules", [MatchRules(format=Format.SESSION, beavers=True)])
def test_a_beaver_is_offered_where_beavers_are_played(rules, room, alice, bob, alice_played):
    assert "cond-form-answer-beaver" in page(alice, room)
    act(alice, room, "cond_answer", {"version": alice_played.version, "answer": "beaver"})
    assert written_answer(room, alice) == "beaver"
    assert "Tienes escrito: «Acepto y redoblo (castor)»." in page(alice, room)


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"answer": "maybe"}, "La respuesta al cubo es aceptar, rechazar o castor."),
        ({}, "La respuesta al cubo es aceptar, rechazar o castor."),  # no choice sent
        ({"answer": "beaver"}, "En esta mesa no se juega con castores."),
    ],
)
def test_a_bad_answer_writes_nothing_and_says_why(room, alice, bob, alice_played, fields, said):
    before = Turn.objects.count()
    response = act(alice, room, "cond_answer", {"version": alice_played.version, **fields})
    assert response.status_code == 302
    assert Turn.objects.count() == before
    assert f'<li class="error">{said}</li>' in page(alice, room)


def test_no_answer_form_once_bob_has_rolled(room, alice, bob, alice_played, dice):
    dice.push((6, 2))
    act(bob, room, "roll", {"version": alice_played.version})
    assert "cond-form-answer-take" not in page(alice, room)


# -- written plays in a race ------------------------------------------------------------


@pytest.fixture
def race(room, alice, bob, dice):
    """A partida simple: after bob's play contact is broken and alice is on roll."""
    bind(alice, room)
    bind(bob, room)
    dice.push(*TO_RACE)
    for persona in (alice, bob, alice, bob, alice, bob):
        play_first(room, persona)
    return current_match(room)


def written_plays(room, persona):
    plays = selectors.room_state(room, persona.seat)["match"]["conditional"]["plays"] or []
    return [(p["dice"], p["notation"]) for p in plays]


@pytest.mark.parametrize("rules", [MatchRules()])
def test_plays_are_written_one_roll_at_a_time_shown_and_cleared(rules, room, alice, bob, race):
    version = race.version
    html = page(bob, room)
    assert "alice ya no puede cambiar tu próxima tirada." in html
    assert 'name="roll"' in html and "cond-form-greedy" not in html  # not all home yet

    act(bob, room, "cond_plays", {"version": version, "roll": "6-5", "play": "11/5 8/3"})
    act(bob, room, "cond_plays", {"version": version, "roll": "2-1", "play": "11/8"})
    assert written_plays(room, bob) == [([2, 1], "11/8"), ([6, 5], "11/5 8/3")]
    html = page(bob, room)
    assert "Si sacas 6-5: 11/5 8/3" in html and "Si sacas 2-1: 11/8" in html

    # The same roll again replaces its play; an empty play removes it.
    act(bob, room, "cond_plays", {"version": version, "roll": "6-5", "play": "8/3 8/2"})
    assert written_plays(room, bob) == [([2, 1], "11/8"), ([6, 5], "8/3 8/2")]
    act(bob, room, "cond_plays", {"version": version, "roll": "2-1", "play": ""})
    assert written_plays(room, bob) == [([6, 5], "8/3 8/2")]

    act(bob, room, "cond_plays", {"version": version, "clear": "1"})
    assert written_plays(room, bob) == []
    assert "cond-form-plays" not in page(bob, room)
    assert "cond-form-roll" not in page(alice, room)  # alice may write none: she is on roll


@pytest.mark.parametrize("rules", [MatchRules()])
@pytest.mark.parametrize(
    "fields",
    [
        {"roll": "6-5", "play": "24/13"},  # not a legal play of 6-5 here
        {"roll": "7-1", "play": "11/4"},  # no such die
        {"roll": "seis", "play": "11/5 8/3"},
        {"roll": "6-5", "play": "x" * 80},
    ],
)
def test_a_bad_written_play_writes_nothing(rules, room, alice, bob, race, fields):
    before = Turn.objects.count()
    act(bob, room, "cond_plays", {"version": race.version, **fields})
    assert Turn.objects.count() == before
    assert written_plays(room, bob) == []
    assert '<li class="error">' in page(bob, room)
