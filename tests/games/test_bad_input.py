"""Input nobody should send: a clear 4xx, JSON under /api/, in the request's
language, and not one row changed.

Each case here answered 500 before (RecursionError, PostgreSQL DataError,
UnicodeEncodeError, Django's HTML error pages under /api/).
"""

from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from games import selectors, services, tasks
from games.engine import MatchRules
from games.mail import messages
from tests.helpers import SLUG_PATHS, action_url, bind, post_json, when_published, whole_db

pytestmark = pytest.mark.django_db

DEEP = "[" * 1100 + "]" * 1100  # 2,200 bytes: under the body limit, deeper than the parser
LONG_EMAIL = "a" * 64 + "@" + ".".join(["b" * 60] * 4) + ".com"  # 313 characters


def assert_json_error(response, status, code=None):
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code
    return error


def csrf_checked_browser():
    """A client the CSRF middleware checks, holding a cookie, so the check goes on
    to read the form body for its token, as it does for a browser in production."""
    browser = Client(enforce_csrf_checks=True)
    browser.cookies["csrftoken"] = "a" * 32
    return browser


def json_post_urls(room):
    """Every JSON endpoint that takes a body."""
    return [
        reverse("games:api_create"),
        reverse("games:api_join", args=[room.slug]),
        action_url(room, "roll"),
        action_url(room, "play"),
    ]


def test_json_nested_deeper_than_the_parser_is_a_400_everywhere(alice):
    room = alice.seat.room
    bind(alice, room)
    before = whole_db()
    for url in json_post_urls(room):
        for client in (alice.client, Client()):
            assert_json_error(post_json(client, url, DEEP), 400, "bad_json")
            assert_json_error(post_json(client, url, '{"play": ' + DEEP + "}"), 400, "bad_json")
    assert whole_db() == before


@pytest.mark.parametrize(
    "nickname",
    ["ana\x00", "\x00", "\ud800", "ana\udfff"],
    ids=["trailing NUL", "only NUL", "lone high surrogate", "lone low surrogate"],
)
def test_a_nickname_no_column_can_hold_is_a_400(alice, nickname):
    room = alice.seat.room
    before = whole_db()
    # json.dumps writes the surrogate as the escape "\ud800", as an attacker would.
    for url in (reverse("games:api_create"), reverse("games:api_join", args=[room.slug])):
        body = {"nickname": nickname, "rules": {"format": "single"}}
        assert_json_error(post_json(Client(), url, body), 400, "bad_nickname")
    assert whole_db() == before


@pytest.mark.parametrize("length", [255, 290, 320])
def test_an_email_longer_than_the_column_is_refused_by_the_api(alice, length):
    email = "a" * (length - len("@example.com")) + "@example.com"
    assert len(email) == length
    room = alice.seat.room
    before = whole_db()
    for url in (reverse("games:api_create"), reverse("games:api_join", args=[room.slug])):
        body = {"nickname": "ana", "email": email, "email_consent": True}
        assert_json_error(post_json(Client(), url, body), 400, "bad_email")
    assert whole_db() == before


def test_an_email_longer_than_the_column_is_a_form_error_on_the_home_and_join_forms(alice):
    room = alice.seat.room
    before = whole_db()
    fields = {"nickname": "ana", "email": LONG_EMAIL, "email_consent": "on"}
    home = Client().post(reverse("games:home"), {**fields, "format": "single"})
    assert home.status_code == 200
    assert home.context["form"].errors["email"]
    join = Client().post(reverse("games:join", args=[room.slug]), fields)
    assert join.status_code == 400
    assert join.context["join_form"].errors["email"]
    assert whole_db() == before


def test_a_nul_in_a_nickname_is_a_form_error_on_the_home_and_join_forms(alice):
    room = alice.seat.room
    before = whole_db()
    home = Client().post(reverse("games:home"), {"nickname": "a\x00b", "format": "single"})
    assert home.status_code == 200 and home.context["form"].errors["nickname"]
    join = Client().post(reverse("games:join", args=[room.slug]), {"nickname": "a\x00b"})
    assert join.status_code == 400 and join.context["join_form"].errors["nickname"]
    assert whole_db() == before


ODD_SLUGS = ["a%00b", "%00", "a%ED%A0%80b", "x" * 33, "a%20b", "%C3%B1"]


@pytest.mark.parametrize("slug", ODD_SLUGS)
def test_a_slug_no_room_can_have_is_a_404_before_the_database(alice, slug):
    before = whole_db()
    for pattern in SLUG_PATHS:
        path = pattern.format(slug)
        for method in ("get", "post"):
            response = getattr(Client(), method)(path)
            if path.startswith("/api/"):
                assert_json_error(response, 404, "not_found")
            else:
                assert response.status_code == 404, path
    assert whole_db() == before


def test_an_impossible_slug_is_refused_by_the_url_without_a_query(db, django_assert_num_queries):
    # The room converter is the one check: what passes it is a slug a room can have.
    with django_assert_num_queries(0):
        for slug in ("a\x00b", "x" * 33, "ñ", "a b"):
            response = Client().get(f"/api/rooms/{slug}/")
            assert_json_error(response, 404, "not_found")


# --- every error under /api/ is JSON ----------------------------------------------


def test_the_api_root_and_unknown_paths_are_json_404s(db):
    for path in ("/api/", "/api", "/api/rooms/", "/api/nothing/here"):
        assert_json_error(Client().get(path), 404, "not_found")


def test_a_multipart_body_without_its_boundary_is_a_json_400(alice):
    before = whole_db()
    browser = csrf_checked_browser()
    for url in json_post_urls(alice.seat.room):
        response = browser.post(url, data=b"--x\r\n", content_type="multipart/form-data")
        assert_json_error(response, 400)
        # Without the CSRF middleware reading it, the endpoint reads it: still JSON.
        response = Client().post(url, data=b"--x\r\n", content_type="multipart/form-data")
        assert_json_error(response, 400, "bad_json")
    assert whole_db() == before


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_body_over_djangos_upload_limit_is_a_json_413(alice):
    before = whole_db()
    browser = csrf_checked_browser()
    for url in json_post_urls(alice.seat.room):
        big_form = browser.post(
            url, data="a=" + "b" * 2000, content_type="application/x-www-form-urlencoded"
        )
        assert_json_error(big_form, 413, "too_large")
        big_json = post_json(Client(), url, {"nickname": "x" * 5000})
        assert_json_error(big_json, 413, "too_large")
    assert whole_db() == before


def test_an_unexpected_error_under_the_api_is_a_json_500(room, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors.board, "room_state_and_until", broken)
    response = Client(raise_request_exception=False).get(f"/api/rooms/{room.slug}/")
    assert_json_error(response, 500, "server_error")


def test_errors_outside_views_speak_the_requests_language(db):
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    error = assert_json_error(english.get("/api/"), 404)
    assert error["message"] == "We could not find that table."
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es")
    assert assert_json_error(spanish.get("/api/"), 404)["message"] == "No encontramos esa mesa."
    deep = post_json(english, reverse("games:api_create"), DEEP)
    assert assert_json_error(deep, 400)["message"] == "The request body must be a JSON object."


# --- email subjects are plain text --------------------------------------------------


def test_a_nickname_with_markup_reads_as_typed_in_the_subject(clock, dice, mailoutbox, monkeypatch):
    when_published(monkeypatch, tasks.turn_email, lambda *args: None)
    when_published(monkeypatch, tasks.opponent_joined_email, lambda *args: None)
    host = services.room_create(
        rules=MatchRules(), nickname="ana", email="ana@example.com", email_consent=True
    )
    clock.tick(timedelta(hours=1))
    dice.push((3, 1))
    services.room_join(room=host.room, nickname="<b>Tom & 'Jerry'</b>")
    assert messages.send_opponent_joined(room_id=host.room_id) == 1
    [email] = mailoutbox
    assert email.subject == "<b>Tom & 'Jerry'</b> se sentó a tu mesa"
    assert "<b>Tom & 'Jerry'</b>" in email.body  # the text part is plain text too
    [(html, _type)] = email.alternatives
    assert "&lt;b&gt;Tom &amp; &#x27;Jerry&#x27;&lt;/b&gt;" in html  # the HTML part escapes
    assert "<b>Tom" not in html
