"""Live updates, the publishing side: "room <slug> is at <pulse>" after every commit.

Every service that changes a room's pulse (games.selectors.pulse: the match's
number and version, the rematch offer, the latest message) locks the room's
current match first, through games.services.table (`lock_current_match`,
`open_table`). What changes a board's state without its pulse calls
`room_moved` itself: the sweep that expires a room, the analysis starting
and done, a vacation starting or ending (every open room of the player), a
mute, guest seats claimed by an account. A quiet wait is answered 304
without Django (games.web.live), so a change that published nothing would
reach the boards only with the next move. `room_moved` asks for one publish per room
when the transaction commits (transaction.on_commit; nothing when it rolls
back), so the waiting boards (games.web.live) are woken on whichever node
they wait.

The publish is one Redis round trip: a small script that stores the room's
pulse under its key (unless a newer one is there already: two commits of one
room may publish in either order) and publishes it on the site's channel.
The key lets a waiter see "already moved?" without the database, and lets a
node that lost its subscription catch up. A key can only say "not moved"
on its own: "moved" is confirmed by the database, and a key whose serial is
ahead of the database's is the trace of a timeline a restored backup undid
(games.web.live forgets it).

Behind the production front (LIVE_NCHAN_URL set) the boards wait in nginx,
each a subscriber of its room's nchan channel (deploy/nginx/mesa.conf.template,
static/js/channel.js), and the same pulse is also POSTed to every node's
nchan publisher: one HTTP round trip a node, on this machine or the nodes'
network. Each publisher fails open the same way (a failure is a log line and a
pause of its own); a board that missed it re-reads its state within ten
minutes (static/js/channel.js), and one whose channel does not answer falls
back to the long poll above.

It fails open. The socket gives up after LIVE_REDIS_TIMEOUT (0.25 s), a
failure is one log line and nothing else, and for the next few seconds the
publisher does not try again (a hung Redis costs one request a quarter of a
second, not every move). A board that missed a message sees the move when
its wait ends (45 s at most, games.web.live.waits) and re-reads the state.
Without LIVE_REDIS_URL (make run: no servers) the pulse goes to the waiters
of this process only; the other processes' boards see it by their own long
poll of the database.
"""

import logging
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from games.models import Room
from games.selectors.pulse import Pulse, room_pulse

log = logging.getLogger(__name__)

KEY_TTL = 3 * 24 * 3600  # a key outlives a quiet weekend; a missing key costs one query
# Seconds without trying Redis after it failed: the site's one number for that.
PAUSE_AFTER_FAILURE = float(getattr(settings, "FAIL_OPEN_RETRY_SECONDS", 5.0))

# KEYS[1] the room's key; ARGV: the encoded pulse, the channel, the message, the TTL.
# The pulse is "version:message:number:rematch:serial"; (version, message, serial)
# is the order of a room's pulses (a key of the release before has no serial: 0).
PUBLISH_SCRIPT = """
local function order(pulse)
  local v, m, s = string.match(pulse, '^(%d+):(%d+):%d+:%d+:?(%d*)$')
  if not v then return nil end
  return {tonumber(v), tonumber(m), tonumber(s) or 0}
end
local old = redis.call('GET', KEYS[1])
if old then
  local o, n = order(old), order(ARGV[1])
  if o and n and (n[1] < o[1] or (n[1] == o[1] and (n[2] < o[2]
      or (n[2] == o[2] and n[3] < o[3])))) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[4]))
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
"""

# KEYS[1] the room's key; ARGV[1] the value found there. Deleted only if unchanged
# since: a publish that came in between stays (games.web.live, a key a restore left).
FORGET_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

Listener = Callable[[str, Pulse], None]
_listeners: list[Listener] = []
_lock = threading.Lock()
_client: Any = None
_script: Any = None
_client_url = ""
_paused_until = 0.0
_nchan_paused_until: dict[str, float] = {}  # by publisher URL
# The publishers are the nodes' own nginx: never through an HTTP proxy the
# environment names (urlopen would follow http_proxy).
_nchan_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def channel() -> str:
    """The site's one channel. Pub/sub ignores Redis's database numbers, so the
    name carries LIVE_CHANNEL (by default "mesa:live:<db>", the URL's database)."""
    return str(settings.LIVE_CHANNEL)


# Where a board subscribes to its room's channel: the site's location in
# deploy/nginx/mesa.conf.template, whose publisher LIVE_NCHAN_URL names.
CHANNEL_PATH = "/live/rooms/"


def channel_url(slug: str) -> str | None:
    """The board's wait on nginx's channel of room `slug`; None without nchan."""
    return CHANNEL_PATH + slug if settings.LIVE_NCHAN_URL else None


def room_key(slug: str) -> str:
    return f"{channel()}:room:{slug}"


def message(slug: str, pulse: Pulse) -> str:
    return f"{slug} {pulse.encode()}"


def parse_message(data: str | bytes) -> tuple[str, Pulse] | None:
    if isinstance(data, bytes):
        data = data.decode("ascii", "replace")
    slug, _, encoded = data.partition(" ")
    pulse = Pulse.decode(encoded)
    return (slug, pulse) if slug and pulse is not None else None


def listen_here(listener: Listener) -> None:
    """Also hand every pulse published by this process to `listener` (its waiters)."""
    with _lock:
        if listener not in _listeners:
            _listeners.append(listener)


def stop_listening_here(listener: Listener) -> None:
    with _lock:
        if listener in _listeners:
            _listeners.remove(listener)


def room_moved(room_id: int, **columns: object) -> None:
    """The room's boards show something new: count it in the room's state serial
    (the state cache's key, games.selectors.stamp) in the caller's transaction,
    and publish the room's pulse once it commits (once per room). `columns`: the
    room's other columns the change sets, written in the same UPDATE (a move's
    last_move_at: one round trip, not two).

    Counted at every call, not once per transaction: a savepoint rolled back
    takes its count with it, and what the transaction changes after it must
    still move the serial."""
    Room.objects.filter(pk=room_id).update(state_serial=F("state_serial") + 1, **columns)
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        publish_rooms({room_id})
        return
    pending = getattr(connection, "_mesa_live_pending", None)
    # A rolled-back transaction drops its on_commit callbacks: start a new set then.
    if pending is None or not any(entry[1] is pending for entry in connection.run_on_commit):
        pending = _Pending()
        connection._mesa_live_pending = pending
        transaction.on_commit(pending, robust=True)
    pending.rooms.add(room_id)


class _Pending:
    def __init__(self) -> None:
        self.rooms: set[int] = set()
        self.__qualname__ = "live.publish_on_commit"  # named in Django's log if it ever raised

    def __call__(self) -> None:
        rooms, self.rooms = self.rooms, set()
        publish_rooms(rooms)


def publish_rooms(room_ids: set[int]) -> None:
    for room_id in sorted(room_ids):
        try:
            found = room_pulse(room_id=room_id)
        except Exception:  # the database went away after the commit: boards catch up
            log.warning("live: could not read room %s's pulse to publish it", room_id)
            continue
        if found is not None:
            publish(*found)


def publish(slug: str, pulse: Pulse) -> bool:
    """Send the pulse to every node; True when Redis took it. Never raises."""
    sent = _send(slug, pulse)
    # After Redis: a board told by nginx that falls back to the long poll finds
    # uvicorn's hub already told too.
    _announce(slug, pulse)
    if not sent:
        # Redis has not got it (none configured, or down): at least this
        # process's waiters hear it. With Redis it comes back on the channel.
        for listener in list(_listeners):
            try:
                listener(slug, pulse)
            except Exception:
                log.exception("live: a listener of this process failed")
    return sent


def _send(slug: str, pulse: Pulse) -> bool:
    global _paused_until
    if not settings.LIVE_REDIS_URL or time.monotonic() < _paused_until:
        return False
    try:
        script = _redis_script()
        script(
            keys=[room_key(slug)],
            args=[pulse.encode(), channel(), message(slug, pulse), KEY_TTL],
        )
        return True
    except Exception as error:  # RedisError, OSError, a bad URL: never into the request
        _paused_until = time.monotonic() + PAUSE_AFTER_FAILURE
        log.warning(
            "live: publish of room %s failed (%s: %s); not trying for %.0f s",
            slug,
            type(error).__name__,
            error,
            PAUSE_AFTER_FAILURE,
        )
        return False


def _announce(slug: str, pulse: Pulse) -> int:
    """POST the pulse to the room's nchan channel on every node (each URL of
    LIVE_NCHAN_URL + slug): how many nginx took it."""
    return sum(_announce_to(base, slug, pulse) for base in settings.LIVE_NCHAN_URL)


def _announce_to(base: str, slug: str, pulse: Pulse) -> bool:
    """One node's publisher. Fails open like _send, with a pause for that node alone."""
    if time.monotonic() < _nchan_paused_until.get(base, 0.0):
        return False
    request = urllib.request.Request(
        base + slug,
        data=pulse.encode().encode("ascii"),
        method="POST",
        headers={"Content-Type": "text/plain"},
    )
    try:
        with _nchan_opener.open(request, timeout=settings.LIVE_REDIS_TIMEOUT) as answer:
            answer.read()
        return True
    except Exception as error:  # URLError, HTTPError, timeouts: never into the request
        _nchan_paused_until[base] = time.monotonic() + PAUSE_AFTER_FAILURE
        log.warning(
            "live: nchan publish of room %s to %s failed (%s: %s); not trying for %.0f s",
            slug,
            base,
            type(error).__name__,
            error,
            PAUSE_AFTER_FAILURE,
        )
        return False


def _redis_script() -> Any:
    global _client, _script, _client_url
    with _lock:
        if _script is None or _client_url != settings.LIVE_REDIS_URL:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            timeout = settings.LIVE_REDIS_TIMEOUT
            _client = redis.Redis.from_url(
                settings.LIVE_REDIS_URL,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 0),
                retry_on_timeout=False,
                health_check_interval=30,
            )
            _script = _client.register_script(PUBLISH_SCRIPT)
            _client_url = settings.LIVE_REDIS_URL
        return _script


def reset() -> None:
    """Forget the client and the pause (tests, and settings changed under a process)."""
    global _client, _script, _paused_until
    with _lock:
        if _client is not None:
            _client.close()
        _client = _script = None
        _paused_until = 0.0
        _nchan_paused_until.clear()
