"""What the state tells the board: each game's result in words,
the declined resignation, and long polling on the state endpoint.

alice and bob play a match to 3; alice opened with 3-1. The long-poll tests run
the wait on a fake clock (games.web.longpoll's `sleep` and `monotonic`), so a
25-second hold takes no time and "bob moves during the third look" is exact.
"""

import threading

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import selectors, services
from games.engine import Format, GameResult, MatchRules, WinKind
from games.selectors.results import result_sentence
from games.web import longpoll
from tests.helpers import bind, first_legal_play, seat_url, state_url, version_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def rules():
    return MatchRules(format=Format.MATCH, length=3)


def resign_gammon(room, alice, bob):
    """alice plays her opening, bob gives up a gammon, alice accepts: 2-0, Crawford next."""
    services.game_play(seat=alice.seat, version=version_of(room), play=first_legal_play(room, 0))
    services.game_resign_offer(seat=bob.seat, version=version_of(room), value=2)
    services.game_resign_accept(seat=alice.seat, version=version_of(room))


def room_page(persona, room, language) -> str:
    bind(persona, room)
    url = reverse("games:room", args=[room.slug])
    return persona.client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


# --- each game's result ---------------------------------------------------------------------


def test_a_finished_game_carries_its_result_in_words_and_numbers(room, alice, bob):
    resign_gammon(room, alice, bob)
    with translation.override("es"):
        match = selectors.room_state(room)["match"]
    first, second = match["games"]
    assert first["result"] == {
        "winner": 0,
        "points": 2,
        "kind": "gammon",
        "ending": "resign",
        "score": [2, 0],
        "text": "alice gana 2 puntos (gammon): bob se rindió",
        "score_text": "Marcador: alice 2, bob 0",
    }
    assert second["result"] is None  # the Crawford game has just begun
    assert match["crawford"] is True
    with translation.override("en"):
        english = selectors.room_state(room)["match"]["games"][0]["result"]
    assert english["text"] == "alice wins 2 points (gammon): bob resigned"
    assert english["score_text"] == "Score: alice 2, bob 0"


ENDINGS = [
    ("drop", WinKind.SINGLE, 1, "ana gana 1 punto: bob rechazó el cubo",
     "ana wins 1 point: bob declined the cube"),
    ("bearoff", WinKind.SINGLE, 1, "ana gana 1 punto (simple)", "ana wins 1 point (single)"),
    ("bearoff", WinKind.BACKGAMMON, 6, "ana gana 6 puntos (backgammon)",
     "ana wins 6 points (backgammon)"),
    ("resign", WinKind.SINGLE, 2, "ana gana 2 puntos (simple): bob se rindió",
     "ana wins 2 points (single): bob resigned"),
]  # fmt: skip


@pytest.mark.parametrize(("ending", "kind", "points", "spanish", "english"), ENDINGS)
def test_every_ending_reads_with_the_right_plural(ending, kind, points, spanish, english):
    result = GameResult(1, 0, ending, kind, points if kind is WinKind.SINGLE else 2, points)
    names = {0: "ana", 1: "bob"}
    with translation.override("es"):
        assert result_sentence(result, names) == spanish
    with translation.override("en"):
        assert result_sentence(result, names) == english


def test_the_page_without_javascript_says_the_result_and_that_the_crawford_game_has_no_cube(
    room, alice, bob
):
    resign_gammon(room, alice, bob)
    page = room_page(alice, room, "es")
    assert "alice gana 2 puntos (gammon): bob se rindió." in page
    assert "Partida Crawford: esta partida se juega sin cubo, nadie puede doblar." in page
    assert "Cubo: 1" not in page
    assert "Match a 3 puntos" in page
    assert ">2 puntos<" in page and ">0 puntos<" in page


def test_the_board_strings_carry_both_plural_forms(room, alice):
    page = room_page(alice, room, "en")
    assert '"score": {"one": "{count} point", "other": "{count} points"}' in page
    assert '"needed": {"one": "{count} to go", "other": "{count} to go"}' in page


def test_a_declined_resignation_is_in_the_state_until_the_turn_ends(room, alice, bob):
    services.game_resign_offer(seat=alice.seat, version=version_of(room), value=1)
    services.game_resign_decline(seat=bob.seat, version=version_of(room))
    match = selectors.room_state(room, alice.seat)["match"]
    assert match["resign_declined"] is True
    assert "resign_offer" not in match["allowed"]
    page = room_page(alice, room, "es")
    assert "Tu rival rechazó tu rendición: podrás volver a ofrecerla en tu próximo turno." in page
    assert 'id="resign-value"' not in page
    services.game_play(seat=alice.seat, version=version_of(room), play=first_legal_play(room, 0))
    assert selectors.room_state(room, alice.seat)["match"]["resign_declined"] is False
    assert 'id="resign-declined"' not in room_page(alice, room, "es")


# --- long polling ------------------------------------------------------------------------------


class FakeTime:
    """A monotonic clock that moves only when the wait sleeps; `then` runs at a chosen look."""

    def __init__(self):
        self.now = 100.0
        self.sleeps = 0
        self.then = {}

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps += 1
        self.now += seconds
        if self.sleeps in self.then:
            self.then.pop(self.sleeps)()


@pytest.fixture
def fake_time(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(longpoll, "sleep", fake.sleep)
    monkeypatch.setattr(longpoll, "monotonic", fake.monotonic)
    return fake


def test_a_client_behind_the_room_gets_the_state_at_once(room, bob, fake_time):
    bind(bob, room)
    stale = version_of(room) - 1
    response = bob.client.get(state_url(room), {"wait": stale})
    assert response.status_code == 200
    assert response.json()["version"] == version_of(room)
    assert fake_time.sleeps == 0


def test_the_wait_ends_at_the_first_look_after_the_other_player_moves(room, alice, bob, fake_time):
    bind(bob, room)
    first = bob.client.get(state_url(room))
    held = first.json()["version"]
    fake_time.then[3] = lambda: services.game_play(
        seat=alice.seat, version=held, play=first_legal_play(room, 0)
    )
    response = bob.client.get(
        state_url(room), {"wait": held}, HTTP_IF_NONE_MATCH=first.headers["ETag"]
    )
    assert response.status_code == 200
    assert response.json()["version"] == held + 1
    assert fake_time.sleeps == 3  # looked every half second, answered at the first change
    assert fake_time.now == pytest.approx(101.5)


def test_a_join_during_the_wait_comes_back_with_the_room_as_it_is_now(
    alice, dice, opening, fake_time
):
    room = alice.seat.room
    bind(alice, room)
    dice.push(opening)
    fake_time.then[2] = lambda: services.room_join(room=room, nickname="bob")
    response = alice.client.get(state_url(room), {"wait": 0})
    state = response.json()
    assert state["room"]["status"] == "playing"  # not the room as it was before the wait
    assert [seat["nickname"] for seat in state["seats"]] == ["alice", "bob"]
    assert state["match"] is not None


def test_with_no_news_the_wait_gives_up_after_25_seconds_with_a_304(room, bob, fake_time):
    bind(bob, room)
    first = bob.client.get(state_url(room))
    response = bob.client.get(
        state_url(room),
        {"wait": first.json()["version"]},
        HTTP_IF_NONE_MATCH=first.headers["ETag"],
    )
    assert response.status_code == 304
    assert fake_time.sleeps == longpoll.WAIT_SECONDS / longpoll.CHECK_EVERY == 50


def test_when_every_slot_is_held_the_state_comes_back_at_once(room, bob, fake_time, monkeypatch):
    monkeypatch.setattr(longpoll, "_slots", threading.BoundedSemaphore(1))
    longpoll._slots.acquire()  # another request holds the only slot
    bind(bob, room)
    response = bob.client.get(state_url(room), {"wait": version_of(room)})
    assert response.status_code == 200
    assert fake_time.sleeps == 0  # the board falls back to plain polling


@pytest.mark.parametrize("wait", ["x", "-1", "²", "1" * 12, ""])
def test_a_wait_that_is_not_a_version_is_a_400_in_the_requests_language(room, bob, wait, fake_time):
    bind(bob, room)
    response = bob.client.get(state_url(room), {"wait": wait}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_version"
    assert response.json()["error"]["message"] == "The game version is missing or is not a number."
    assert fake_time.sleeps == 0


def test_the_form_board_offers_a_partida_simple_resignation_at_its_one_value(dice):
    dice.push((3, 1))
    alice = services.room_create(rules=MatchRules(), nickname="alice")
    services.room_join(room=alice.room, nickname="bob")
    client = Client()
    client.get(seat_url(alice.room, alice.token))
    page = client.get(reverse("games:room", args=[alice.room.slug])).content.decode()
    assert reverse("games:act", args=[alice.room.slug, "resign_offer"]) in page
    assert 'id="resign-value"' not in page
    assert '<input type="hidden" name="value" value="1">' in page
