"""The JSON API: state with ETag/304, actions, and a table of bad requests.

Every bad request gets its 4xx with a JSON error in the request's language and
leaves the database exactly as it was (a snapshot of every game row compares
equal). alice and bob sit at a partida simple; alice opened with 3-1 and must
play; carol watches; mallory carries a forged seat token.
"""

import json

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from games.engine import Position
from games.models import Game, Match, Room, Turn
from games.web.action_requests import ACTION_SPECS
from games.web.seats import SESSION_SEATS
from tests.helpers import (
    action_url,
    bind,
    current_match,
    first_legal_play,
    post_json,
    seat_url,
    snapshot,
    state_url,
    version_of,
)

pytestmark = pytest.mark.django_db


# --- the state endpoint -----------------------------------------------------------


def test_the_state_endpoint_answers_304_while_nothing_changes(room, alice, bob):
    bind(alice, room)
    first = alice.client.get(state_url(room))
    assert first.status_code == 200
    assert first["Content-Type"] == "application/json"
    etag = first["ETag"]
    assert etag.startswith(f'"v{version_of(room)}-')

    again = alice.client.get(state_url(room), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag

    services.game_play(seat=alice.seat, version=version_of(room), play=[[8, 5], [6, 5]])
    moved = alice.client.get(state_url(room), HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200
    assert moved["ETag"] != etag
    assert moved.json()["version"] == version_of(room)


def test_a_weak_or_listed_if_none_match_naming_the_state_still_answers_304(room, alice):
    # A proxy that compresses the body passes the tag on as weak (W/).
    bind(alice, room)
    etag = alice.client.get(state_url(room))["ETag"]
    for header in (f"W/{etag}", f'"v0-s0-0000000000000000-n", {etag}'):
        assert alice.client.get(state_url(room), HTTP_IF_NONE_MATCH=header).status_code == 304
    for header in ("*", etag.strip('"'), f"{etag}x"):
        assert alice.client.get(state_url(room), HTTP_IF_NONE_MATCH=header).status_code == 200


def test_the_etag_differs_per_viewer_so_a_spectator_never_gets_a_players_state(room, alice, carol):
    bind(alice, room)
    etag = alice.client.get(state_url(room))["ETag"]
    response = carol.client.get(state_url(room), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["viewer"] == {"seat": None, "side": None}


def test_the_state_never_carries_a_seed_or_a_token_while_the_game_runs(room, alice, carol):
    bind(alice, room)
    game = Game.objects.get(match__room=room)
    for client in (alice.client, carol.client):
        body = client.get(state_url(room)).content.decode()
        assert bytes(game.seed).hex() not in body
        assert alice.token not in body
        assert json.loads(body)["match"]["game"]["seed"] is None


def test_a_play_by_json_moves_and_answers_the_new_state(room, alice):
    bind(alice, room)
    version = version_of(room)
    response = post_json(
        alice.client, action_url(room, "play"), {"version": version, "play": [[8, 5], [6, 5]]}
    )
    assert response.status_code == 200, response.content
    state = response.json()
    assert state["version"] == version + 1
    assert state["match"]["turn_seat"] == 2
    assert Turn.objects.filter(game__match__room=room, kind="play").count() == 1


def test_the_steps_endpoint_lists_the_engines_next_steps(room, alice, bob):
    bind(alice, room)
    bind(bob, room)
    url = reverse("games:api_steps", args=[room.slug])
    options = alice.client.get(url).json()["options"]
    eight_five = Position.initial().apply([(8, 5)]).position_id()
    assert {
        "from": 8,
        "to": 5,
        "dice": [3],
        "label": "3",
        "path": [[8, 5]],
        "hits": False,
        "position_id": eight_five,
    } in options
    after = alice.client.get(url, {"taken": "8-5"}).json()["options"]
    assert {(o["from"], o["to"]) for o in after} >= {(6, 5), (24, 23)}
    assert all(o["dice"] == [1] for o in after)
    # Each option's Position ID is of the checkers once the taken steps and it are played.
    [six_five] = [o for o in after if (o["from"], o["to"]) == (6, 5)]
    assert six_five["position_id"] == Position.initial().apply([(8, 5), (6, 5)]).position_id()
    assert bob.client.get(url).json()["options"] == []
    assert alice.client.get(url, {"taken": "24-18"}).status_code == 422  # not a 3 or a 1
    assert alice.client.get(url, {"taken": "8-five"}).status_code == 400
    for odd_number in ("8-²", "٨-5", "8-" + "5" * 5000):  # digits to isdigit(), not to int()
        assert alice.client.get(url, {"taken": odd_number}).status_code == 400
    assert Client().get(url).status_code == 403


def test_joining_by_json_binds_the_seat_to_the_browser(alice, dice):
    room = alice.seat.room
    guest = Client()
    dice.push((5, 2))
    response = post_json(guest, reverse("games:api_join", args=[room.slug]), {"nickname": "dora"})
    assert response.status_code == 200, response.content
    assert response.json()["viewer"]["seat"] == 2
    assert room.slug in guest.session[SESSION_SEATS]
    again = post_json(guest, reverse("games:api_join", args=[room.slug]), {"nickname": "dora"})
    assert again.status_code == 409


# --- the table of bad requests ------------------------------------------------------


def finish_the_game(room, alice, bob):
    services.match_resign(seat=bob.seat, version=version_of(room))


def plant_forged_token(room, mallory):
    session = mallory.client.session
    session[SESSION_SEATS] = {room.slug: mallory.token}
    session.save()


GOOD = [[8, 5], [6, 5]]  # a legal play for alice's opening 3-1


def case(name, who, action, body, status, code=None, setup=None):
    return pytest.param(who, action, body, status, code, setup, id=name)


BAD_REQUESTS = [
    case("malformed JSON", "alice", "play", '{"version": 1, "play": [[8, 5]', 400, "bad_json"),
    case("a JSON list, not an object", "alice", "roll", "[1, 2]", 400, "bad_json"),
    case("not UTF-8", "alice", "roll", b"\xff\xfe", 400, "bad_json"),
    case("version missing", "alice", "play", {"play": GOOD}, 400, "bad_version"),
    case("version in quotes", "alice", "play", {"version": "1", "play": GOOD}, 400, "bad_version"),
    case("version as a boolean", "alice", "roll", {"version": True}, 400, "bad_version"),
    case("negative version", "alice", "roll", {"version": -1}, 400, "bad_version"),
    case("play is text", "alice", "play", {"version": 1, "play": "8/5 6/5"}, 400, "bad_play"),
    case("step of strings", "alice", "play", {"version": 1, "play": [["8", "5"]]}, 400, "bad_play"),
    case("off the board", "alice", "play", {"version": 1, "play": [[30, 27]]}, 400, "bad_play"),
    case("three-point step", "alice", "play", {"version": 1, "play": [[8, 5, 4]]}, 400, "bad_play"),
    case("resign value 7", "alice", "resign_offer", {"version": 1, "value": 7}, 400, "bad_value"),
    case("unknown action", "alice", "teleport", {"version": 1}, 400, "unknown_action"),
    case("illegal steps", "alice", "play", {"version": 1, "play": [[24, 20], [13, 12]]}, 422),
    case("a die left unused", "alice", "play", {"version": 1, "play": [[8, 5]]}, 422),
    case("doubling after the roll", "alice", "double", {"version": 1}, 422),
    case("the seat not on turn", "bob", "play", {"version": 1, "play": GOOD}, 409, "not_your_turn"),
    case("stale version", "alice", "play", {"version": 0, "play": GOOD}, 409, "stale_version"),
    case("keeping waiting at once", "bob", "keep_waiting", {"version": 1}, 422, "too_early"),
    case("spectator acting", "carol", "play", {"version": 1, "play": GOOD}, 403, "not_seat_holder"),
    case("missing token", "nobody", "roll", {"version": 1}, 403, "not_seat_holder"),
    case(
        "forged token",
        "mallory",
        "play",
        {"version": 1, "play": GOOD},
        403,
        "not_seat_holder",
        setup=plant_forged_token,
    ),
    case(
        "finished game",
        "alice",
        "play",
        {"version": 2, "play": GOOD},
        409,
        "match_over",
        setup=finish_the_game,
    ),
]


@pytest.mark.parametrize(("who", "action", "body", "status", "code", "setup"), BAD_REQUESTS)
def test_a_bad_request_gets_its_4xx_and_changes_nothing(
    room, alice, bob, carol, mallory, who, action, body, status, code, setup
):
    assert version_of(room) == 1  # the table's versions assume the opening was just rolled
    bind(alice, room)
    bind(bob, room)
    if setup is finish_the_game:
        setup(room, alice, bob)
    elif setup is not None:
        setup(room, mallory)
    client = {"alice": alice, "bob": bob, "carol": carol, "mallory": mallory}.get(who)
    client = client.client if client else Client()
    before = snapshot()

    response = post_json(client, action_url(room, action), body)

    assert response.status_code == status, response.content
    error = response.json()["error"]
    if code is not None:
        assert error["code"] == code
    assert error["message"]
    assert snapshot() == before


def test_keeping_waiting_is_offered_and_taken_only_once_the_deadline_passed(room, bob, clock):
    from datetime import timedelta

    bind(bob, room)  # alice is on turn; bob waits
    assert "keep_waiting" not in bob.client.get(state_url(room)).json()["match"]["allowed"]
    clock.tick(timedelta(hours=47, minutes=59))
    assert "keep_waiting" not in bob.client.get(state_url(room)).json()["match"]["allowed"]
    early = post_json(bob.client, action_url(room, "keep_waiting"), {"version": 1})
    assert early.status_code == 422 and early.json()["error"]["code"] == "too_early"
    assert version_of(room) == 1

    clock.tick(timedelta(minutes=1))
    assert "keep_waiting" in bob.client.get(state_url(room)).json()["match"]["allowed"]
    kept = post_json(bob.client, action_url(room, "keep_waiting"), {"version": 1})
    assert kept.status_code == 200, kept.content
    assert "keep_waiting" not in kept.json()["match"]["allowed"]
    again = post_json(bob.client, action_url(room, "keep_waiting"), {"version": 2})
    assert again.status_code == 422 and again.json()["error"]["code"] == "wrong_phase"


def test_the_forged_seat_link_is_refused_and_binds_nothing(room, mallory):
    response = mallory.client.get(seat_url(room, mallory.token))
    assert response.status_code == 403
    assert SESSION_SEATS not in mallory.client.session
    refused = post_json(mallory.client, action_url(room, "roll"), {"version": 1})
    assert refused.status_code == 403


def test_an_unknown_room_is_a_json_404(db):
    response = Client().get(state_url(Room(slug="no-such-room")))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Client().get("/api/nothing/here").json()["error"]["code"] == "not_found"


def test_reading_an_action_endpoint_is_a_405(room):
    response = Client().get(action_url(room, "roll"))
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_an_action_without_the_csrf_token_is_refused_in_json(room, alice):
    browser = Client(enforce_csrf_checks=True)
    browser.get(seat_url(room, alice.token))
    before = snapshot()
    response = post_json(browser, action_url(room, "play"), {"version": 1, "play": GOOD})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "csrf_failed"
    assert snapshot() == before

    # With the header the page's JavaScript sends, the same request goes through.
    browser.get(reverse("games:room", args=[room.slug]))
    token = browser.cookies["csrftoken"].value
    accepted = post_json(
        browser,
        action_url(room, "play"),
        {"version": 1, "play": [[8, 5], [6, 5]]},
        HTTP_X_CSRFTOKEN=token,
    )
    assert accepted.status_code == 200, accepted.content


def test_errors_speak_the_language_of_the_request(room, alice):
    bind(alice, room)
    stale = {"version": 0, "play": [[8, 5], [6, 5]]}
    spanish = post_json(alice.client, action_url(room, "play"), stale)
    english = post_json(alice.client, action_url(room, "play"), stale, HTTP_ACCEPT_LANGUAGE="en")
    assert spanish.json()["error"]["message"].startswith("La partida cambió")
    assert english.json()["error"]["message"].startswith("The game changed")
    assert spanish.json()["error"]["code"] == english.json()["error"]["code"] == "stale_version"


def test_every_step_of_a_whole_game_can_go_through_the_json_api(room, alice, bob):
    bind(alice, room)
    bind(bob, room)
    clients = {1: alice.client, 2: bob.client}
    for _ in range(400):
        match = current_match(room)
        if match.status == Match.Status.FINISHED:
            break
        seat_number = 1 if match.turn_seat_id == alice.seat.pk else 2
        side = match.side_of(alice.seat if seat_number == 1 else bob.seat)
        body = {"version": match.version, "play": first_legal_play(room, side)}
        response = post_json(clients[seat_number], action_url(room, "play"), body)
        assert response.status_code == 200, response.content
    state = alice.client.get(state_url(room)).json()
    assert state["match"]["status"] == "finished"
    assert state["match"]["game"]["seed"] is not None


def test_a_rule_code_without_its_own_sentence_still_reads_in_the_players_language(
    room, alice, monkeypatch
):
    from dataclasses import replace

    from games.lib.errors import IllegalMoveError

    def refuse(**kwargs):
        raise IllegalMoveError("a_rule_added_later", "an English reason for developers")

    # The API holds the service's function object (no lookup by name): swap it there.
    monkeypatch.setitem(ACTION_SPECS, "play", replace(ACTION_SPECS["play"], service=refuse))
    bind(alice, room)
    response = post_json(alice.client, action_url(room, "play"), {"version": 1, "play": GOOD})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "a_rule_added_later"
    assert error["message"] == "Esa jugada no es legal con estos dados."


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
bodies = (
    st.fixed_dictionaries(
        {},
        optional={"version": json_values, "play": json_values, "value": json_values},
    )
    | json_values
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(action=st.sampled_from([*ACTION_SPECS, "nonsense"]), body=bodies)
def test_no_body_of_any_shape_gets_a_500(room, alice, action, body):
    bind(alice, room)
    response = post_json(alice.client, action_url(room, action), body)
    assert response.status_code < 500
    if response.status_code >= 400:
        assert set(response.json()["error"]) == {"code", "message"}


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    action=st.sampled_from([*ACTION_SPECS]),
    fields=st.dictionaries(
        st.sampled_from(["version", "value", "choice", "typed"]), st.text(max_size=20)
    ),
)
def test_no_form_post_of_any_shape_gets_a_500(room, alice, action, fields):
    bind(alice, room)
    response = alice.client.post(reverse("games:act", args=[room.slug, action]), fields)
    assert response.status_code == 302


def test_creating_a_room_by_json_seats_the_host(clock, dice):
    host = Client()
    body = {"rules": {"format": "match", "length": 5}, "nickname": "alice"}
    response = post_json(host, reverse("games:api_create"), body)
    assert response.status_code == 201, response.content
    state = response.json()
    room = Room.objects.get()
    assert response["Location"] == reverse("games:room", args=[room.slug])
    assert state["viewer"]["seat"] == 1 and state["match"] is None
    assert state["room"]["rules"]["length"] == 5


def test_creating_a_room_against_a_computer_player_by_json_starts_the_match(clock, dice):
    body = {"rules": {"format": "single"}, "nickname": "ana", "bot": "domador"}
    response = post_json(Client(), reverse("games:api_create"), body)
    assert response.status_code == 201
    assert response.json()["match"]["status"] == "playing"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"rules": {"format": "chess"}, "nickname": "alice"}, "bad_rules"),
        ({"rules": {"format": "match", "length": 26}, "nickname": "alice"}, "bad_rules"),
        ({"rules": {"format": "single", "beavers": True}, "nickname": "alice"}, "bad_rules"),
        ({"rules": "single", "nickname": "alice"}, "bad_rules"),
        ({"rules": {}, "nickname": 7}, "bad_nickname"),
        ({"rules": {}, "nickname": ""}, "bad_nickname"),
        ({"rules": {}, "nickname": "alice", "email": "nope"}, "bad_email"),
        ({"rules": {}, "nickname": "alice", "email_consent": "yes"}, "bad_email"),
        ({"rules": {}, "nickname": "alice", "bot": "gnubg"}, "bad_bot"),
        ({"rules": {}, "nickname": "alice", "bot": 3}, "bad_bot"),
    ],
)
def test_a_bad_room_creation_is_a_400_and_creates_nothing(db, clock, dice, body, code):
    response = post_json(Client(), reverse("games:api_create"), body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert snapshot() == {name: [] for name in ("Room", "Seat", "Match", "Game", "Turn")}
