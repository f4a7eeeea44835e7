"""A room's wake-up: its new state computed once per (role, language) in the
process and fanned out to its waiting boards, who are known by the pass Django
signed for them (games.web.live.fanout, games.web.live_pass).

The waits run through the real ASGI application (config/asgi.py's LiveWaits in
front of Django's handler), woken by a move committed by the services, as in
test_live.py; the passes are the ones the state endpoint hands out.
"""

import asyncio
import threading
from collections import Counter
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core import signing
from django.core.asgi import get_asgi_application
from django.core.signals import request_started
from django.test import Client

from games.services import live
from games.web import live_pass, state_cache
from games.web.live import LiveWaits, fanout, waits

# redis_channel is a fixture, used by name.
from tests.games.test_live import count_calls, pulse_of, redis_channel, subscribed  # noqa: F401
from tests.helpers import asgi_get, bind, first_legal_play, state_url, version_of

APP = LiveWaits(get_asgi_application())

LANGUAGES = {"es": "es-ES,es;q=0.9", "en": "en-GB,en;q=0.9"}


@pytest.fixture
def no_redis(settings, monkeypatch):
    """This process's own notice wakes the waiters; none polls the database meanwhile (a
    poll that sees the move first is a later reader: a flight of its own)."""
    settings.LIVE_REDIS_URL = ""
    monkeypatch.setattr(waits, "POLL_EVERY", 60.0)
    live.reset()
    yield
    live.reset()


@pytest.fixture
def django_requests():
    """How many requests Django's handler began (sessions, middleware, a view)."""
    count = Counter()

    def started(**kwargs):
        count["requests"] += 1

    request_started.connect(started, dispatch_uid="test_live_fanout")
    yield count
    request_started.disconnect(dispatch_uid="test_live_fanout")


@pytest.fixture
def computations(monkeypatch):
    """Every call into the sync thread for a shared state (by role and language), and
    every computation of a state (state_cache.compute: the misses of its cache)."""
    count: Counter[tuple[str, ...]] = Counter()
    role_state, compute = state_cache.role_state, state_cache.compute
    lock = threading.Lock()

    def counted_role_state(slug, role, language):
        with lock:
            count[("shared", role, language)] += 1
        return role_state(slug, role, language)

    def counted_compute(room, seat, seats=None):
        with lock:
            count[("computed",)] += 1
        return compute(room, seat, seats)

    monkeypatch.setattr(state_cache, "role_state", counted_role_state)
    monkeypatch.setattr(state_cache, "compute", counted_compute)
    return count


class Browser:
    """A browser as the board sees it: its cookies, its language, the last pass and ETag."""

    def __init__(self, client: Client, language: str) -> None:
        self.client = client
        self.accept = LANGUAGES[language]
        self.cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
        self.pass_ = ""
        self.etag = ""

    def look(self, room) -> dict:
        """GET the state through Django (the test client), keeping its pass and ETag."""
        response = self.client.get(state_url(room), HTTP_ACCEPT_LANGUAGE=self.accept)
        assert response.status_code == 200
        self.pass_ = response[live_pass.HEADER]
        self.etag = response["ETag"]
        return response.json()

    def headers(self, **changes: str) -> list[tuple[str, str]]:
        given = {
            "cookie": self.cookie,
            "accept-language": self.accept,
            "x-mesa-pass": self.pass_,
            "if-none-match": self.etag,
            **changes,
        }
        return [(name, value) for name, value in given.items() if value]


def tabs_and_spectators(room, alice, count: int) -> list[Browser]:
    """`count` boards that have read the room: the first half alice's tabs, the rest
    spectators, every other one in Spanish."""
    bind(alice, room)
    browsers = []
    for number in range(count):
        client = alice.client if number < count // 2 else Client()
        browser = Browser(client, "es" if number % 2 else "en")
        browser.look(room)
        browsers.append(browser)
    return browsers


# One shared state for each role (alice's seat 1, a spectator) and language.
ONE_STATE_EACH = {
    ("shared", "1", "es"): 1,
    ("shared", "1", "en"): 1,
    ("shared", "-", "es"): 1,
    ("shared", "-", "en"): 1,
}


def shared_states(computations) -> dict:
    return {key: n for key, n in computations.items() if key[0] == "shared"}


def play(room, alice):
    from games import services

    return services.game_play(
        seat=alice.seat, version=version_of(room), play=first_legal_play(room, 0)
    )


def say(room, alice):
    """A word from alice: the room's pulse moves, its version does not (any number of times)."""
    from games import services

    services.message_send(seat=alice.seat, text="hola")


def wake(room, alice, browsers, headers=None, act=play):
    """Every browser waits on the room; alice acts; their answers, in order."""
    version = version_of(room)

    async def scenario():
        waits = [
            asyncio.ensure_future(
                asgi_get(
                    APP, state_url(room), f"wait={version}", (headers or Browser.headers)(browser)
                )
            )
            for browser in browsers
        ]
        await asyncio.sleep(0.5)
        assert not any(wait.done() for wait in waits), [w.result() for w in waits if w.done()]
        await sync_to_async(act)(room, alice)
        return await asyncio.gather(*waits)

    return async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_fifty_boards_woken_by_one_move_share_one_state_per_role_and_language(
    room, alice, no_redis, django_requests, computations
):
    browsers = tabs_and_spectators(room, alice, 50)
    state_cache.clear()
    django_requests.clear()
    computations.clear()
    version = version_of(room)

    answers = wake(room, alice, browsers)
    assert [answer.status for answer in answers] == [200] * 50
    for number, answer in enumerate(answers):
        state = answer.json()
        assert state["version"] == version + 1
        assert state["viewer"]["seat"] == (1 if number < 25 else None)
        assert answer.headers["content-language"] == ("es" if number % 2 else "en")
        assert live_pass.HEADER.lower() not in answer.headers  # only Django gives passes
    # Neither the waits nor the woken boards went into Django; one shared state
    # per (role, language), each computed once.
    assert django_requests["requests"] == 0
    assert shared_states(computations) == ONE_STATE_EACH
    assert computations[("computed",)] == 4
    # Same answers as Django gives each of them.
    for browser, answer in zip(browsers[::7], answers[::7], strict=True):
        assert browser.look(room) == answer.json()
        assert browser.etag == answer.headers["etag"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_channel")
def test_boards_that_read_after_their_channels_message_share_one_query_and_one_state(
    room, alice, django_requests, computations, monkeypatch
):
    """Boards waiting in nginx hear the move from their channel and then all read
    at once, each with ?wait=<its version> (static/js/channel.js): the room's key
    is ahead of them, which the database confirms once for all of them, and each
    (role, language) gets one state, as when they were woken while waiting here.
    Boards a moment behind (a second batch) ask nobody again."""
    browsers = tabs_and_spectators(room, alice, 40)
    version = version_of(room)
    asked = count_calls(monkeypatch, waits, "database_pulse")

    async def scenario():
        hub = await subscribed()
        await sync_to_async(play)(room, alice)
        for _ in range(100):  # the publish reaches the hub, as it reaches nginx
            known = hub.known.get(room.slug)
            if known is not None and known.version == version + 1:
                break
            await asyncio.sleep(0.02)
        else:
            pytest.fail("the hub never heard the move")
        django_requests.clear()
        computations.clear()
        asked.clear()

        def read(group):
            return asyncio.gather(
                *(asgi_get(APP, state_url(room), f"wait={version}", b.headers()) for b in group)
            )

        first = await read(browsers[::2])
        await asyncio.sleep(0.3)
        return first + await read(browsers[1::2])

    answers = async_to_sync(scenario)()
    assert [answer.status for answer in answers] == [200] * 40
    assert {answer.json()["version"] for answer in answers} == {version + 1}
    assert asked == [room.slug]  # one query: the key ahead of the boards, confirmed
    assert django_requests["requests"] == 0
    assert shared_states(computations) == ONE_STATE_EACH


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("redis_channel")
def test_a_key_the_database_does_not_confirm_is_never_lent_to_the_next_waits(room, monkeypatch):
    """A word of the database that disagreed with the key (a lost publish, a restore)
    is forgotten as it lands: the next wait asks again."""
    monkeypatch.setattr(waits, "WAIT_SECONDS", 0.3)
    version = version_of(room)
    asked = count_calls(monkeypatch, waits, "database_pulse")
    ahead = pulse_of(room)._replace(version=version + 5, serial=pulse_of(room).serial + 5)

    async def scenario():
        hub = await subscribed()
        hub.hear(room.slug, ahead)  # a pulse of a timeline the database does not have
        first = await asgi_get(APP, state_url(room), f"wait={version}")
        hub.hear(room.slug, ahead)  # heard again: the same key
        second = await asgi_get(APP, state_url(room), f"wait={version}")
        return first, second

    first, second = async_to_sync(scenario)()
    assert first.status == second.status == 200
    assert asked == [room.slug, room.slug]


@pytest.mark.django_db(transaction=True)
def test_the_seat_is_seen_once_by_the_wake_up_of_its_boards(room, alice, no_redis, clock):
    bind(alice, room)
    browsers = [Browser(alice.client, "es") for _ in range(3)]
    for browser in browsers:
        browser.look(room)
    alice.seat.refresh_from_db()
    seen = alice.seat.last_seen_at
    clock.tick(timedelta(minutes=5))
    answers = wake(room, alice, browsers)
    assert [a.status for a in answers] == [200] * 3
    alice.seat.refresh_from_db()
    assert alice.seat.last_seen_at > seen


@pytest.mark.django_db(transaction=True)
def test_a_spectator_never_gets_a_seats_state_whatever_it_sends(
    room, alice, no_redis, django_requests
):
    bind(alice, room)
    seat = Browser(alice.client, "es")
    seat.look(room)
    spectator = Browser(Client(), "es")
    spectator.look(room)

    def forged_role():
        # the spectator's own pass, edited to say seat 1: its signature no longer fits
        fingerprint = seat.pass_.split("|")[2]
        return spectator.pass_.replace("|-||", f"|1|{fingerprint}|")

    def made_up_signature():
        value, _, _signature = seat.pass_.rpartition(":")
        return value + ":" + "A" * 43

    cases = {
        # alice's own pass, and her ETag, from a browser without her session
        "her pass": lambda: {"x-mesa-pass": seat.pass_, "if-none-match": seat.etag},
        "edited pass": lambda: {"x-mesa-pass": forged_role()},
        # her ETag, with the spectator's own pass
        "her etag": lambda: {"if-none-match": seat.etag},
        "made-up signature": lambda: {"x-mesa-pass": made_up_signature()},
    }
    for name, changes in cases.items():
        sent = changes()
        (answer,) = wake(room, alice, [spectator], lambda b, c=sent: b.headers(**c), act=say)
        assert answer.status == 200, name
        assert answer.json()["viewer"]["seat"] is None, name
        assert answer.headers["etag"] != seat.etag, name
        spectator.look(room)
        seat.look(room)


@pytest.mark.django_db(transaction=True)
def test_a_pass_that_does_not_fit_the_request_sends_the_board_to_django(
    room, alice, no_redis, django_requests, computations
):
    bind(alice, room)
    seat = Browser(alice.client, "es")
    seat.look(room)
    other_room_pass = seat.pass_.replace(room.slug, "x" * len(room.slug), 1)
    for changes in (
        {"accept-language": LANGUAGES["en"]},  # the language it was issued for changed
        {"cookie": ""},  # no session: another browser
        {"x-mesa-pass": other_room_pass},  # another room's (and so, unsigned)
        {"x-mesa-pass": ""},  # none (a board of the release before)
    ):
        django_requests.clear()
        computations.clear()
        (answer,) = wake(room, alice, [seat], lambda b, c=changes: b.headers(**c), act=say)
        assert answer.status == 200
        assert django_requests["requests"] == 1, changes  # Django answered it
        assert not [k for k in computations if k[0] == "shared"], changes
        seat.look(room)


def test_a_pass_is_read_only_for_its_room_its_cookies_within_its_time(rf, monkeypatch):
    request = rf.get("/", HTTP_ACCEPT_LANGUAGE="es", HTTP_COOKIE="sessionid=abc")
    given = live_pass.issue(request, "sala", None)
    headers = [
        (b"x-mesa-pass", given.encode()),
        (b"cookie", b"sessionid=abc"),
        (b"accept-language", b"es"),
    ]
    spectator = live_pass.Pass("sala", "-", "", settings.LANGUAGE_CODE)
    assert live_pass.read(headers, "sala") == spectator
    assert live_pass.read(headers, "otra") is None
    assert live_pass.read([*headers, (b"x-mesa-pass", given.encode())], "sala") is None
    assert live_pass.read(headers[:1] + headers[2:], "sala") is None  # the cookie is gone
    monkeypatch.setattr(live_pass, "PASS_SECONDS", -1)
    assert live_pass.read(headers, "sala") is None  # expired


def test_a_pass_is_signed_once_a_second_for_the_same_board_and_never_across_keys(
    rf, monkeypatch, settings
):
    """A room's spectators asking in the same second share one signature (the pass
    TimestampSigner would give each of them); a new second or a new SECRET_KEY signs
    again, and every pass reads back."""
    signed: list[str] = []
    sign = signing.TimestampSigner.sign

    def counted(self, value):
        signed.append(value)
        return sign(self, value)

    monkeypatch.setattr(signing.TimestampSigner, "sign", counted)
    now = [1_900_000_000.2]
    monkeypatch.setattr(live_pass.time, "time", lambda: now[0])
    monkeypatch.setattr(signing.time, "time", lambda: now[0])
    request = rf.get("/", HTTP_ACCEPT_LANGUAGE="es")
    headers = [(b"accept-language", b"es")]

    def readable(given: str) -> bool:
        return live_pass.read([(b"x-mesa-pass", given.encode()), *headers], "sala") is not None

    first = live_pass.issue(request, "sala", None)
    now[0] += 0.7  # the same second
    assert live_pass.issue(request, "sala", None) == first and len(signed) == 1
    now[0] += 0.2  # the next one
    later = live_pass.issue(request, "sala", None)
    assert later != first and len(signed) == 2
    settings.SECRET_KEY = "another-key-" + "y" * 50
    assert live_pass.issue(request, "sala", None) != later and len(signed) == 3
    assert readable(live_pass.issue(request, "sala", None))


def test_a_flight_is_joined_only_by_boards_that_heard_before_it_began(monkeypatch):
    reads: list[str] = []

    def state_for(given):
        reads.append(given.role)
        return state_cache.Answer(b"{}", '"v1-s1-0"', 1, None)

    monkeypatch.setattr(fanout, "state_for", state_for)
    monkeypatch.setattr(fanout, "_outside_a_request", lambda read: read())
    given = live_pass.Pass("sala", "-", "", "es")

    async def scenario():
        from games.web.live.hub import tick

        flights = fanout.Flights(asyncio.get_running_loop())
        heard = tick()
        first = await asyncio.gather(*(flights.answer(given, heard) for _ in range(10)))
        again = await flights.answer(given, heard)  # landed, still joinable for what it heard
        later = await flights.answer(given, tick())  # heard after it began: a new read
        return first, again, later

    first, again, later = async_to_sync(scenario)()
    assert len(first) == 10 and again == first[0] == later
    assert reads == ["-", "-"]
