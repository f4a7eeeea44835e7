"""Live updates: the pulse published after commit, the held request
woken by it (games.services.live, games.web.live, config/asgi.py).

The waits run through the real ASGI application (LiveWaits in front of
Django's ASGI handler) in this process, with moves committed by the services
on the same database, so what wakes a board is what wakes it in production:
the Redis publish, or, without Redis, this process's own notice. The tests
that need Redis take LIVE_REDIS_URL (CI: the broker's Redis) and a channel of
their own; they skip without it locally and fail on CI.
"""

import asyncio
import itertools
import logging
import shutil
import socket
import subprocess
import threading
import time
import uuid
from datetime import timedelta

import pytest
import redis
from asgiref.sync import async_to_sync, sync_to_async
from django.core.asgi import get_asgi_application
from django.db import transaction

from games import services
from games.engine import ActionKind
from games.lib.errors import Conflict
from games.models import Turn
from games.selectors.pulse import Pulse, room_pulse, room_pulses
from games.services import live
from games.web import longpoll
from games.web.live import LiveWaits, waits
from games.web.live import hub as hubs
from tests.helpers import (
    action_url,
    asgi_get,
    bind,
    first_legal_play,
    missing,
    post_json,
    state_url,
    version_of,
)

APP = LiveWaits(get_asgi_application())


def pulse_of(room) -> Pulse:
    found = room_pulse(room_id=room.pk)
    assert found is not None
    return found[1]


def play(room, alice):
    """alice plays her opening (3-1: she is on turn), committed."""
    return services.game_play(
        seat=alice.seat, version=version_of(room), play=first_legal_play(room, 0)
    )


@pytest.fixture
def heard():
    """Every pulse this process hands its own waiters (no Redis, or Redis down)."""
    pulses: list[tuple[str, Pulse]] = []

    def listener(slug, pulse):
        pulses.append((slug, pulse))

    live.listen_here(listener)
    yield pulses
    live.stop_listening_here(listener)


@pytest.fixture
def no_redis(settings):
    settings.LIVE_REDIS_URL = ""
    live.reset()
    yield
    live.reset()


@pytest.fixture
def redis_channel(settings):
    """LIVE_REDIS_URL answering, on a channel of this test's own."""
    url = settings.LIVE_REDIS_URL
    if not url:
        missing("LIVE_REDIS_URL (or a redis:// CELERY_BROKER_URL / CACHE_URL) is not set")
    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {url} ({error}); .ci/run starts it")
    settings.LIVE_CHANNEL = f"mesa:live:test:{uuid.uuid4().hex[:8]}"
    live.reset()
    yield client
    live.reset()
    client.close()


async def subscribed() -> hubs.Hub:
    """This loop's hub, once its subscription is up (so what wakes a waiter is the channel)."""
    hub = hubs.hub()
    for _ in range(100):
        if hub.subscribed:
            return hub
        await asyncio.sleep(0.05)
    pytest.fail("the hub never subscribed")


# -- the publisher ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_commit_publishes_the_rooms_new_pulse_once(room, alice, no_redis, heard):
    before = pulse_of(room)
    services.act_with_message(seat=alice.seat, text="suerte", act=lambda: play(room, alice))
    # One unit of work locked the match twice (the action, the message): one publish.
    assert heard == [(room.slug, pulse_of(room))]
    assert heard[0][1].version == before.version + 1 and heard[0][1].message is not None


@pytest.mark.django_db(transaction=True)
def test_a_refused_action_or_a_rolled_back_transaction_publishes_nothing(
    room, alice, bob, no_redis, heard
):
    with pytest.raises(Conflict):
        services.game_roll(seat=bob.seat, version=version_of(room))  # not bob's turn
    with pytest.raises(RuntimeError), transaction.atomic():
        play(room, alice)
        raise RuntimeError("the request failed after the move")
    assert heard == []
    play(room, alice)  # the next transaction publishes as usual
    assert [slug for slug, _pulse in heard] == [room.slug]


@pytest.mark.django_db(transaction=True)
def test_a_word_on_its_own_and_a_rematch_offer_publish_too(room, alice, bob, no_redis, heard):
    services.message_send(seat=bob.seat, text="hola")
    assert heard[-1] == (room.slug, pulse_of(room))
    services.match_resign(seat=bob.seat, version=version_of(room))
    services.rematch_offer(seat=alice.seat)
    assert heard[-1][1].rematch == alice.seat.pk
    assert len(heard) == 3


@pytest.mark.django_db(transaction=True)
def test_the_state_serial_counts_with_the_change_and_rolls_back_with_it(room, alice, no_redis):
    def serial():
        room.refresh_from_db(fields=["state_serial"])
        return room.state_serial

    before = serial()
    with pytest.raises(RuntimeError), transaction.atomic():
        play(room, alice)
        raise RuntimeError("the request failed after the move")
    assert serial() == before
    with transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic():  # a savepoint rolled back
            live.room_moved(room.pk)
            raise RuntimeError("undone")
        live.room_moved(room.pk)  # what the transaction changes after it still counts
    assert serial() == before + 1
    play(room, alice)
    assert serial() > before + 1


def test_pulses_of_a_room_are_ordered_by_version_then_message_then_serial():
    old, word, moved = Pulse(1, 4, None, 7, 3), Pulse(1, 4, None, 9, 4), Pulse(1, 5, None, None, 5)
    answer = Pulse(1, 5, None, None, 6)  # a written answer: the serial alone moves
    assert moved.not_older(word) and word.not_older(old) and not old.not_older(word)
    assert answer.order() > moved.order()
    assert Pulse.decode(moved.encode()) == moved and Pulse.decode(b"x:1") is None
    assert Pulse.decode(b"4:7:1:0") == Pulse(1, 4, None, 7, 0)  # the release before's key
    assert live.parse_message(live.message("abc", word)) == ("abc", word)


@pytest.mark.django_db(transaction=True)
def test_the_key_keeps_the_newest_pulse_whatever_order_the_publishes_come_in(redis_channel, room):
    key = live.room_key(room.slug)
    newer, older = Pulse(1, 5, None, 2, 9), Pulse(1, 5, None, 2, 8)
    assert live.publish(room.slug, newer) and live.publish(room.slug, older)
    assert Pulse.decode(redis_channel.get(key)) == newer
    redis_channel.set(key, "5:2:1:0")  # a key of the release before, no serial
    assert live.publish(room.slug, older)
    assert Pulse.decode(redis_channel.get(key)) == older


# -- failing open ----------------------------------------------------------------


def dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again: nobody listens there


@pytest.fixture
def hung_redis():
    """A port that takes the connection and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held = []

    def accept():
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    server.close()
    for connection in held:
        connection.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("down", ["refused", "hung"])
def test_with_redis_down_the_move_is_answered_and_stored_once(
    room, alice, settings, caplog, heard, hung_redis, down
):
    settings.LIVE_REDIS_URL = (
        f"redis://127.0.0.1:{dead_port()}/0" if down == "refused" else hung_redis
    )
    live.reset()
    bind(alice, room)
    version = version_of(room)
    plays = Turn.objects.filter(seat=alice.seat, kind=ActionKind.PLAY)
    before = plays.count()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="games.services.live"):
        response = post_json(
            alice.client,
            action_url(room, "play"),
            {"version": version, "play": first_legal_play(room, 0)},
        )
    took = time.monotonic() - started
    assert response.status_code == 200, response.content
    assert response.json()["version"] == version + 1
    assert plays.count() == before + 1  # stored once
    assert "live: publish of room" in caplog.text  # one line, no traceback
    assert took < 5  # the socket gave up after LIVE_REDIS_TIMEOUT, not Redis's default
    # This process's own waiters still heard it.
    assert heard == [(room.slug, pulse_of(room))]
    live.reset()


# -- the wait, woken -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_without_redis_a_move_in_this_process_wakes_its_waiter(room, alice, no_redis):
    version = version_of(room)

    async def scenario():
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        moved = time.monotonic()
        await sync_to_async(play)(room, alice)
        response = await waiting
        return response, time.monotonic() - moved

    response, after = async_to_sync(scenario)()
    assert response.status == 200
    assert response.json()["version"] == version + 1
    assert after < 1.0


def count_calls(monkeypatch, owner, name: str) -> list[str]:
    """The slugs `owner.name(slug)` (a coroutine function) was called with, from now on."""
    calls: list[str] = []
    real = getattr(owner, name)

    async def counted(slug, *args, **kwargs):
        calls.append(slug)
        return await real(slug, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


@pytest.mark.django_db(transaction=True)
def test_a_room_without_a_key_costs_its_first_wait_one_query_and_the_next_none(
    room, redis_channel, monkeypatch
):
    """A room quiet for longer than its key lasts (this room's publishes went to
    another channel): the first wait reads the database and writes the key back,
    never over a newer one; the next waits read the key alone."""
    monkeypatch.setattr(waits, "WAIT_SECONDS", 0.3)
    version = version_of(room)
    key = live.room_key(room.slug)
    assert redis_channel.get(key) is None
    started = count_calls(monkeypatch, waits, "database_pulse")

    async def scenario():
        await subscribed()
        for _ in range(3):
            answer = await asgi_get(APP, state_url(room), f"wait={version}")
            assert answer.status == 200

    async_to_sync(scenario)()
    assert started == [room.slug]  # the first wait's start only
    assert Pulse.decode(redis_channel.get(key)) == pulse_of(room)
    assert 0 < redis_channel.ttl(key) <= live.KEY_TTL


@pytest.mark.django_db(transaction=True)
def test_a_subscribed_hub_starts_the_waits_of_a_room_it_heard_of_from_memory(
    room, alice, redis_channel, monkeypatch
):
    """Its first wait reads the room's key (none here: the database); the publish of
    the move that ends the second wait is remembered, and the third wait, on the new
    version, asks neither Redis nor the database before it waits."""
    monkeypatch.setattr(waits, "WAIT_SECONDS", 0.3)
    version = version_of(room)
    database_starts = count_calls(monkeypatch, waits, "database_pulse")

    async def scenario():
        hub = await subscribed()
        key_reads = count_calls(monkeypatch, hub, "key_pulse")
        quiet = await asgi_get(APP, state_url(room), f"wait={version}")
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.1)
        await sync_to_async(play)(room, alice)
        woken = await waiting
        started = time.monotonic()
        held = await asgi_get(APP, state_url(room), f"wait={version + 1}")
        return quiet, woken, held, time.monotonic() - started, key_reads, dict(hub.known)

    quiet, woken, held, seconds, key_reads, known = async_to_sync(scenario)()
    assert quiet.status == 200 and woken.json()["version"] == version + 1
    assert held.status == 200 and held.json()["version"] == version + 1
    assert seconds >= 0.25  # the whole (spread) wait: memory said where the room is
    assert key_reads == [room.slug] and database_starts == [room.slug]
    assert known[room.slug] == pulse_of(room)


@pytest.mark.django_db(transaction=True)
def test_the_hub_forgets_the_pulses_it_knew_when_its_subscription_drops(
    own_redis, room, alice, monkeypatch
):
    """A publish sent while it was away never reached it: after the reconnect the
    next wait reads the key again, and sees the move at once."""
    monkeypatch.setattr(waits, "WAIT_SECONDS", 0.3)
    monkeypatch.setattr(hubs, "RECONNECT_FIRST", 0.5)
    version = version_of(room)

    async def scenario():
        hub = await subscribed()
        await asgi_get(APP, state_url(room), f"wait={version}")
        remembered = dict(hub.known)
        own_redis.client_kill_filter(_type="pubsub")
        await asyncio.sleep(0.2)
        forgotten = dict(hub.known)
        await sync_to_async(play)(room, alice)  # its key is written, its publish lost
        await subscribed()
        key_reads = count_calls(monkeypatch, hub, "key_pulse")
        started = time.monotonic()
        answer = await asgi_get(APP, state_url(room), f"wait={version}")
        return remembered, forgotten, answer, time.monotonic() - started, key_reads

    remembered, forgotten, answer, seconds, key_reads = async_to_sync(scenario)()
    assert room.slug in remembered and forgotten == {}
    assert key_reads == [room.slug]
    assert answer.status == 200 and answer.json()["version"] == version + 1
    assert seconds < 0.2, f"answered after {seconds:.2f} s, not at once"


@pytest.mark.django_db(transaction=True)
def test_a_subscribed_wait_polls_the_database_as_soon_as_the_subscription_drops(
    own_redis, room, alice, monkeypatch
):
    """A subscribed wait holds one timer, not a look every few seconds: the hub wakes
    its waiters when the subscription goes down, and one of them polls."""
    monkeypatch.setattr(waits, "WAIT_SECONDS", 20.0)
    monkeypatch.setattr(waits, "POLL_EVERY", 0.2)
    monkeypatch.setattr(hubs, "RECONNECT_FIRST", 30.0)  # it stays down
    version = version_of(room)

    async def scenario():
        hub = await subscribed()
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        own_redis.client_kill_filter(_type="pubsub")
        await asyncio.sleep(0.3)
        assert not hub.subscribed and not waiting.done()
        await sync_to_async(play)(room, alice)  # published, to no subscriber
        moved = time.monotonic()
        response = await waiting
        return response, time.monotonic() - moved

    response, after = async_to_sync(scenario)()
    assert response.status == 200 and response.json()["version"] == version + 1
    assert after < 1.5, f"{after:.1f} s: a poller should have seen it within POLL_EVERY"


@pytest.mark.django_db(transaction=True)
def test_a_board_that_leaves_while_waiting_ends_its_wait_and_is_sent_nothing(room, alice, no_redis):
    """The watcher of the client's messages ends with its departure, and that ends
    the wait: no answer, no waiter left in the hub (no task of its own waits for it)."""
    version = version_of(room)
    path = state_url(room)
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(),
        "query_string": f"wait={version}".encode(), "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }  # fmt: skip
    sent: list[object] = []

    async def scenario() -> float:
        gone = asyncio.Event()
        asked = False

        async def receive():
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        waiting = asyncio.ensure_future(APP(scope, receive, send))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        left = time.monotonic()
        gone.set()
        await asyncio.wait_for(waiting, 5)
        took = time.monotonic() - left
        await asyncio.sleep(0.05)  # the cancelled wait's own end: its waiter leaves the hub
        assert room.slug not in hubs.hub().rooms
        return took

    assert async_to_sync(scenario)() < 1.0
    assert sent == []


@pytest.mark.django_db(transaction=True)
def test_a_wait_on_a_room_still_waiting_for_its_guest_ends_with_the_join(
    alice, dice, opening, no_redis
):
    room = alice.seat.room

    async def scenario():
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), "wait=0"))
        await asyncio.sleep(0.3)
        assert not waiting.done()  # version 0, held like any other
        dice.push(opening)
        await sync_to_async(services.room_join)(room=room, nickname="bob")
        return await waiting

    state = async_to_sync(scenario)().json()
    assert state["room"]["status"] == "playing" and state["match"] is not None


@pytest.mark.django_db(transaction=True)
def test_make_runs_threaded_long_poll_is_woken_by_a_move_in_its_own_process(
    room, alice, bob, no_redis, monkeypatch
):
    # The WSGI side (runserver, gunicorn): only the notice can end it this soon.
    monkeypatch.setattr(longpoll, "CHECK_EVERY", 5.0)
    bind(bob, room)
    version = version_of(room)
    answer = {}

    def wait():
        answer["response"] = bob.client.get(state_url(room), {"wait": version})
        answer["at"] = time.monotonic()

    waiting = threading.Thread(target=wait)
    waiting.start()
    time.sleep(0.5)
    assert "response" not in answer
    play(room, alice)
    moved = time.monotonic()
    waiting.join(timeout=30)
    assert answer["response"].json()["version"] == version + 1
    assert answer["at"] - moved < 2.0


@pytest.mark.django_db(transaction=True)
def test_make_runs_long_poll_answers_a_board_behind_by_a_word_without_holding_it(
    room, alice, bob, no_redis, monkeypatch
):
    # The WSGI side, as the ASGI one: the ETag's serial says the board is behind.
    naps = []
    monkeypatch.setattr(longpoll, "sleep", naps.append)
    ticks = itertools.count(step=longpoll.CHECK_EVERY)  # each look half a second later
    monkeypatch.setattr(longpoll, "monotonic", lambda: next(ticks))
    bind(bob, room)
    version = version_of(room)
    tag = bob.client.get(state_url(room)).headers["ETag"]
    services.message_send(seat=alice.seat, text="¿otra?")

    answer = bob.client.get(state_url(room), {"wait": version}, HTTP_IF_NONE_MATCH=tag)

    assert naps == []  # answered without a single look more
    assert answer.status_code == 200 and answer.headers["ETag"] != tag
    quiet = bob.client.get(
        state_url(room), {"wait": version}, HTTP_IF_NONE_MATCH=answer.headers["ETag"]
    )
    assert len(naps) >= 40  # up to date: held as before, look after look
    assert quiet.status_code == 304


@pytest.mark.django_db(transaction=True)
def test_a_waiter_is_woken_by_the_publish_of_a_committed_move(
    redis_channel, room, alice, monkeypatch, record_property
):
    # The database is never looked at while waiting: only the channel can wake it.
    monkeypatch.setattr(waits, "POLL_EVERY", 60.0)
    version = version_of(room)

    async def scenario():
        await subscribed()
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        moved = await sync_to_async(play)(room, alice)
        committed = time.monotonic()
        response = await waiting
        return moved, response, time.monotonic() - committed

    moved, response, after = async_to_sync(scenario)()
    record_property("seen_after_commit_s", round(after, 3))
    assert response.status == 200
    assert response.json()["version"] == moved.version == version + 1
    assert after < 0.5, f"seen {after:.3f} s after the commit"
    # The publisher left the room's pulse under its key for the next waiter.
    assert Pulse.decode(redis_channel.get(live.room_key(room.slug))) == pulse_of(room)


@pytest.mark.django_db(transaction=True)
def test_after_a_lost_publish_the_wait_still_ends_at_the_new_version(
    redis_channel, room, alice, monkeypatch
):
    monkeypatch.setattr(waits, "WAIT_SECONDS", 2.0)
    version = version_of(room)

    async def scenario():
        await subscribed()
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        with monkeypatch.context() as lost:
            lost.setattr(live, "_send", lambda slug, pulse: True)  # "sent", never arrived
            await sync_to_async(play)(room, alice)
        missed = await waiting  # the timeout: the board re-reads the state
        # Its next wait starts from the new version while the key still holds the
        # old one: the database says where the room is, and it waits (no busy loop).
        started = time.monotonic()
        again = await asgi_get(APP, state_url(room), f"wait={version + 1}")
        return missed, again, time.monotonic() - started

    missed, again, held = async_to_sync(scenario)()
    assert missed.status == 200 and missed.json()["version"] == version + 1
    assert again.status == 200 and again.json()["version"] == version + 1
    assert 1.6 <= held < 10  # the whole wait (2 s, the last 15 % spread)


@pytest.fixture
def own_redis(settings, tmp_path):
    """A redis-server of this test's own (ports 19020..19049), whose clients it may kill."""
    server = shutil.which("redis-server")
    if server is None:
        missing("redis-server is not installed (apt-get install redis-server; .ci/run has it)")
    port = next(p for p in range(19020, 19050) if _free(p))
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port, socket_connect_timeout=1)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    settings.LIVE_REDIS_URL = f"redis://127.0.0.1:{port}/0"
    settings.LIVE_CHANNEL = "mesa:live:0"
    live.reset()
    yield client
    live.reset()
    client.close()
    process.terminate()
    process.wait(timeout=10)


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.mark.django_db(transaction=True)
def test_a_publish_missed_while_the_subscription_was_down_wakes_the_waiter_on_reconnect(
    own_redis, room, alice, monkeypatch
):
    # Neither the database (polled while unsubscribed) nor the timeout may be
    # what ends this wait: only the keys read again after the reconnect.
    monkeypatch.setattr(waits, "POLL_EVERY", 60.0)
    monkeypatch.setattr(hubs, "RECONNECT_FIRST", 2.0)
    version = version_of(room)

    async def scenario():
        hub = await subscribed()
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        own_redis.client_kill_filter(_type="pubsub")  # a network blip, for the hub only
        await asyncio.sleep(0.3)
        assert not hub.subscribed and not waiting.done()
        await sync_to_async(play)(room, alice)  # published, to no subscriber
        moved = time.monotonic()
        response = await waiting
        return hub.subscribed, response, time.monotonic() - moved

    back, response, after = async_to_sync(scenario)()
    assert response.status == 200 and response.json()["version"] == version + 1
    assert back
    assert after < 5, f"{after:.1f} s: the reconnect (2 s) should have brought it"


# -- the quiet wait: a 304 without Django ------------------------------------------------


class CountingApp:
    """Django's ASGI application, counting the requests that reach it."""

    def __init__(self) -> None:
        self.app = get_asgi_application()
        self.calls = 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        await self.app(scope, receive, send)


def session_cookie(persona) -> tuple[str, str]:
    return ("cookie", f"sessionid={persona.client.cookies['sessionid'].value}")


@pytest.mark.django_db(transaction=True)
def test_a_quiet_wait_is_answered_304_from_the_boards_etag_without_django(
    room, alice, no_redis, monkeypatch
):
    monkeypatch.setattr(waits, "WAIT_SECONDS", 1.0)
    django = CountingApp()
    app = LiveWaits(django)
    bind(alice, room)
    version = version_of(room)

    async def scenario():
        spectator = await asgi_get(app, state_url(room))
        player = await asgi_get(app, state_url(room), headers=[session_cookie(alice)])
        reached = django.calls
        answers = {}
        for name, first, extra in (
            ("spectator", spectator, []),
            ("alice", player, [session_cookie(alice)]),
        ):
            tag = first.headers["etag"]
            answers[name] = await asgi_get(
                app, state_url(room), f"wait={version}", [("if-none-match", tag), *extra]
            )
        return spectator, player, reached, answers

    spectator, player, reached, answers = async_to_sync(scenario)()
    assert spectator.headers["etag"].endswith('-n"')  # no clock in a spectator's state
    assert "-u" in player.headers["etag"]  # alice's turn: its deadline is shown some day
    assert django.calls == reached == 2  # the two quiet waits never reached Django
    for name, first in (("spectator", spectator), ("alice", player)):
        answer = answers[name]
        assert answer.status == 304 and answer.body == b""
        assert answer.headers["etag"] == first.headers["etag"]
        assert answer.headers["cache-control"] == "private, no-cache"


@pytest.mark.django_db(transaction=True)
def test_a_quiet_wait_goes_to_django_without_a_current_etag_or_past_its_clock(
    room, alice, no_redis, monkeypatch, clock
):
    monkeypatch.setattr(waits, "WAIT_SECONDS", 1.0)
    django = CountingApp()
    app = LiveWaits(django)
    bind(alice, room)
    version = version_of(room)
    cookie = session_cookie(alice)

    async def scenario():
        first = await asgi_get(app, state_url(room), headers=[cookie])
        tag = first.headers["etag"]
        other_version = tag.replace(f'"v{version}-', f'"v{version + 1}-')
        answers = [
            await asgi_get(app, state_url(room), f"wait={version}", [cookie]),
            await asgi_get(
                app, state_url(room), f"wait={version}", [cookie, ("if-none-match", other_version)]
            ),
        ]
        # The second at which the clock changes her board has come.
        until = int(tag.rsplit("-u", 1)[1].rstrip('"'))
        clock.tick(timedelta(seconds=until - clock().timestamp() + 1))
        answers.append(
            await asgi_get(
                app, state_url(room), f"wait={version}", [cookie, ("if-none-match", tag)]
            )
        )
        return first, answers

    first, answers = async_to_sync(scenario)()
    assert django.calls == 1 + 3  # each of the three was answered by Django
    no_tag, wrong_version, past_clock = answers
    assert no_tag.status == 200 and no_tag.headers["etag"] == first.headers["etag"]
    assert wrong_version.status == 200
    assert past_clock.status == 200 and past_clock.headers["etag"] != first.headers["etag"]


@pytest.mark.django_db(transaction=True)
def test_a_word_between_the_boards_answer_and_its_next_wait_is_answered_at_once(
    room, alice, bob, no_redis, monkeypatch
):
    # The word moves no version: only the ETag's serial tells the board is behind.
    monkeypatch.setattr(waits, "WAIT_SECONDS", 10.0)
    version = version_of(room)

    async def scenario():
        tag = (await asgi_get(APP, state_url(room))).headers["etag"]
        await sync_to_async(services.message_send)(seat=bob.seat, text="¿revancha?")
        started = time.monotonic()
        answer = await asgi_get(APP, state_url(room), f"wait={version}", [("if-none-match", tag)])
        return tag, answer, time.monotonic() - started

    tag, answer, took = async_to_sync(scenario)()
    assert took < 2.0  # not held: the board had an older state
    assert answer.status == 200 and answer.headers["etag"] != tag
    assert answer.json()["version"] == version


@pytest.mark.django_db(transaction=True)
def test_a_key_of_a_timeline_a_restore_undid_neither_ends_nor_blocks_the_waits(
    redis_channel, room, alice, monkeypatch
):
    # A backup restored: Redis still holds the pulse the lost timeline published,
    # moves and words and a serial ahead of everything the database has.
    monkeypatch.setattr(waits, "WAIT_SECONDS", 2.0)
    monkeypatch.setattr(waits, "POLL_EVERY", 60.0)  # only the channel may wake a waiter
    version = version_of(room)
    now = pulse_of(room)
    lost = Pulse(now.number, now.version + 3, None, (now.message or 0) + 2, now.serial + 5)
    redis_channel.set(live.room_key(room.slug), lost.encode())

    async def scenario():
        await subscribed()
        tag = (await asgi_get(APP, state_url(room))).headers["etag"]
        started = time.monotonic()
        quiet = await asgi_get(APP, state_url(room), f"wait={version}", [("if-none-match", tag)])
        held = time.monotonic() - started
        # A move of the restored timeline still reaches a waiting board at once.
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        await sync_to_async(play)(room, alice)
        committed = time.monotonic()
        woken = await waiting
        seen = time.monotonic() - committed
        # And a board still behind it is answered at once, as ever.
        started = time.monotonic()
        behind = await asgi_get(APP, state_url(room), f"wait={version}")
        return quiet, held, woken, seen, behind, time.monotonic() - started

    quiet, held, woken, seen, behind, answered = async_to_sync(scenario)()
    assert quiet.status == 304
    assert 1.6 <= held < 10, f"answered after {held:.2f} s: the old key ended the wait"
    assert woken.status == 200 and woken.json()["version"] == version + 1
    assert seen < 1.0, f"the move was seen {seen:.2f} s after its commit"
    assert behind.status == 200 and behind.json()["version"] == version + 1
    assert answered < 1.0
    assert Pulse.decode(redis_channel.get(live.room_key(room.slug))) == pulse_of(room)


@pytest.mark.django_db(transaction=True)
def test_a_catch_up_that_reads_a_restored_away_key_as_a_wait_begins_wakes_nobody(
    redis_channel, room, alice, monkeypatch
):
    # A hub that (re)subscribes reads the keys of its rooms: here between the
    # waiter's own read of the key and its look at the database.
    monkeypatch.setattr(waits, "WAIT_SECONDS", 2.0)
    monkeypatch.setattr(waits, "POLL_EVERY", 60.0)
    version = version_of(room)
    now = pulse_of(room)
    lost = Pulse(now.number, now.version + 2, None, now.message, now.serial + 4)
    redis_channel.set(live.room_key(room.slug), lost.encode())

    async def scenario():
        hub = await subscribed()
        read_key = hub.key_pulse

        async def key_then_catch_up(slug):
            pulse = await read_key(slug)
            await hub._catch_up()
            return pulse

        monkeypatch.setattr(hub, "key_pulse", key_then_catch_up)
        tag = (await asgi_get(APP, state_url(room))).headers["etag"]
        started = time.monotonic()
        quiet = await asgi_get(APP, state_url(room), f"wait={version}", [("if-none-match", tag)])
        return quiet, time.monotonic() - started

    quiet, held = async_to_sync(scenario)()
    assert quiet.status == 304
    assert 1.6 <= held < 10, f"answered after {held:.2f} s: the catch-up's old key ended it"


@pytest.mark.django_db(transaction=True)
def test_a_quiet_wait_whose_publish_was_lost_is_answered_with_the_new_state(
    redis_channel, room, alice, monkeypatch
):
    monkeypatch.setattr(waits, "WAIT_SECONDS", 1.5)
    version = version_of(room)

    async def scenario():
        await subscribed()
        tag = (await asgi_get(APP, state_url(room))).headers["etag"]
        waiting = asyncio.ensure_future(
            asgi_get(APP, state_url(room), f"wait={version}", [("if-none-match", tag)])
        )
        await asyncio.sleep(0.3)
        with monkeypatch.context() as lost:
            lost.setattr(live, "_send", lambda slug, pulse: True)  # "sent", never arrived
            await sync_to_async(play)(room, alice)
        return await waiting

    answer = async_to_sync(scenario)()
    # The database's word at the end of the wait: the room moved.
    assert answer.status == 200 and answer.json()["version"] == version + 1


def test_the_pulses_of_many_rooms_are_read_in_one_query(
    room, alice, bob, rules, django_assert_num_queries
):
    play(room, alice)
    services.message_send(seat=bob.seat, text="hola")
    waiting = services.room_create(rules=rules, nickname="zoe").room
    expected = pulse_of(room)
    assert expected.message is not None
    with django_assert_num_queries(1):  # the room that has no match yet too
        pulses = room_pulses([room.slug, waiting.slug, "no-such-room"])
    assert pulses == {room.slug: expected, waiting.slug: pulse_of(waiting)}
    assert pulses[waiting.slug][:4] == (0, 0, None, None)
    with django_assert_num_queries(1):
        assert room_pulses([room.slug]) == {room.slug: expected}


# -- what changes a board without a pulse publishes one -------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_vacation_a_mute_and_a_claimed_seat_wake_the_boards(
    ana, ben, clock, dice, no_redis, heard, rules
):
    from games.services.vacations import vacation_end, vacation_start

    seat = services.room_create(rules=rules, nickname="ana", user=ana)
    dice.push((3, 1))
    guest = services.room_join(room=seat.room, nickname="bob")
    room = seat.room
    heard.clear()
    vacation_start(user=ana, days=2)
    clock.tick(timedelta(hours=1))
    vacation_end(user=ana)
    services.messages_mute(seat=guest)
    services.seats_claim_for_user(user=ben, seat_ids=[guest.pk])
    assert [slug for slug, _pulse in heard] == [room.slug] * 4
    serials = [pulse.serial for _slug, pulse in heard]
    assert serials == sorted(set(serials))  # each change its own count
    assert heard[-1][1] == pulse_of(room)
    assert {pulse[:4] for _slug, pulse in heard} == {pulse_of(room)[:4]}  # no version moved


def test_waiters_whose_alarms_fall_in_one_grain_share_one_timer(no_redis):
    """A hundred waiters asleep until the same moment: one timer in the loop, each
    woken no earlier than asked and at most a grain late; a waiter roused before
    its alarm leaves it (the ring does not keep it)."""

    async def scenario():
        here = hubs.hub()
        loop = asyncio.get_running_loop()
        timers_before = len(loop._scheduled)  # the loop's timer heap
        sleepers = [hubs.Waiter() for _ in range(100)]
        early = hubs.Waiter()
        began = loop.time()
        naps = [asyncio.ensure_future(here.sleep(w, 0.3)) for w in sleepers]
        nap = asyncio.ensure_future(here.sleep(early, 0.3))
        await asyncio.sleep(0)
        timers = len(loop._scheduled) - timers_before
        [slot] = [s for s, waiting in here.alarms.items() if early in waiting]
        early.rouse()
        await nap
        roused = loop.time() - began
        still = early in here.alarms.get(slot, set())
        await asyncio.gather(*naps)
        return timers, roused, loop.time() - began, still, slot in here.alarms

    timers, roused, slept, early_kept, slot_kept = async_to_sync(scenario)()
    assert timers == 1
    assert roused < 0.1
    assert 0.29 <= slept < 0.3 + hubs.ALARM_GRAIN + 0.1  # (0.01: the float of the slot)
    assert not early_kept and not slot_kept


@pytest.mark.django_db(transaction=True)
def test_a_held_wait_runs_in_the_request_task_and_one_watcher(room, no_redis):
    """Beside the server's own task a held wait adds one task (the watcher of the
    client's messages), not two: the wait runs in the request's task."""
    version = version_of(room)

    async def scenario():
        before = len(asyncio.all_tasks())
        waiting = asyncio.ensure_future(asgi_get(APP, state_url(room), f"wait={version}"))
        await asyncio.sleep(0.3)
        held = len(asyncio.all_tasks()) - before
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)  # its wait ends, its waiter leaves
        return held, room.slug in hubs.hub().rooms

    held, still_waiting = async_to_sync(scenario)()
    assert held == 2  # the request's task (asgi_get's) and its watcher
    assert not still_waiting
