"""A refused request writes nothing: no session row, no cache key, no game row;
and a JSON POST sent as multipart is a JSON 400, not a 500."""

import json

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse

from config.settings import base
from games.models import Room
from tests.helpers import action_url, bind, post_json

pytestmark = pytest.mark.django_db

CREATE = {"nickname": "ana", "rules": {"format": "single"}}
# A cache of this module's own, whose keys can be counted.
COUNTED_CACHE = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "refused-requests",
    }
}


def cache_keys() -> int:
    return len(cache._cache)  # LocMemCache's store


@pytest.fixture(autouse=True)
def _counted_cache():
    with override_settings(CACHES=COUNTED_CACHE):
        cache.clear()
        yield
        cache.clear()


def limits(**kinds):
    return override_settings(MESA_RATE_LIMITS={**base.MESA_RATE_LIMITS, **kinds})


@limits(create={"address": (1, 600), "session": (100, 600)})
def test_two_thousand_rate_limited_posts_write_no_session_and_no_cache_key():
    assert post_json(Client(), reverse("games:api_create"), CREATE).status_code == 201
    sessions, keys, rooms = Session.objects.count(), cache_keys(), Room.objects.count()

    refused = {
        post_json(Client(), reverse("games:api_create"), CREATE).status_code for _ in range(2000)
    }

    assert refused == {429}
    assert Session.objects.count() == sessions
    assert cache_keys() == keys
    assert Room.objects.count() == rooms


@limits(create={"address": (100, 600), "session": (1, 600)})
def test_a_session_past_its_limit_keeps_its_count_and_writes_nothing_more():
    browser = Client()
    assert post_json(browser, reverse("games:api_create"), CREATE).status_code == 201
    sessions, keys = Session.objects.count(), cache_keys()
    session_data = Session.objects.get().session_data

    answers = {
        post_json(browser, reverse("games:api_create"), CREATE).status_code for _ in range(20)
    }

    assert answers == {429}
    assert (Session.objects.count(), cache_keys()) == (sessions, keys)
    assert Session.objects.get().session_data == session_data


def test_rejected_posts_from_browsers_without_a_session_write_no_session():
    url = reverse("games:api_create")
    bodies = ["not json", "[1, 2]", json.dumps({"nickname": "", "rules": {}}), "{" * 50]
    for body in bodies * 25:
        assert post_json(Client(), url, body).status_code in (400, 422)
    assert Session.objects.count() == 0
    assert Room.objects.count() == 0


def test_a_stale_action_from_a_stranger_writes_no_session(room):
    url = action_url(room, "roll")
    for _ in range(50):
        assert post_json(Client(), url, {"version": 99}).status_code in (403, 409)
    assert Session.objects.count() == 0


def test_a_players_count_survives_taking_a_seat(room, alice, settings):
    # The seat link cycles the session key; the session's count goes on.
    settings.MESA_RATE_LIMITS = {
        **base.MESA_RATE_LIMITS,
        "action": {"address": (100, 60), "session": (3, 60)},
    }
    bind(alice, room)
    url = action_url(room, "roll")
    statuses = [post_json(alice.client, url, {"version": 99}).status_code for _ in range(4)]
    assert statuses == [409, 409, 409, 429]


def test_a_json_post_sent_as_multipart_answers_a_json_400():
    browser = Client(enforce_csrf_checks=True)
    browser.get(reverse("games:home"))
    token = browser.cookies["csrftoken"].value
    response = browser.post(
        reverse("games:api_create"),
        data=json.dumps(CREATE),
        content_type="multipart/form-data; boundary=mesa",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "bad_json"
    assert Room.objects.count() == 0
