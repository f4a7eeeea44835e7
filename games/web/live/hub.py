"""The Redis hub: one subscription per event loop, fanned out to the waiting boards.

Each process has one Hub per event loop (uvicorn runs one loop per process):
one Redis subscription to the site's channel (games.services.live), fanned out
in memory to the waiters of each room, and a few connections that read the
rooms' pulse keys. A subscription that goes quiet is dropped and made again,
waiting longer each time; after a reconnect the hub reads the keys of every
room it has waiters for, so a pulse published while it was away still wakes
them.

While subscribed, the hub also remembers the newest pulse it has read or
heard of each room: every later publish reaches it, so a wait that starts on
a room it knows reads no key (at 10,000 boards a Redis GET was an eighth of a
uvicorn worker's main thread). What it knows is dropped with the
subscription, and a pulse read before the subscription was up is never kept.
"""

import asyncio
import itertools
import logging
import math
import weakref
from typing import Any, NamedTuple

from django.conf import settings

from games.selectors.pulse import Pulse
from games.services import live
from games.web.live.database import Gathered

log = logging.getLogger(__name__)

SILENCE = 20.0  # seconds without a word from Redis (a ping is sent every 10): reconnect
RECONNECT_FIRST = 0.5  # seconds before the first try to subscribe again, doubling
RECONNECT_MAX = 10.0
KEY_READ_TIMEOUT = 1.0  # a coroutine may wait; a spurious timeout would cost a query
KEY_CONNECTIONS = 16  # the key reads of thousands of waiters share a few connections
KNOWN_MAX = 100_000  # rooms whose pulse the hub remembers; past this it starts afresh
# Waiters whose alarms fall within one grain share one timer (a timer a wait was
# about 600 bytes of uvicorn's memory); an alarm rings up to this much late.
ALARM_GRAIN = 0.1  # seconds


_ticks = itertools.count(1)


def tick() -> int:
    """A number larger than every one before: the order in which a process heard of
    a room's change and began reading its state (games.web.live.fanout)."""
    return next(_ticks)


class Word(NamedTuple):
    """The database's word on a room, asked for the waits that started from `key`
    (games.web.live.waits.database_word)."""

    key: Pulse | None  # the newest pulse the waits knew of (the hub's, or the room's key)
    asked: int  # tick() as it was asked: a state read after it is at least as new
    moment: int | None  # the subscription it was asked under (Hub.learn)
    answer: "asyncio.Future[Pulse | None]"


class Waiter:
    """One held request: what it started from and what it heard since.

    Slotted, and asleep on a future of its own rather than an asyncio.Event (whose
    deque of waiters is 760 bytes): at 10,000 boards every byte here is 10 KB
    of uvicorn's memory (docs/LOAD.md)."""

    __slots__ = ("wake", "start", "heard", "stale", "tick")

    def __init__(self) -> None:
        self.wake: asyncio.Future[None] | None = None  # while it sleeps (Hub.sleep)
        self.start: Pulse | None = None
        self.heard: list[tuple[Pulse, bool]] = []  # (pulse, only a catch-up read)
        self.stale: Pulse | None = None  # a key of a timeline a restore undid
        self.tick = 0  # when it last heard (tick())

    def hear(self, pulse: Pulse, *, catch_up: bool = False) -> None:
        if catch_up and pulse == self.stale:
            return
        self.heard.append((pulse, catch_up))
        self.tick = tick()
        if self.moved():
            self.rouse()

    def rouse(self) -> None:
        """Wake it if it sleeps. Awake, it looks at what it heard and at the
        subscription before it sleeps again: nothing is lost by not keeping a flag."""
        wake = self.wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def ignore_key(self, pulse: Pulse) -> None:
        """Not news, whenever a catch-up read it (before this waiter knew, too)."""
        self.stale = pulse
        self.heard = [(p, catch_up) for p, catch_up in self.heard if not catch_up or p != pulse]

    def newest(self) -> Pulse | None:
        """The newest pulse heard (what a wake-up's state must be at least as new as)."""
        return max((pulse for pulse, _catch_up in self.heard), key=Pulse.order, default=None)

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
        self.alarms: dict[int, set[Waiter]] = {}  # by slot: the grains of the loop's clock
        self.subscribed = False
        # The newest pulse of each room read or heard during this subscription
        # (`epoch`: which one), dropped with it.
        self.known: dict[str, Pulse] = {}
        self.epoch = 0
        self.task: asyncio.Task[None] | None = None
        self.client: Any = None  # redis.asyncio.Redis for the keys
        self.slots = asyncio.Semaphore(getattr(settings, "LONG_POLL_WAITERS", 16))
        self.database = Gathered(loop)
        # By room: the database's word asked for the waits now starting (games.web.live.waits).
        self.words: dict[str, Word] = {}
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
        if self.subscribed:
            self._know(slug, pulse)
        for waiter in list(self.rooms.get(slug, ())):
            waiter.hear(pulse, catch_up=catch_up)

    def nudge(self) -> None:
        """Wake every waiter to look again at the subscription (it went down: a
        few of them poll the database until it is back)."""
        for waiters in self.rooms.values():
            for waiter in waiters:
                waiter.rouse()

    async def sleep(self, waiter: Waiter, seconds: float) -> None:
        """Until `waiter` is roused (a pulse, the subscription gone) or `seconds`
        have passed, a grain late at most: one timer for all the waiters whose
        alarms fall in the same grain, none of its own."""
        slot = math.ceil((self.loop.time() + seconds) / ALARM_GRAIN)
        sleepers = self.alarms.get(slot)
        if sleepers is None:
            sleepers = self.alarms[slot] = set()
            self.loop.call_at(slot * ALARM_GRAIN, self._ring, slot)
        sleepers.add(waiter)
        waiter.wake = self.loop.create_future()
        try:
            await waiter.wake
        finally:
            waiter.wake = None
            sleepers.discard(waiter)  # a waiter that ended early is not kept to the ring

    def _ring(self, slot: int) -> None:
        for waiter in self.alarms.pop(slot, ()):
            waiter.rouse()

    def _know(self, slug: str, pulse: Pulse) -> None:
        known = self.known.get(slug)
        if known is None or pulse.order() > known.order():
            if len(self.known) >= KNOWN_MAX:
                self.known.clear()
            self.known[slug] = pulse

    def _subscription(self, up: bool) -> None:
        self.subscribed = up
        self.epoch += 1
        self.known.clear()
        if not up:
            self.nudge()

    def hear_from_any_thread(self, slug: str, pulse: Pulse) -> None:
        """A pulse this process published without Redis (games.services.live.listen_here)."""
        try:
            self.loop.call_soon_threadsafe(self.hear, slug, pulse)
        except RuntimeError:  # the loop is closed (a test's loop, a stopped server)
            live.stop_listening_here(self.hear_from_any_thread)

    # -- Redis ---------------------------------------------------------------

    def start(self) -> None:
        if self.task is None and settings.LIVE_REDIS_URL:
            self.client = _redis(socket_timeout=KEY_READ_TIMEOUT, pool_size=KEY_CONNECTIONS)
            self.task = self.loop.create_task(self._listen(), name="mesa-live-hub")

    async def start_pulse(self, slug: str) -> Pulse | None:
        """The room's newest pulse this hub knows of: from memory while subscribed
        (every publish since reached it), else its key (kept when the same
        subscription was up from before the read to after it)."""
        if self.subscribed and (known := self.known.get(slug)) is not None:
            return known
        moment = self.moment()
        pulse = await self.key_pulse(slug)
        if pulse is not None:
            self.learn(slug, pulse, moment)
        return self.known.get(slug, pulse) if self.subscribed else pulse

    def moment(self) -> int | None:
        """Which subscription is up now (None: none): what `learn` checks."""
        return self.epoch if self.subscribed else None

    def learn(self, slug: str, pulse: Pulse, moment: int | None) -> None:
        """Remember a pulse read at `moment` (the database's word, newer than the key)
        if the same subscription is still up: it heard every publish since."""
        if moment is not None and self.subscribed and self.epoch == moment:
            self._know(slug, pulse)

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

    async def remember_key(self, slug: str, pulse: Pulse) -> None:
        """Write the database's pulse into a room's missing key, never over one (a
        publish's is as new or newer; its script overwrites an older one): the next
        waits on a room quiet for longer than the key lasts read the key, not the
        database, one at a time through the one sync thread. Never raises."""
        if self.client is None:
            return
        try:
            await self.client.set(live.room_key(slug), pulse.encode(), ex=live.KEY_TTL, nx=True)
        except Exception as error:
            log.debug("live: room %s's key not written (%s)", slug, type(error).__name__)

    async def forget_key(self, slug: str, pulse: Pulse) -> None:
        """Delete the room's key if it still holds `pulse`; never raises."""
        log.warning("live: room %s's key %s is ahead of the database: forgotten", slug, pulse)
        if self.known.get(slug) == pulse:
            del self.known[slug]
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
                self._subscription(True)
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
                self._subscription(False)
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
    """This event loop's hub, started on first use."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(loop)
    found.start()
    return found
