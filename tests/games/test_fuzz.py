"""Hypothesis throws odd input at every endpoint: the JSON API's POSTs, the
pages' form POSTs and every URL that carries a room slug.

Whatever arrives (NUL bytes, lone surrogates, deep nesting, wrong types,
strange content types, slugs no room can have), the answer is never a 5xx,
under /api/ it is always a JSON error, and a refused request changes no row.
On PostgreSQL (CI) too, where NUL bytes used to break the queries.
"""

import json
import sys
from contextlib import contextmanager
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from games.engine import MatchRules
from games.web.action_requests import ACTION_SPECS
from tests.helpers import SLUG_PATHS, bind, whole_db

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,  # the same examples on every run: a failure is reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text as an attacker types it: any code point, surrogates and NUL included,
# and a few values that broke the site before.
odd_text = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=40),
    st.sampled_from(["\x00", "a\x00b", "\ud800", "<b>", "a" * 300 + "@example.com", ""]),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | odd_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(odd_text, inner, max_size=4),
    max_leaves=12,
)
KNOWN_KEYS = [
    "nickname", "email", "email_consent", "rules", "bot", "version", "play", "value", "format",
]  # fmt: skip
json_objects = st.dictionaries(st.sampled_from(KNOWN_KEYS) | odd_text, json_values, max_size=6)
# Bodies shaped like a real create or join, so the odd text reaches the services.
player_objects = st.fixed_dictionaries(
    {"nickname": odd_text},
    optional={
        "email": odd_text,
        "email_consent": st.booleans(),
        "rules": st.sampled_from([{"format": "single"}, {"format": "match", "length": 3}]),
        "bot": st.sampled_from([None, "domador"]) | odd_text,
    },
)
deep = st.sampled_from([2, 999, 1100, 3000])


def as_body(value) -> bytes:
    # ensure_ascii writes a lone surrogate as the escape "\ud800", as a client would.
    return json.dumps(value, ensure_ascii=True).encode()


raw_bodies = st.one_of(
    json_objects.map(as_body),
    json_values.map(as_body),
    st.binary(max_size=60),
    deep.map(lambda depth: ("[" * depth + "]" * depth).encode()),
    deep.map(lambda depth: ('{"a":' * depth + "1" + "}" * depth).encode()),
)
content_types = st.sampled_from(
    [
        "application/json",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
        "text/plain",
        "application/json; charset=latin-1",
    ]
)


def url_text(text: str) -> str:
    """`text` percent-encoded for a URL, lone surrogates as their (invalid) UTF-8 bytes."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def assert_no_harm(response, path, before):
    assert response.status_code < 500, (path, response.content[:300])
    if path.startswith("/api/") and response.status_code >= 400:
        assert response["Content-Type"] == "application/json", path
        if response.content:  # a HEAD answer has the headers only
            assert response.json()["error"]["message"], path
    if response.status_code >= 400:
        assert whole_db() == before, path


@pytest.fixture
def tables(room, alice, clock):
    """alice's room in play (her seat bound to her browser) and a room waiting for a guest."""
    bind(alice, room)
    waiting = services.room_create(rules=MatchRules(), nickname="dora").room
    return room, waiting, alice.client


@contextmanager
def production_stack():
    """Python's own recursion limit while the request runs. Hypothesis raises it
    for the test, which hid the RecursionError deep JSON caused in production."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def post_raw(client, path, body, content_type):
    # Not helpers.post_json: any content type, and generic() sends the bytes as
    # they are, whatever charset the header claims, under production's recursion limit.
    with production_stack():
        return client.generic("POST", path, data=body, content_type=content_type)


@FUZZ
@given(data=st.data())
def test_creating_and_joining_by_json_never_fail_and_refusals_change_nothing(tables, data):
    _room, waiting, seated = tables
    create, join = reverse("games:api_create"), reverse("games:api_join", args=[waiting.slug])
    path = data.draw(st.sampled_from([create, join]), label="path")
    client = data.draw(st.sampled_from([seated, Client()]), label="client")
    body = data.draw(player_objects.map(as_body) | raw_bodies, label="body")
    content_type = data.draw(content_types, label="content_type")
    before = whole_db()
    assert_no_harm(post_raw(client, path, body, content_type), path, before)


@FUZZ
@given(data=st.data())
def test_game_actions_by_json_never_fail_and_refusals_change_nothing(tables, data):
    room, _waiting, seated = tables
    action = data.draw(st.sampled_from(list(ACTION_SPECS)) | odd_text.map(url_text), label="action")
    path = f"/api/rooms/{room.slug}/actions/{action}"
    client = data.draw(st.sampled_from([seated, Client()]), label="client")
    body = data.draw(raw_bodies, label="body")
    content_type = data.draw(content_types, label="content_type")
    before = whole_db()
    assert_no_harm(post_raw(client, path, body, content_type), path, before)


# The account forms a visitor can post without logging in.
ACCOUNT_FORMS = ["/cuenta/registro/", "/cuenta/entrar/", "/cuenta/clave/olvidada/"]
FORM_KEYS = ["nickname", "email", "email_consent", "format", "length", "opponent", "version"]
ACCOUNT_KEYS = ["username", "password", "password1", "password2"]
form_fields = st.dictionaries(
    st.sampled_from(FORM_KEYS + ACCOUNT_KEYS) | odd_text,
    odd_text,
    max_size=6,
)


def form_body(fields: dict) -> str:
    return "&".join(f"{url_text(key)}={url_text(value)}" for key, value in fields.items())


@FUZZ
@given(data=st.data())
def test_form_posts_never_fail_and_refusals_change_nothing(tables, data):
    room, waiting, _seated = tables
    actions = [reverse("games:act", args=[room.slug, action]) for action in ACTION_SPECS]
    pages = [reverse("games:home"), reverse("games:join", args=[waiting.slug]), *ACCOUNT_FORMS]
    path = data.draw(st.sampled_from(pages + actions), label="path")
    fields = data.draw(form_fields, label="fields")
    before = whole_db()
    # A spectator's buttons: whatever they send, the table is not theirs to move.
    response = Client().post(
        path, data=form_body(fields), content_type="application/x-www-form-urlencoded"
    )
    assert_no_harm(response, path, before)
    if path in actions:
        assert whole_db() == before


@FUZZ
@given(data=st.data())
def test_urls_with_odd_slugs_never_fail(tables, data):
    room, _waiting, seated = tables
    slug = data.draw(st.sampled_from([room.slug]) | odd_text.map(url_text), label="slug")
    pattern = data.draw(
        st.sampled_from(
            [
                *SLUG_PATHS,
                "/api/rooms/{}/steps?taken={}",
                "/api/",
                "/api/{}",
                "/cuenta/correo/baja/{}/",
                "/cuenta/correo/confirmar/{}/",
                "/cuenta/clave/nueva/{}/{}/",
                "/cuenta/entrar/?next={}",
            ]
        )
    )
    path = pattern.format(slug or "%00", url_text(data.draw(odd_text, label="taken")))
    method = data.draw(st.sampled_from(["get", "post", "put", "delete", "head"]), label="method")
    client = data.draw(st.sampled_from([seated, Client()]), label="client")
    before = whole_db()
    response = getattr(client, method)(path)
    assert_no_harm(response, path.partition("?")[0], before)
    if method != "post":
        assert whole_db() == before
