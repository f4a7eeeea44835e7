"""Live updates, the waiting side: a held ``?wait=`` request as a coroutine.

Under an ASGI server (uvicorn, config/asgi.py) `LiveWaits` holds a board's
``GET /api/rooms/<slug>/?wait=<version>`` in front of Django: no thread, no
database connection, no session read while it waits. When the room moves
the request goes on to Django without ``wait=``, and games.web.api.room_state
answers the state at once (with its ETag: 304 when this viewer's state did
not change), so the board's contract and every private part of the state
stay exactly as they are. When the wait runs out with the room where it was
(the fate of nearly every wait: 2,000 open boards end 80 of them a second),
the database confirms it (one query for the waits ending together) and the
board's own ETag is answered 304 here, without Django, provided the ETag
names the room's state serial the wait started from (nothing changed
between the board's last answer and this wait) and says the clock changes
nothing it shows before now (games.web.state_cache writes both into it). A
board whose ETag names an older serial is answered by Django at once.
Anything else goes on to Django. Under WSGI (gunicorn,
runserver, the test client) nothing here runs: the view long-polls the
database in a thread as before (games.web.longpoll), which is also where
nginx sends the waits when the ASGI server is away.

Each process has one Hub per event loop: one Redis subscription to the
site's channel (games.services.live), fanned out to the waiters of each room
in memory. A waiter:

1. registers with the hub, then reads the room's pulse from its Redis key
   (no database); unless the key says the room is where the board is, one
   query: no key, a key older than the board (a lost publish), or one ahead
   of it, which the database confirms. A key ahead of the database is left by
   a timeline that a restored backup undid (the room's serial only grows, and
   every key was read from the database before this): forgotten, so it
   neither ends waits at once nor holds back the restored room's publishes;
2. answers at once when the room's version is not the board's;
3. otherwise waits for a pulse of its room on the channel (a pulse not older
   than the one it started from: a finished analysis publishes the same
   pulse, and the board's state still changed), at most 25 s.

Catching up: while the subscription is down, at most LONG_POLL_WAITERS
waiters of this process poll the database once a second; the others hold
on (no herd of queries or of state answers at the moment Redis blinks).
After a reconnect the hub reads the keys of every room it has waiters for,
so a pulse published while it was away still wakes them. And whatever was
lost, every wait ends within 25 s (21 to 25, spread) with the board
re-reading its state.
"""

import asyncio
import logging
import random
import re
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple, TypeVar
from urllib.parse import parse_qs, parse_qsl, urlencode

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.urls import Resolver404, resolve

from games.lib import clock
from games.selectors.pulse import Pulse, room_pulse, room_pulses
from games.services import live
from games.services.cleaning import int_from_text

log = logging.getLogger(__name__)
T = TypeVar("T")

WAIT_SECONDS = 25.0  # as games.web.longpoll: below nginx's proxy_read_timeout (40 s)
POLL_EVERY = 1.0  # the database, only while the hub has no subscription
CHECK_HUB_EVERY = 5.0  # a waiter looks whether its hub still listens
SILENCE = 20.0  # seconds without a word from Redis (a ping is sent every 10): reconnect
RECONNECT_FIRST = 0.5  # seconds before the first try to subscribe again, doubling
RECONNECT_MAX = 10.0
STATE_VIEW = "games:api_state"
VERIFY_GATHER = 0.05  # seconds the waits ending together gather for their one query


class Waiter:
    """One held request: what it started from and what it heard since."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.start: Pulse | None = None
        self.heard: list[tuple[Pulse, bool]] = []  # (pulse, only a catch-up read)
        self.stale: Pulse | None = None  # a key of a timeline a restore undid

    def hear(self, pulse: Pulse, *, catch_up: bool = False) -> None:
        if catch_up and pulse == self.stale:
            return
        self.heard.append((pulse, catch_up))
        if self.moved():
            self.event.set()

    def ignore_key(self, pulse: Pulse) -> None:
        """Not news, whenever a catch-up read it (before this waiter knew, too)."""
        self.stale = pulse
        self.heard = [(p, catch_up) for p, catch_up in self.heard if not catch_up or p != pulse]

    def moved(self) -> bool:
        start = self.start
        if start is None:
            return False
        for pulse, catch_up in self.heard:
            # A publish is news even with the same pulse (an analysis finished);
            # a key read on reconnect only when it is newer than the start.
            if pulse.order() > start.order() or (not catch_up and pulse.not_older(start)):
                return True
        return False


class Hub:
    """The waiters of one event loop by room slug, and the one subscription that wakes them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.rooms: dict[str, set[Waiter]] = {}
        self.subscribed = False
        self.task: asyncio.Task[None] | None = None
        self.client: Any = None  # redis.asyncio.Redis for the keys
        self.slots = asyncio.Semaphore(getattr(settings, "LONG_POLL_WAITERS", 16))
        self.verifying: dict[str, asyncio.Future[Pulse | None]] = {}
        self.verifier: asyncio.Task[None] | None = None
        live.listen_here(self.hear_from_any_thread)

    # -- waiters -------------------------------------------------------------

    def add(self, slug: str, waiter: Waiter) -> None:
        self.rooms.setdefault(slug, set()).add(waiter)

    def discard(self, slug: str, waiter: Waiter) -> None:
        waiters = self.rooms.get(slug)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self.rooms[slug]

    def hear(self, slug: str, pulse: Pulse, *, catch_up: bool = False) -> None:
        for waiter in list(self.rooms.get(slug, ())):
            waiter.hear(pulse, catch_up=catch_up)

    def hear_from_any_thread(self, slug: str, pulse: Pulse) -> None:
        """A pulse this process published without Redis (games.services.live.listen_here)."""
        try:
            self.loop.call_soon_threadsafe(self.hear, slug, pulse)
        except RuntimeError:  # the loop is closed (a test's loop, a stopped server)
            live.stop_listening_here(self.hear_from_any_thread)

    # -- the database, once for the waits that end together -------------------

    async def verify(self, slug: str) -> Pulse | None:
        """The room's pulse as the database has it (None: no such room), read with
        those of the other rooms whose waits end within VERIFY_GATHER."""
        future = self.verifying.get(slug)
        if future is None:
            future = self.verifying[slug] = self.loop.create_future()
            if self.verifier is None:
                self.verifier = self.loop.create_task(self._verify_gathered())
        return await asyncio.shield(future)

    async def _verify_gathered(self) -> None:
        await asyncio.sleep(VERIFY_GATHER)
        batch, self.verifying, self.verifier = self.verifying, {}, None
        try:
            slugs = list(batch)
            pulses = await sync_to_async(_outside_a_request)(lambda: room_pulses(slugs))
        except Exception as error:  # each wait goes on to Django, which answers
            for future in batch.values():
                if not future.done():
                    future.set_exception(error)
            return
        for slug, future in batch.items():
            if not future.done():
                future.set_result(pulses.get(slug))

    # -- Redis ---------------------------------------------------------------

    def start(self) -> None:
        if self.task is None and settings.LIVE_REDIS_URL:
            self.client = _redis(socket_timeout=KEY_READ_TIMEOUT, pool_size=KEY_CONNECTIONS)
            self.task = self.loop.create_task(self._listen(), name="mesa-live-hub")

    async def key_pulse(self, slug: str) -> Pulse | None:
        """The pulse the publisher stored for the room; None without one (or without Redis)."""
        if self.client is None:
            return None
        try:
            raw = await self.client.get(live.room_key(slug))
        except Exception as error:
            log.debug("live: no key for room %s (%s)", slug, type(error).__name__)
            return None
        return Pulse.decode(raw) if raw else None

    async def forget_key(self, slug: str, pulse: Pulse) -> None:
        """Delete the room's key if it still holds `pulse`; never raises."""
        log.warning("live: room %s's key %s is ahead of the database: forgotten", slug, pulse)
        try:
            await self.client.eval(live.FORGET_SCRIPT, 1, live.room_key(slug), pulse.encode())
        except Exception as error:
            log.info("live: could not forget room %s's key (%s)", slug, type(error).__name__)

    async def _listen(self) -> None:
        delay = RECONNECT_FIRST
        while True:
            client = _redis(socket_timeout=SILENCE)
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(live.channel())
                self.subscribed = True
                delay = RECONNECT_FIRST
                log.info("live: listening on %s", live.channel())
                await self._catch_up()
                await self._relay(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning(
                    "live: the subscription to %s is down (%s: %s); boards poll meanwhile",
                    live.channel(),
                    type(error).__name__,
                    error,
                )
            finally:
                self.subscribed = False
                await _close(pubsub, client)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX)

    async def _relay(self, pubsub: Any) -> None:
        last_word = self.loop.time()
        pinged = False
        while True:
            message = await pubsub.get_message(timeout=1.0)
            now = self.loop.time()
            if message is not None:
                last_word, pinged = now, False
                if message.get("type") == "message":
                    parsed = live.parse_message(message["data"])
                    if parsed is not None:
                        self.hear(*parsed)
            elif now - last_word > SILENCE:
                raise ConnectionError(f"no answer from Redis for {SILENCE:.0f} s")
            elif now - last_word > SILENCE / 2 and not pinged:
                await pubsub.ping()  # its pong is the word that keeps the link alive
                pinged = True

    async def _catch_up(self) -> None:
        """Read the key of every room with waiters: what was published while away."""
        slugs = list(self.rooms)
        if not slugs or self.client is None:
            return
        values = await self.client.mget([live.room_key(slug) for slug in slugs])
        for slug, raw in zip(slugs, values, strict=True):
            pulse = Pulse.decode(raw) if raw else None
            if pulse is not None:
                self.hear(slug, pulse, catch_up=True)


KEY_READ_TIMEOUT = 1.0  # a coroutine may wait; a spurious timeout would cost a query
KEY_CONNECTIONS = 16  # the key reads of thousands of waiters share a few connections


def _redis(*, socket_timeout: float, pool_size: int | None = None) -> Any:
    import redis.asyncio
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    options: dict[str, Any] = {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": max(settings.LIVE_REDIS_TIMEOUT, 2.0),
        "retry": Retry(NoBackoff(), 0),
    }
    if pool_size is None:
        return redis.asyncio.Redis.from_url(settings.LIVE_REDIS_URL, **options)
    pool = redis.asyncio.BlockingConnectionPool.from_url(
        settings.LIVE_REDIS_URL, max_connections=pool_size, timeout=KEY_READ_TIMEOUT, **options
    )
    return redis.asyncio.Redis(connection_pool=pool)


async def _close(pubsub: Any, client: Any) -> None:
    for closing in (pubsub.aclose, client.aclose):
        try:
            await closing()
        except Exception:
            pass


_hubs: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub]" = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """This event loop's hub (uvicorn runs one loop per process), started on first use."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(loop)
    found.start()
    return found


def _outside_a_request(read: Callable[[], T]) -> T:
    """`read` in the sync thread no request owns: its connection is handed back after
    (to the pool, or closed past CONN_MAX_AGE), since no request_finished will.
    Kept, a pooled connection stayed taken for good and the requests waited for one."""
    try:
        return read()
    finally:
        close_old_connections()


async def _database_pulse(slug: str) -> Pulse | None:
    found = await sync_to_async(_outside_a_request)(lambda: room_pulse(slug=slug))
    return found[1] if found else None


async def wait_for_change(
    slug: str, version: int, *, seconds: float | None = None, serial: int | None = None
) -> bool:
    """Return when room `slug` moved past `version` (True) or the wait ran out with
    the database saying it is where it was (False).

    True at once for a room that is not there (the view answers its 404), and for
    a board whose state was read at another `serial` than the room's now (a word,
    a written answer, a vacation: what moves no version). A room still waiting
    for its second player is at version 0 until the join. The database's word
    at the end catches a publish that was lost on its way.
    """
    here = hub()
    waiter = Waiter()
    here.add(slug, waiter)  # before reading the pulse: nothing published after it is missed
    slot = False
    try:
        key = start = await here.key_pulse(slug)
        if key is None or key.version != version or (serial is not None and key.serial != serial):
            start = await _database_pulse(slug)  # no key, a lost publish, or news to confirm
            if key is not None and start is not None and key.serial > start.serial:
                waiter.ignore_key(key)  # of a timeline a restore undid
                await here.forget_key(slug, key)
        if start is None or start.version != version:
            return True  # not there, or not where the board is
        if serial is not None and start.serial != serial:
            return True  # changed since the board's last answer
        waiter.start = start
        # Spread over the last 15 %: boards that began together (a deploy, a
        # reconnect) do not all come back in the same second.
        seconds = WAIT_SECONDS if seconds is None else seconds
        deadline = here.loop.time() + seconds * random.uniform(0.85, 1.0)
        while (left := deadline - here.loop.time()) > 0:
            if waiter.moved():
                return True
            if not here.subscribed and not slot and not here.slots.locked():
                await here.slots.acquire()  # one of the few that poll the database
                slot = True
            polling = slot and not here.subscribed
            waiter.event.clear()
            step = min(left, POLL_EVERY if polling else CHECK_HUB_EVERY)
            try:
                await asyncio.wait_for(waiter.event.wait(), step)
            except TimeoutError:
                pass
            if waiter.moved():
                return True
            if polling and await _database_pulse(slug) != start:
                return True
        try:
            return await here.verify(slug) != start
        except Exception as error:
            log.info("live: no word from the database on room %s (%r)", slug, error)
            return True  # Django answers, or says why it cannot
    finally:
        here.discard(slug, waiter)
        if slot:
            here.slots.release()


def wait_target(path: str, query: bytes, method: str) -> tuple[str, int] | None:
    """(slug, version) of a board's held state request; None for anything else
    (a malformed ?wait= too: the view answers its 400)."""
    if method not in ("GET", "HEAD"):
        return None
    texts = parse_qs(query.decode("latin-1")).get("wait")
    if not texts or len(texts) != 1:
        return None
    version = int_from_text(texts[0])
    if version is None or version < 0:
        return None
    try:
        match = resolve(path)
    except Resolver404:
        return None
    slug = match.kwargs.get("slug")
    if match.view_name != STATE_VIEW or not isinstance(slug, str):
        return None
    return slug, version


Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class LiveWaits:
    """The ASGI application of config/asgi.py: Django, with held ?wait= requests waited here.

    A board's ``GET /api/rooms/<slug>/?wait=<version>`` waits in front of
    Django, before any middleware, thread, session or connection; then it goes
    on to Django without ``wait=``, and games.web.api.room_state answers the
    state as it is now (with its ETag: 304 when this viewer's state did not
    change). Everything else goes straight to Django. A client that leaves
    while waiting stops the wait.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        target = None
        if scope["type"] == "http":
            target = wait_target(scope["path"], scope.get("query_string", b""), scope["method"])
        if target is None:
            await self.app(scope, receive, send)
            return
        heard: list[Message] = []
        left = asyncio.Event()

        async def watch() -> None:
            while True:
                message = await receive()
                heard.append(message)
                if message["type"] == "http.disconnect":
                    left.set()
                    return

        slug, version = target
        board = board_etag(scope, version)
        watcher = asyncio.ensure_future(watch())
        waiting = asyncio.ensure_future(
            wait_for_change(slug, version, serial=board.serial if board else None)
        )
        gone = asyncio.ensure_future(left.wait())
        try:
            await asyncio.wait({waiting, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watcher, waiting, gone):
                task.cancel()
        if left.is_set():
            return  # nobody to answer
        if waiting.exception() is not None:
            log.warning("live: a wait failed (%r); answered at once", waiting.exception())
        elif not waiting.result() and board is not None and board.clock_allows():
            await send_not_modified(send, board.tag)
            return

        async def replay() -> Message:
            return heard.pop(0) if heard else await receive()

        query = urlencode(
            [
                (k, v)
                for k, v in parse_qsl(
                    scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True
                )
                if k != "wait"
            ]
        )
        await self.app({**scope, "query_string": query.encode("latin-1")}, replay, send)


# games.web.state_cache.etag_of: "v<version>-s<serial>-<digest>" and the clock's part.
ETAG = re.compile(r'"v(?P<version>\d+)-s(?P<serial>\d+)-[0-9a-f]{16}(?:-n|-u(?P<until>\d+))"')


class BoardTag(NamedTuple):
    """The board's If-None-Match, read: what its state was computed at."""

    tag: bytes
    serial: int
    until: int | None  # the second from which the clock changes it; None: never

    def clock_allows(self) -> bool:
        """Whether the state the tag names is still what the clock shows now."""
        return self.until is None or clock.now().timestamp() < self.until


def board_etag(scope: Scope, version: int) -> BoardTag | None:
    """The board's ETag when it is one of ours for `version`, the one it waits on."""
    values: list[bytes] = [v for name, v in scope.get("headers", ()) if name == b"if-none-match"]
    if len(values) != 1:
        return None
    tag = values[0].decode("latin-1").strip().removeprefix("W/")
    found = ETAG.fullmatch(tag)
    if found is None or int(found["version"]) != version:
        return None
    until = int(found["until"]) if found["until"] is not None else None
    return BoardTag(tag.encode("latin-1"), int(found["serial"]), until)


async def send_not_modified(send: Send, tag: bytes) -> None:
    """The 304 games.web.api.answer_response would send, its headers included."""
    await send(
        {
            "type": "http.response.start",
            "status": 304,
            "headers": [
                (b"etag", tag),
                (b"cache-control", b"private, no-cache"),
                (b"vary", b"Cookie, Accept-Language"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
