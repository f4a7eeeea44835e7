"""Django's Redis cache, failing open: an unreachable Redis is a cache miss.

Everything the cache holds is worth less than an answer: the rate limits'
counters (accounts.ratelimit), the log-in count per address, the state cache.
With Redis stopped, Django's own backend raises redis' ConnectionError from
every call, and a move that was already committed came back as a 500 (59
saved moves told they failed in one outage). Here every call that cannot reach
Redis returns what a cache that lost the key would: `get` the default, `get_many`
nothing, `add` False, `incr` the delta (a counter that starts again: the
limits count nothing while Redis is away), writes and deletes nothing. The
rate limits' `count_all` (one script: every counter read, then each counted or
none) lets everyone through.

A down Redis must not hold the request either: the connection and socket
timeouts are short (settings: CACHE_CONNECT_TIMEOUT, CACHE_SOCKET_TIMEOUT),
redis-py retries nothing, and after a failure this process does not even try
for CACHE_RETRY_SECONDS (games.lib.outage), logging one line, not a
traceback per request. Errors that are not about reaching Redis (a value that
does not pickle, a wrong type) still raise.

`/readyz` asks for the truth: `failing_loudly()` lets the errors through.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import redis
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from games.lib.outage import Outage

log = logging.getLogger(__name__)
T = TypeVar("T")

# Redis loading its file, a replica that turned read-only, a full or
# unpersistable Redis refusing writes: as good as away, for a cache.
UNREACHABLE: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ReadOnlyError,
)
REFUSING = ("MISCONF", "OOM", "LOADING", "MASTERDOWN")

# One per Redis address and process: every thread's backend (Django makes one
# per thread) shares what was seen.
_outages: dict[str, Outage] = {}


def unreachable(error: Exception) -> bool:
    if isinstance(error, UNREACHABLE):
        return True
    return isinstance(error, redis.exceptions.ResponseError) and str(error).startswith(REFUSING)


def outage_of(servers: list[str], retry_seconds: float) -> Outage:
    key = ",".join(servers)
    if key not in _outages:
        _outages[key] = Outage(
            "the cache (Redis)",
            log,
            meanwhile="failing open: misses, no limits counted",
            skip_for=retry_seconds,
        )
    return _outages[key]


class FailOpenClient(RedisCacheClient):
    def __init__(self, servers: list[str], retry_seconds: float = 5.0, **options: Any) -> None:
        super().__init__(servers, **options)
        self.outage = outage_of(servers, retry_seconds)
        self.strict = False
        self._clients: dict[int, redis.Redis] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        """One redis.Redis a pool, made once. Django's client makes a new one at
        every call, and redis-py's constructor copies its response callbacks into
        a case-insensitive dict: 60 µs of CPU here, more than a GET's round trip,
        five times an action. A Redis object on a pool is safe to share."""
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined] # not in django-stubs
        found = self._clients.get(id(pool))  # the pools are kept for good: ids stay theirs
        if found is None:
            made: redis.Redis = self._client(connection_pool=pool)  # type: ignore[attr-defined]
            found = self._clients[id(pool)] = made
        return found

    def _guard(self, default: T, call: Callable[[], T]) -> T:
        if self.outage.skipping() and not self.strict:
            return default
        try:
            result = call()
        except Exception as error:
            if not unreachable(error):
                raise
            self.outage.failed(error)
            if self.strict:
                raise
            return default
        self.outage.ok()
        return result

    def add(self, key: Any, value: Any, timeout: Any) -> bool:
        return self._guard(False, lambda: super(FailOpenClient, self).add(key, value, timeout))

    def get(self, key: Any, default: Any) -> Any:
        return self._guard(default, lambda: super(FailOpenClient, self).get(key, default))

    def set(self, key: Any, value: Any, timeout: Any) -> None:
        self._guard(None, lambda: super(FailOpenClient, self).set(key, value, timeout))

    def touch(self, key: Any, timeout: Any) -> bool:
        return self._guard(False, lambda: super(FailOpenClient, self).touch(key, timeout))

    def delete(self, key: Any) -> bool:
        return self._guard(False, lambda: super(FailOpenClient, self).delete(key))

    def get_many(self, keys: Any) -> dict[Any, Any]:
        return self._guard({}, lambda: super(FailOpenClient, self).get_many(keys))

    def has_key(self, key: Any) -> bool:
        return self._guard(False, lambda: super(FailOpenClient, self).has_key(key))

    def incr(self, key: Any, delta: int) -> int:
        # A missing key still raises ValueError (Redis answered); an absent
        # Redis answers as a counter that starts again, so nobody is limited.
        return self._guard(delta, lambda: super(FailOpenClient, self).incr(key, delta))

    def set_many(self, data: Any, timeout: Any) -> None:
        self._guard(None, lambda: super(FailOpenClient, self).set_many(data, timeout))

    def delete_many(self, keys: Any) -> None:
        self._guard(None, lambda: super(FailOpenClient, self).delete_many(keys))

    def clear(self) -> bool:
        return self._guard(False, lambda: super(FailOpenClient, self).clear())


# KEYS: the counters; ARGV: each one's limit, then each one's window in seconds.
# Every counter below its limit: one more on each (a new one starts its window),
# and 1; else nothing written, and 0. Counters are plain integers, as Django's
# serializer stores them, so get() reads them as the other backends' counts.
COUNT_ALL_SCRIPT = """
local n = #KEYS
for i = 1, n do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count and count >= tonumber(ARGV[i]) then return 0 end
end
for i = 1, n do
  if redis.call('INCR', KEYS[i]) == 1 then
    redis.call('EXPIRE', KEYS[i], tonumber(ARGV[n + i]))
  end
end
return 1
"""


class FailOpenRedisCache(RedisCache):
    """settings.CACHES' backend for a redis:// CACHE_URL (config/settings/base.py)."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = FailOpenClient

    def count_all(self, counters: list[tuple[str, int, int]]) -> bool:
        """One more on every (key, limit, window seconds) counter if all are below
        their limits, else nothing: True when counted. One round trip, atomic (the
        rate limits of every action: accounts.ratelimit.allow_all). Redis away: True,
        nothing counted, like every other call here."""
        keys = [self.make_and_validate_key(key) for key, _limit, _window in counters]
        if not keys:
            return True
        limits = [limit for _key, limit, _window in counters]
        windows = [window for _key, _limit, window in counters]
        client = self.client

        def run() -> bool:
            redis_client = client.get_client(keys[0], write=True)
            return bool(redis_client.eval(COUNT_ALL_SCRIPT, len(keys), *keys, *limits, *windows))

        return client._guard(True, run)

    @property
    def client(self) -> FailOpenClient:
        client: FailOpenClient = self._cache  # type: ignore[attr-defined] # RedisCache's, not in django-stubs
        return client

    @property
    def outage(self) -> Outage:
        return self.client.outage

    @contextmanager
    def failing_loudly(self) -> Iterator[None]:
        """Within it, an unreachable Redis raises as with Django's own backend (/readyz)."""
        client = self.client
        client.strict = True
        try:
            yield
        finally:
            client.strict = False
