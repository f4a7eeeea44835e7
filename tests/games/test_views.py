"""The site by link, in Django's test client: create, invite, join, play, watch.

Two browsers play a whole partida simple through the HTML forms alone while a
third watches the live state as a spectator; seat links bind a seat to a
browser and never leak; the board page and the state endpoint cost the same
number of queries however long the game has run.
"""

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from games import selectors
from games.engine import Format, MatchRules
from games.models import Game, Match, Room
from tests.helpers import (
    bind,
    count_queries,
    current_match,
    play_out,
    play_turns,
    post_json,
    snapshot,
    state_url,
    version_of,
)

pytestmark = pytest.mark.django_db


def buttons(page: str) -> set[str]:
    """The actions the page's forms post to (/mesa/<slug>/jugar/<action>/)."""
    return set(re.findall(r'action="/mesa/[^/"]+/jugar/([a-z_]+)/"', page))


def input_value(page: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*value="([^"]*)"', page)
    assert match, f"no #{element_id} on the page"
    return html.unescape(match.group(1))


def play_options(page: str) -> list[tuple[str, str]]:
    select = re.search(r'<select id="play-choice".*?</select>', page, re.S)
    assert select, "no play form on the page"
    return [
        (html.unescape(value), html.unescape(text))
        for value, text in re.findall(r'<option value="([^"]+)">([^<]+)</option>', select.group(0))
    ]


def create_room(client, **fields) -> tuple[str, str]:
    data = {"format": "single", "nickname": "alice", **fields}
    response = client.post(reverse("games:home"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    room_url = response["Location"]
    slug = room_url.rstrip("/").rsplit("/", 1)[-1]
    return slug, room_url


def test_two_browsers_play_a_whole_partida_simple_by_link_while_a_third_watches(clock, dice):
    alice, bob, carol = Client(), Client(), Client()

    slug, room_url = create_room(alice)
    host_page = alice.get(room_url).content.decode()
    assert "Tu mesa está lista" in host_page
    invite = input_value(host_page, "invite-url")
    assert invite.endswith(room_url)

    invitation = bob.get(invite).content.decode()
    assert "alice te invita a jugar" in invitation
    # No scripted pairs: every roll comes from the game's fixed seed, so it can be verified.
    joined = bob.post(reverse("games:join", args=[slug]), {"nickname": "bob"})
    assert joined.status_code == 302 and joined["Location"] == room_url

    watching = carol.get(invite).content.decode()
    assert "Estás mirando" in watching
    assert 'name="nickname"' not in watching  # the room is full: no seat to take
    assert buttons(watching) == set()

    room = Room.objects.get(slug=slug)
    browsers = {1: alice, 2: bob}
    carol_etag = carol.get(state_url(room))["ETag"]
    turns = 0
    while current_match(room).status != Match.Status.FINISHED:
        match = current_match(room)
        number = 1 if match.turn_seat.number == 1 else 2
        browser = browsers[number]
        page = browser.get(room_url).content.decode()
        options = play_options(page)
        assert options, "the player on turn is offered the legal plays"
        value, notation = options[0]
        # Every third turn the player types the play instead of choosing it.
        data = {"version": match.version}
        data.update({"typed": notation} if turns % 3 == 2 else {"choice": value})
        response = browser.post(reverse("games:act", args=[slug, "play"]), data)
        assert response.status_code == 302
        assert current_match(room).version > match.version, f"turn {turns} was not played"
        turns += 1

        # The spectator's poll sees the change, then gets 304 until the next one.
        seen = carol.get(state_url(room), HTTP_IF_NONE_MATCH=carol_etag)
        assert seen.status_code == 200
        carol_etag = seen["ETag"]
        assert seen.json()["version"] == current_match(room).version
        assert carol.get(state_url(room), HTTP_IF_NONE_MATCH=carol_etag).status_code == 304
        assert turns < 500

    match = current_match(room)
    game = Game.objects.get(match=match)
    assert game.revealed and selectors.verify_game_dice(game)
    seed = bytes(game.seed).hex()
    for browser in (alice, bob, carol):
        final = browser.get(room_url).content.decode()
        assert f"python -m games.engine.dice {seed}" in final
        assert buttons(final) <= {"rematch_offer"}
    assert carol.get(state_url(room)).json()["match"]["game"]["seed"] == seed
    winner, loser = (alice, bob) if match.seat_number_of(match.winner_side) == 1 else (bob, alice)
    winner_name = "alice" if winner is alice else "bob"
    assert "¡Ganaste la partida!" in winner.get(room_url).content.decode()
    assert f"Perdiste: {winner_name} ganó la partida." in loser.get(room_url).content.decode()
    assert f"{winner_name} ganó la partida." in carol.get(room_url).content.decode()


def test_the_private_seat_link_moves_a_seat_to_another_device_and_leaves_no_token_in_the_url(
    clock, dice
):
    laptop, phone, stranger = Client(), Client(), Client()
    slug, room_url = create_room(laptop)
    seat_url = input_value(laptop.get(room_url).content.decode(), "seat-url")
    token = seat_url.rstrip("/").rsplit("/", 1)[-1]

    response = phone.get(seat_url)
    assert response.status_code == 302
    assert response["Location"] == room_url  # a clean URL: the token is not left in history
    assert token not in response["Location"]
    phone_page = phone.get(room_url).content.decode()
    assert "Tu mesa está lista" in phone_page

    stranger_page = stranger.get(room_url).content.decode()
    assert token not in stranger_page
    assert "seat-url" not in stranger_page


def test_a_spectator_never_sees_a_seat_token(room, alice, bob, carol):
    bind(alice, room)
    page = carol.client.get(reverse("games:room", args=[room.slug])).content.decode()
    state = carol.client.get(state_url(room)).content.decode()
    for token in (alice.token, bob.token):
        assert token not in page and token not in state
    assert "Estás mirando" in page
    assert buttons(page) == set()


def test_a_spectator_posting_a_form_gets_a_message_and_changes_nothing(room, carol):
    before = snapshot()
    response = carol.client.post(
        reverse("games:act", args=[room.slug, "play"]),
        {"version": version_of(room), "choice": "8-5 6-5"},
        follow=True,
    )
    assert snapshot() == before
    assert response.status_code == 200
    assert "Ese asiento no es tuyo" in response.content.decode()


def test_a_typed_play_that_makes_no_sense_is_explained_and_changes_nothing(room, alice):
    bind(alice, room)
    before = snapshot()
    for typed in ("hello", "24/18"):
        alice.client.post(
            reverse("games:act", args=[room.slug, "play"]),
            {"version": version_of(room), "typed": typed},
        )
    assert snapshot() == before
    page = alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert "No entendimos esa jugada" in page
    assert "Esa jugada no es legal con estos dados." in page


@pytest.mark.parametrize("number", ["²", "٣", "9" * 5000])
def test_a_form_number_python_reads_oddly_is_a_message_not_a_500(room, alice, number):
    # "²".isdigit() is true yet int() refuses it, and int() refuses 4300+ digits.
    bind(alice, room)
    before = snapshot()
    for action, data in (
        ("play", {"version": number, "choice": f"{number}-5"}),
        ("resign_offer", {"version": 1, "value": number}),
    ):
        response = alice.client.post(reverse("games:act", args=[room.slug, action]), data)
        assert response.status_code == 302
    assert snapshot() == before


def test_every_button_the_board_shows_is_an_action_the_api_knows(room, alice):
    from games.web.action_requests import ACTION_SPECS

    bind(alice, room)
    page = alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    actions = buttons(page)
    assert actions == {"play", "resign_offer", "forfeit"}
    assert actions <= set(ACTION_SPECS)


def test_a_resignation_offer_and_its_answer_go_through_the_forms(room, alice, bob):
    bind(alice, room)
    bind(bob, room)
    act = lambda who, action, **data: who.client.post(  # noqa: E731
        reverse("games:act", args=[room.slug, action]), {"version": version_of(room), **data}
    )
    act(alice, "resign_offer", value="1")
    bob_page = bob.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert {"resign_accept", "resign_decline"} <= buttons(bob_page)
    act(bob, "resign_accept")
    assert current_match(room).status == Match.Status.FINISHED
    final = alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert "Ofrecer la revancha" in final
    alice.client.post(reverse("games:act", args=[room.slug, "rematch_offer"]))
    bob.client.post(reverse("games:act", args=[room.slug, "rematch_accept"]))
    assert current_match(room).number == 2


def test_a_second_guest_finds_the_room_full(room, carol):
    response = carol.client.post(
        reverse("games:join", args=[room.slug]), {"nickname": "carol"}, follow=True
    )
    assert "ya están ocupados" in response.content.decode()


# --- a fixed number of queries -------------------------------------------------------


ROOM_PAGE_QUERIES = 9  # + the room's finished matches, + the header's count of waiting games
STATE_QUERIES = 7  # computed (MESA_STATE_CACHE off): the session, the seats with the
# stamp, the room, its seats whole, the match, its games, their turns; from the cache,
# STATE_HIT_QUERIES
STATE_HIT_QUERIES = 2  # the session, the seats with the stamp (games/web/state_cache.py)
TALK_QUERIES = 2  # a player's page and state also read the words: the mute, the messages


def test_the_room_page_and_the_state_cost_the_same_queries_for_a_short_and_a_long_game(
    room, alice, bob, carol, settings
):
    bind(alice, room)
    room_url = reverse("games:room", args=[room.slug])

    def costs():
        settings.MESA_STATE_CACHE = False
        computed = count_queries(alice.client, state_url(room), warm_up=True)
        settings.MESA_STATE_CACHE = True
        return {
            "page": count_queries(alice.client, room_url, warm_up=True),
            "state": computed,
            "cached": count_queries(alice.client, state_url(room), warm_up=True),
            "spectator": count_queries(carol.client, room_url, warm_up=True),
        }

    short = costs()
    play_turns(room, alice, bob, 40)
    assert current_match(room).version > 40
    long = costs()
    assert short == long
    assert long["page"] == ROOM_PAGE_QUERIES + TALK_QUERIES
    assert long["state"] == STATE_QUERIES + TALK_QUERIES
    assert long["cached"] == STATE_HIT_QUERIES


def test_the_state_of_a_finished_match_with_history_still_costs_the_same(room, alice, bob):
    bind(alice, room)
    before = count_queries(alice.client, state_url(room), warm_up=True)
    play_turns(room, alice, bob, 1000)
    assert current_match(room).status == Match.Status.FINISHED
    assert count_queries(alice.client, state_url(room), warm_up=True) == before
    assert post_json(alice.client, state_url(room), {}).status_code == 405


def test_after_two_days_the_waiting_player_may_close_the_game_by_absence(room, alice, bob, clock):
    from datetime import timedelta

    bind(bob, room)  # alice is on turn; bob waits
    room_url = reverse("games:room", args=[room.slug])
    early = bob.client.get(room_url).content.decode()
    assert buttons(early) & {"claim_absence", "keep_waiting"} == set()
    assert re.search(r"podrás cerrar la partida por ausencia desde el \d", early)

    clock.tick(timedelta(hours=48, minutes=1))
    late = bob.client.get(room_url).content.decode()
    assert {"claim_absence", "keep_waiting"} <= buttons(late)
    bob.client.post(
        reverse("games:act", args=[room.slug, "claim_absence"]), {"version": version_of(room)}
    )
    match = current_match(room)
    assert match.status == Match.Status.FINISHED
    assert match.seat_number_of(match.winner_side) == 2
    assert "alice pierde por ausencia" in bob.client.get(room_url).content.decode()


def page_of(persona, room) -> str:
    return persona.client.get(reverse("games:room", args=[room.slug])).content.decode()


def press(persona, room, action, **data):
    response = persona.client.post(
        reverse("games:act", args=[room.slug, action]), {"version": version_of(room), **data}
    )
    assert response.status_code == 302
    return response


@pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=3)])
def test_the_cube_goes_round_through_the_forms_in_a_match(room, alice, bob, rules):
    bind(alice, room)
    bind(bob, room)
    press(alice, room, "play", choice="8-5 6-5")
    bob_page = page_of(bob, room)
    assert {"double", "roll"} <= buttons(bob_page)
    assert "Match a 3 puntos" in bob_page

    press(bob, room, "double")
    alice_page = page_of(alice, room)
    assert {"take", "drop"} <= buttons(alice_page)
    assert "beaver" not in buttons(alice_page)  # no beavers outside a sesión libre
    press(alice, room, "take")
    assert "alice acepta el cubo en 2" in page_of(bob, room)
    assert '<span class="badge">tiene el cubo</span>' in page_of(bob, room)

    press(bob, room, "roll")
    state = bob.client.get(state_url(room)).json()["match"]
    assert state["phase"] == "move" and state["dice"] and "play" in state["allowed"]
    assert state["cube"] == {"value": 2, "owner": state["position"]["side"] ^ 1}


@pytest.mark.parametrize("rules", [MatchRules(format=Format.SESSION)])
def test_a_sesion_libre_offers_the_next_game_or_stopping_after_each_game(room, alice, bob, rules):
    bind(alice, room)
    bind(bob, room)
    press(alice, room, "resign_offer", value="2")
    press(bob, room, "resign_accept")
    page = page_of(alice, room)
    assert {"next_game", "stop"} <= buttons(page)
    assert "bob ganó la partida: 2 puntos. Pueden jugar otra o parar la sesión." in page
    press(bob, room, "next_game")
    assert "Sesión libre, partida 2" in page_of(alice, room)
    assert current_match(room).status == Match.Status.PLAYING


@pytest.mark.parametrize("rules", [MatchRules(format=Format.SESSION)])
def test_stopping_a_sesion_libre_shows_the_final_score(room, alice, bob, carol, rules):
    bind(alice, room)
    bind(bob, room)
    press(alice, room, "resign_offer", value="2")
    press(bob, room, "resign_accept")
    press(alice, room, "stop")
    assert current_match(room).status == Match.Status.FINISHED
    assert "La sesión terminó: alice 0, bob 2." in page_of(carol, room)


@pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=3)])
def test_abandoning_a_match_names_the_winner(room, alice, bob, carol, rules):
    bind(alice, room)
    press(alice, room, "forfeit", confirm="yes")
    page = page_of(carol, room)
    assert (
        "alice abandonó el encuentro en la partida 1, con alice 0, bob 0 (a 3 puntos): "
        "bob gana el encuentro." in page
    )


@pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=1)])
def test_a_match_played_out_shows_the_winner_and_the_final_score(room, alice, bob, carol, rules):

    match = play_out(room, alice, bob)
    winner = "alice" if match.seat_number_of(match.winner_side) == 1 else "bob"
    won, lost = match.state["score"][match.winner_side], match.state["score"][1 - match.winner_side]
    assert f"{winner} ganó el match, {won} a {lost}." in page_of(carol, room)


@pytest.mark.parametrize("rules", [MatchRules(format=Format.SESSION, beavers=True)])
def test_a_beaver_goes_through_the_forms_in_a_session_with_beavers(room, alice, bob, rules):
    bind(alice, room)
    bind(bob, room)
    press(alice, room, "play", choice="8-5 6-5")
    press(bob, room, "double")
    assert {"take", "drop", "beaver"} <= buttons(page_of(alice, room))
    press(alice, room, "beaver")
    assert {"take", "drop"} <= buttons(page_of(bob, room))
    assert "alice acepta y redobla a 4 (castor)" in page_of(bob, room)
    press(bob, room, "take")
    cube = bob.client.get(state_url(room)).json()["match"]["cube"]
    assert cube["value"] == 4


def test_keeping_waiting_after_two_days_is_remembered_for_that_turn(room, alice, bob, clock):
    from datetime import timedelta

    bind(bob, room)
    clock.tick(timedelta(hours=49))
    press(bob, room, "keep_waiting")
    assert current_match(room).absence_waived_for == current_match(room).turn_started_at
    after = buttons(page_of(bob, room))
    assert "keep_waiting" not in after and "claim_absence" in after


def test_the_page_gives_the_match_id_and_the_mat_download_to_a_spectator(room, carol):
    page = carol.client.get(reverse("games:room", args=[room.slug])).content.decode()
    match = selectors.room_state(room, None)["match"]
    assert re.search(rf'id="match-id"[^>]*>{re.escape(match["match_id"])}<', page)
    assert f'title="{match["gnubg_id"]}"' in page
    mat_url = reverse("games:match_file", args=[room.slug])
    assert f'<a href="{mat_url}" download>Descargar el encuentro (.mat)</a>' in page
    english = carol.client.get(reverse("games:room", args=[room.slug]), HTTP_ACCEPT_LANGUAGE="en")
    assert "Download the match (.mat)" in english.content.decode()
