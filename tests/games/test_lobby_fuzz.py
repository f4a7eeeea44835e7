"""Hypothesis throws odd input at the lobby's, the invitations' and the messages'
endpoints, as tests/games/test_fuzz.py does at the rest.

Whatever arrives, the answer is never a 5xx, under /api/ it is a JSON error,
and a refused request changes no row, challenges and messages included.
"""

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from games import services
from games.engine import MatchRules
from games.models import Challenge, Message, Mute
from tests.games.test_fuzz import (
    FUZZ,
    as_body,
    content_types,
    form_body,
    json_values,
    odd_text,
    post_raw,
    raw_bodies,
    url_text,
)
from tests.helpers import bind, make_player, whole_db

pytestmark = pytest.mark.django_db

LOBBY_KEYS = ["rules", "rating_min", "rating_max", "username", "text", "message", "version"]
lobby_objects = st.dictionaries(st.sampled_from(LOBBY_KEYS) | odd_text, json_values, max_size=5)


def everything() -> dict:
    rows = whole_db()
    for model in (Challenge, Message, Mute):
        rows[model.__name__] = list(model.objects.order_by("pk").values())
    return rows


def assert_no_harm(response, path, before):
    assert response.status_code < 500, (path, response.content[:300])
    if path.startswith("/api/") and response.status_code >= 400:
        assert response["Content-Type"] == "application/json", path
        assert response.json()["error"]["message"], path
    if response.status_code >= 400:
        assert everything() == before, path


@pytest.fixture
def lobby_tables(room, alice, clock):
    """alice's room in play and bound to her browser, and an open challenge of ana's."""
    bind(alice, room)
    ana = make_player("ana")
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    signed_in = Client()
    signed_in.force_login(make_player("beto"))
    return room, challenge, alice.client, signed_in


@FUZZ
@given(data=st.data())
def test_the_lobby_endpoints_never_fail_and_refusals_change_nothing(lobby_tables, data):
    room, challenge, seated, signed_in = lobby_tables
    slug = data.draw(st.sampled_from([challenge.slug]) | odd_text.map(url_text), label="slug")
    path = data.draw(
        st.sampled_from(
            [
                "/api/challenges",
                "/api/invitations",
                f"/api/challenges/{slug or '%00'}/withdraw",
                f"/api/challenges/{slug or '%00'}/decline",
                f"/api/rooms/{room.slug}/messages",
                f"/api/rooms/{room.slug}/mute",
                f"/api/rooms/{room.slug}/actions/play",
            ]
        ),
        label="path",
    )
    body = data.draw(st.one_of(lobby_objects.map(as_body), raw_bodies), label="body")
    content_type = data.draw(content_types, label="content type")
    client = data.draw(st.sampled_from([seated, signed_in, Client()]), label="client")
    before = everything()
    response = post_raw(client, path, body, content_type)
    assert_no_harm(response, path, before)


@FUZZ
@given(data=st.data())
def test_the_lobby_forms_and_pages_never_fail(lobby_tables, data):
    room, challenge, seated, signed_in = lobby_tables
    slug = data.draw(st.sampled_from([challenge.slug]) | odd_text.map(url_text), label="slug")
    path = data.draw(
        st.sampled_from(
            [
                "/desafios/",
                f"/desafios/{slug or '%00'}/retirar/",
                f"/desafios/{slug or '%00'}/rechazar/",
                f"/jugadores/{slug or '%00'}/desafiar/",
                f"/mesa/{room.slug}/mensaje/",
                f"/api/challenges/{slug or '%00'}",
            ]
        ),
        label="path",
    )
    form = data.draw(
        st.dictionaries(
            st.sampled_from(["format", "length", "rating_min", "rating_max", "text"]),
            odd_text,
            max_size=5,
        ),
        label="form",
    )
    client = data.draw(st.sampled_from([seated, signed_in, Client()]), label="client")
    method = data.draw(st.sampled_from(["get", "post"]), label="method")
    before = everything()
    if method == "post":
        response = client.post(
            path, data=form_body(form), content_type="application/x-www-form-urlencoded"
        )
    else:
        response = client.get(path)
    assert_no_harm(response, path, before)
    if method == "get":
        assert everything() == before
