"""Rate limits on creating rooms, joining and acting (games.web.throttle), and the
bounded list of seats one session remembers.

Each test runs on the suite's cache (the database's) and on Redis as production
has it (config.cache.FailOpenRedisCache, whose counters are one script)."""

import pytest
import redis
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse

from config.settings import base
from games import services
from games.engine import MatchRules
from games.models import Room, Seat
from games.web.seats import SESSION_SEATS
from tests.helpers import REDIS_URL, action_url, bind, missing, post_json, seat_url

pytestmark = pytest.mark.django_db

CREATE = {"nickname": "ana", "rules": {"format": "single"}}


# A database of the worker tests' Redis for these counters alone.
COUNTERS_REDIS_URL = REDIS_URL.rsplit("/", 1)[0] + "/12"


@pytest.fixture(autouse=True, params=["database", "redis"])
def _fresh_counts(request):
    if request.param == "database":
        cache.clear()
        yield
        cache.clear()
        return
    try:
        redis.Redis.from_url(COUNTERS_REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {COUNTERS_REDIS_URL} ({error}); .ci/run starts it")
    production = {"BACKEND": "config.cache.FailOpenRedisCache", "LOCATION": COUNTERS_REDIS_URL}
    with override_settings(CACHES={**base.CACHES, "default": production}):
        cache.clear()
        yield
        cache.clear()


@pytest.mark.parametrize("_fresh_counts", ["redis"], indirect=True)
def test_a_counter_on_redis_starts_its_window_and_a_refusal_writes_nothing(_fresh_counts):
    from accounts.ratelimit import allow_all

    counters = [("t:address", "203.0.113.9", 5, 60), ("t:session", "s1", 2, 60)]
    assert [allow_all(counters) for _ in range(3)] == [True, True, False]
    client = redis.Redis.from_url(COUNTERS_REDIS_URL)
    keys = sorted(key.decode() for key in client.keys("*mesa:rate:*"))
    assert len(keys) == 2
    # Refused: neither counter moved, the address's stays at 2 of its 5.
    assert sorted(cache.get_many([key.split(":", 2)[2] for key in keys]).values()) == [2, 2]
    assert all(0 < client.ttl(key) <= 60 for key in keys)


def limits(**kinds):
    return override_settings(MESA_RATE_LIMITS={**base.MESA_RATE_LIMITS, **kinds})


def create(client, **extra):
    return post_json(client, reverse("games:api_create"), CREATE, **extra)


@limits(create={"address": (100, 600), "session": (2, 600)})
def test_one_session_past_its_limit_gets_a_json_429_and_creates_nothing():
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert [create(browser).status_code for _ in range(2)] == [201, 201]
    rooms = Room.objects.count()

    refused = create(browser)

    assert refused.status_code == 429
    assert refused["Retry-After"] == "600"
    assert refused.json()["error"] == {
        "code": "too_many_requests",
        "message": "You are going too fast. Wait a moment and try again.",
    }
    assert Room.objects.count() == rooms
    # Another browser from the same address is still welcome.
    assert create(Client()).status_code == 201


@limits(create={"address": (3, 600), "session": (100, 600)})
def test_one_address_past_its_limit_is_refused_whatever_its_cookies():
    fresh = [create(Client(), REMOTE_ADDR="203.0.113.7").status_code for _ in range(4)]
    assert fresh == [201, 201, 201, 429]
    assert create(Client(), REMOTE_ADDR="203.0.113.8").status_code == 201


@limits(
    create={"address": (3, 600), "session": (100, 600)},
    action={"address": (2, 60), "session": (100, 60)},
)
def test_every_address_of_one_ipv6_64_is_one_client(room, alice):
    fresh = [create(Client(), REMOTE_ADDR=f"2001:db8:5:6::{n:x}").status_code for n in range(4)]
    assert fresh == [201, 201, 201, 429]
    assert create(Client(), REMOTE_ADDR="2001:db8:5:7::1").status_code == 201
    # Behind the proxy too, and for the game's actions as for the rest.
    bind(alice, room)
    url = action_url(room, "roll")
    with override_settings(TRUSTED_PROXIES="127.0.0.1"):
        statuses = [
            post_json(
                alice.client,
                url,
                {"version": 99},
                REMOTE_ADDR="127.0.0.1",
                HTTP_X_FORWARDED_FOR=f"2001:db8:9:9:{n}::1",
            ).status_code
            for n in range(3)
        ]
    assert statuses == [409, 409, 429]


@limits(create={"address": (100, 600), "session": (1, 600)})
def test_the_home_form_past_its_limit_answers_a_clear_page():
    browser = Client()
    form = {"nickname": "ana", "format": "single"}
    assert browser.post(reverse("games:home"), form).status_code == 302
    rooms = Room.objects.count()
    refused = browser.post(reverse("games:home"), form)
    assert refused.status_code == 429
    assert "Vas demasiado rápido" in refused.content.decode()
    assert Room.objects.count() == rooms
    assert browser.get(reverse("games:home")).status_code == 200  # reading is never limited


@limits(join={"address": (2, 600), "session": (100, 600)})
def test_joins_are_limited_per_address(clock, dice):
    rooms = [services.room_create(rules=MatchRules(), nickname="ana").room for _ in range(3)]
    answers = []
    for room in rooms:
        dice.push((3, 1))
        url = reverse("games:api_join", args=[room.slug])
        answers.append(post_json(Client(), url, {"nickname": "bob"}).status_code)
    assert answers == [200, 200, 429]
    assert Seat.objects.filter(room=rooms[2]).count() == 1


@limits(action={"address": (100, 60), "session": (3, 60)})
def test_actions_are_limited_per_session_in_json_and_in_forms(room, alice):
    bind(alice, room)
    url = action_url(room, "roll")
    statuses = [post_json(alice.client, url, {"version": 99}).status_code for _ in range(4)]
    assert statuses == [409, 409, 409, 429]
    page = alice.client.post(reverse("games:act", args=[room.slug, "roll"]), {"version": 1})
    assert page.status_code == 429


@override_settings(MESA_RATE_LIMITS=base.MESA_RATE_LIMITS)
def test_the_production_limits_let_a_quick_player_play_and_stop_a_room_flood(room, alice):
    # A player acting twice a second for a whole minute is never refused...
    bind(alice, room)
    url = action_url(room, "roll")
    statuses = {post_json(alice.client, url, {"version": 99}).status_code for _ in range(120)}
    assert statuses == {409}
    # ...while one client asking for 49 rooms at once gets only a handful.
    flood = Client()
    created = [create(flood).status_code for _ in range(49)]
    assert created.count(201) == base.MESA_RATE_LIMITS["create"]["session"][0]
    assert created[-1] == 429


@override_settings(MESA_SESSION_SEATS_MAX=3)
def test_a_session_remembers_a_bounded_list_of_seats_dropping_the_oldest(clock):
    browser = Client()
    seats = [services.room_create(rules=MatchRules(), nickname="ana") for _ in range(5)]
    for seat in seats:
        browser.get(seat_url(seat.room, seat.token))
    remembered = browser.session[SESSION_SEATS]
    assert list(remembered) == [seat.room.slug for seat in seats[2:]]
    # Opening an old link again makes it the newest, and drops the next oldest.
    browser.get(seat_url(seats[0].room, seats[0].token))
    assert list(browser.session[SESSION_SEATS]) == [
        seats[3].room.slug,
        seats[4].room.slug,
        seats[0].room.slug,
    ]
