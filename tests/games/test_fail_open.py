"""Redis away: nothing after a commit turns the answer into an error.

The cache here is the production one, config.cache.FailOpenRedisCache, pointed
at a port of this project's range where nothing listens (refused at once) or
where a socket accepts and never answers (a hung Redis: the timeouts). A move
is answered 200 and stored once, the limits let everyone through, a session
bound before the outage still holds its seat, and the log gets one line.
tests/test_redis_outage.py does the same to a real redis-server under gunicorn.
"""

import logging
import socket
import time
from contextlib import closing, contextmanager

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import cache
from django.db import OperationalError
from django.test import Client, override_settings
from redis.backoff import NoBackoff
from redis.retry import Retry

from config.settings import base
from games.lib import outage
from games.models import Turn
from games.services import outbox
from games.web.throttle import within_limits
from tests.helpers import action_url, bind, current_match, first_legal_play, post_json

pytestmark = pytest.mark.django_db

PORTS = range(19300, 19400)  # this checkout's own (TEAM.md)


def free_port() -> int:
    for port in PORTS:
        with closing(socket.socket()) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("no free port in 19300-19399")


@pytest.fixture
def closed_port():
    """A port nothing listens on: connecting is refused at once, as to a stopped Redis."""
    return free_port()


@pytest.fixture
def hung_port():
    """A socket that accepts connections and never answers, as a Redis stopped by SIGSTOP."""
    port = free_port()
    with closing(socket.socket()) as server:
        server.bind(("127.0.0.1", port))
        server.listen(64)
        yield port


def redis_cache(port: int, *, retry_seconds: float = 5.0) -> dict:
    """settings.CACHES as config/settings/base.py makes it for a redis:// CACHE_URL."""
    return {
        "default": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {
                "socket_connect_timeout": 0.25,
                "socket_timeout": 0.5,
                "retry": Retry(NoBackoff(), 0),
                "retry_seconds": retry_seconds,
            },
        }
    }


@contextmanager
def redis_away(port: int, **options):
    with override_settings(CACHES=redis_cache(port, **options)):
        yield cache


def plays(room, seat) -> int:
    """The moves stored for `seat` (an automatic roll after a play is a row too)."""
    return Turn.objects.filter(game__match__room=room, seat=seat, kind="play").count()


def cache_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "config.cache"]


# --- the backend ---------------------------------------------------------------------


def test_a_redis_url_gets_the_fail_open_backend_with_short_timeouts():
    settings = base.env.cache("CACHE_URL", default="redis://127.0.0.1:6379/4")
    assert settings["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    # what base.py turns it into, when CACHE_URL is redis (tests/test_deploy's production run)
    from tests.test_deploy import django_script

    result = django_script(
        "from django.conf import settings; c = settings.CACHES['default']; "
        "print(c['BACKEND'], c['OPTIONS']['socket_connect_timeout'], "
        "c['OPTIONS']['socket_timeout'], c['OPTIONS']['retry'].get_retries())",
        CACHE_URL="redis://127.0.0.1:6379/1",
    )
    assert result.stdout.split() == ["config.cache.FailOpenRedisCache", "0.25", "0.5", "0"], (
        result.stderr
    )


def test_the_backend_makes_one_redis_client_for_all_its_calls(closed_port, monkeypatch):
    """Django's client makes a redis.Redis at every call (60 µs of CPU each); this one
    keeps one a pool. Made without connecting: nothing needs to listen."""
    import redis

    made = []
    real = redis.Redis.__init__

    def counted(self, *args, **kwargs):
        made.append(kwargs.get("connection_pool"))
        real(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counted)
    with redis_away(closed_port) as away:
        clients = {id(away.client.get_client(key, write=write)) for key in "ab" for write in (0, 1)}
    assert len(clients) == 1 and len(made) == 1 and made[0] is not None


def test_every_call_answers_as_a_miss_when_redis_refuses(closed_port, caplog):
    with redis_away(closed_port) as away, caplog.at_level(logging.WARNING):
        started = time.monotonic()
        assert away.get("k", "default") == "default"
        away.set("k", 1)
        assert away.add("k", 1) is False
        assert away.get_many(["a", "b"]) == {}
        assert away.incr("k") == 1  # a counter that starts again: nobody is limited
        assert away.delete("k") is False
        assert away.has_key("k") is False
        assert away.get_or_set("k", 5) == 5
        away.set_many({"a": 1})
        away.delete_many(["a"])
        for _ in range(200):
            away.get("k")
        elapsed = time.monotonic() - started
    assert elapsed < 1.0
    assert len(cache_lines(caplog)) == 1  # one line, not one per call
    assert "Connection refused" in cache_lines(caplog)[0] or "111" in cache_lines(caplog)[0]


def test_a_hung_redis_holds_a_call_for_the_socket_timeout_then_not_at_all(hung_port):
    with redis_away(hung_port) as away:
        started = time.monotonic()
        assert away.get("k", "default") == "default"
        first = time.monotonic() - started
        started = time.monotonic()
        for _ in range(50):
            assert away.incr("k") == 1
        rest = time.monotonic() - started
    assert 0.2 < first < 1.5  # the socket timeout (0.5 s), no retries
    assert rest < 0.2  # then skipped for FAIL_OPEN_RETRY_SECONDS


def test_after_the_retry_pause_redis_is_tried_again(closed_port, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(outage, "monotonic", lambda: now[0])
    with redis_away(closed_port, retry_seconds=5) as away:
        away.get("k")
        failures = away.outage.failures
        away.get("k")
        assert away.outage.failures == failures  # skipped: not even tried
        now[0] += 6
        away.get("k")
        assert away.outage.failures == failures + 1


def test_errors_that_are_not_about_reaching_redis_still_raise(closed_port):
    with redis_away(closed_port) as away, pytest.raises(Exception, match="pickle"):
        away.set("k", lambda: None)  # a value that cannot be stored is a bug, not an outage


def test_readyz_still_reports_the_cache_down(closed_port):
    with redis_away(closed_port):
        response = Client().get("/readyz")
    assert response.status_code == 503
    check = response.json()["checks"]["cache"]
    assert check["status"] == "failing" and "ConnectionError" in check["error"]


# --- the request path ------------------------------------------------------------------


def test_with_redis_away_a_move_answers_200_and_is_stored_once(room, alice, closed_port):
    bind(alice, room)
    before = plays(room, alice.seat)
    with (
        redis_away(closed_port),
        override_settings(
            MESA_RATE_LIMITS={
                **base.MESA_RATE_LIMITS,
                "action": {"address": (1, 60), "session": (1, 60)},
            }
        ),
    ):
        response = post_json(
            alice.client,
            action_url(room, "play"),
            {"version": current_match(room).version, "play": first_legal_play(room, 0)},
        )
    assert response.status_code == 200, response.content
    assert response.json()["version"] == 2
    assert plays(room, alice.seat) == before + 1
    assert current_match(room).version == 2


@override_settings(
    MESA_RATE_LIMITS={**base.MESA_RATE_LIMITS, "action": {"address": (2, 60), "session": (2, 60)}}
)
def test_the_limits_count_nothing_while_redis_is_away(rf, closed_port):
    request = rf.post("/api/rooms/x/actions/roll", REMOTE_ADDR="203.0.113.9")
    with redis_away(closed_port):
        assert all(within_limits(request, "action", "session-1") for _ in range(10))


def test_sessions_survive_the_outage_bound_before_or_during_it(room, alice, bob, closed_port):
    # cached_db: the sessions are in the database and, while Redis answers, in the cache.
    with override_settings(SESSION_ENGINE="django.contrib.sessions.backends.cached_db"):
        bind(alice, room)
        with redis_away(closed_port):
            response = post_json(
                alice.client,
                action_url(room, "play"),
                {"version": 1, "play": first_legal_play(room, 0)},
            )
            assert response.status_code == 200, response.content
            assert response.json()["viewer"]["seat"] == alice.seat.number
            # bob opens his seat link while Redis is away: the new session is kept
            bind(bob, room)
            state = bob.client.get(f"/api/rooms/{room.slug}/").json()
            assert state["viewer"]["seat"] == bob.seat.number
        # and after it, from the cache again or the database
        state = bob.client.get(f"/api/rooms/{room.slug}/").json()
        assert state["viewer"]["seat"] == bob.seat.number


def test_a_session_save_that_fails_after_the_move_leaves_the_answer_200(
    room, alice, monkeypatch, caplog
):
    bind(alice, room)
    before = plays(room, alice.seat)

    def save(self, must_create=False):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(SessionStore, "save", save)
    with caplog.at_level(logging.WARNING):
        response = post_json(
            alice.client,
            action_url(room, "play"),
            {"version": 1, "play": first_legal_play(room, 0)},
            HTTP_ACCEPT_LANGUAGE="es",
        )
    assert response.status_code == 200
    assert plays(room, alice.seat) == before + 1
    lines = [r for r in caplog.records if r.name == "games.web.session_middleware"]
    assert len(lines) == 1 and lines[0].exc_info is None


# --- the publish after a commit --------------------------------------------------------


def test_the_publish_after_a_commit_gives_a_hung_broker_a_moment_then_leaves_it_to_the_sweep(
    hung_port, monkeypatch
):
    monkeypatch.setattr(outbox, "_pool", outbox.producers_for(f"redis://127.0.0.1:{hung_port}/0"))
    row = outbox.schedule("games.tasks.turn_email", 1, 2)
    started = time.monotonic()
    assert outbox.publish(row) is False
    first = time.monotonic() - started
    started = time.monotonic()
    assert outbox.publish(row) is False  # the next ones do not wait at all
    second = time.monotonic() - started
    assert first < 2.5  # 0.5 s to answer, one quick retry: never Redis' 5 s, nor a hang
    assert second < 0.05
    row.refresh_from_db()
    assert row.published_at is None  # the sweep publishes it
    assert outbox.publish_outage.failures == 1


def test_with_redis_away_a_log_in_and_a_failed_one_still_answer(closed_port):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("ana", "ana@example.com", "a long secret 1")
    with redis_away(closed_port):
        wrong = Client().post("/cuenta/entrar/", {"username": "ana", "password": "nope"})
        right = Client().post("/cuenta/entrar/", {"username": "ana", "password": "a long secret 1"})
    assert wrong.status_code == 200  # the form again, the per-address count not kept
    assert right.status_code == 302
