"""Long polling: hold a state request until the room moves.

When both players have the board open, the one who waits should see the
other's move at once, not on the next slow poll. The board asks for the state
with ``?wait=<version it has>``; the endpoint answers at once when the room's
version is already different, and otherwise looks again every half second
(one indexed query on the match row) for up to 25 seconds before answering
with the unchanged state, sooner when this process published the room's
pulse without Redis (games.services.live). This is the WSGI side: a threaded
runserver (make run) or gunicorn's gthread workers hold these requests in
threads. In production uvicorn holds them as coroutines woken by Redis
(games.web.live) and gunicorn only when uvicorn is away (nginx's backup).

Each process holds at most ``LONG_POLL_WAITERS`` requests at once; past that
the request is answered at once and the board falls back to plain polling, so
a crowd of open tabs never takes every worker thread.

``sleep`` and ``monotonic`` are module attributes so a test can run the
wait without waiting.
"""

import threading
import time

from django.conf import settings
from django.db import connection

from games.selectors.pulse import Pulse, room_pulse
from games.services import live

WAIT_SECONDS = 25.0
CHECK_EVERY = 0.5

_news = threading.Condition()


def _nap(seconds: float) -> None:
    """Sleep `seconds`, or less when this process publishes a pulse meanwhile."""
    with _news:
        _news.wait(seconds)


def _heard(slug: str, pulse: Pulse) -> None:
    with _news:
        _news.notify_all()


# Without Redis (make run) this process's own moves wake its waiters at once;
# the other processes' (the worker's bot turns) are seen at the next look.
live.listen_here(_heard)

sleep = _nap
monotonic = time.monotonic

_slots = threading.BoundedSemaphore(getattr(settings, "LONG_POLL_WAITERS", 16))


def pulse(slug: str) -> Pulse | None:
    """What changes when anyone acts in the room (games.selectors.pulse); None when
    there is no such room. One query."""
    found = room_pulse(slug=slug)
    return found[1] if found else None


def _release_pooled_connection() -> None:
    """With the connection pool (DB_POOL_MAX), hand the connection back while asleep:
    a waiter holding one for 25 s would leave none for the requests that act."""
    if connection.settings_dict.get("OPTIONS", {}).get("pool") and not connection.in_atomic_block:
        connection.close()


def wait_for_change(slug: str, version: int, *, serial: int | None = None) -> bool:
    """Return when room `slug` moved past `version` (True) or the wait ran out (False).

    Answers at once, without holding a slot, when the version already differs,
    when the board's state was read at another `serial` than the room's now (a
    word, a written answer: what moves no version; the serial of the board's
    ETag, as games.web.live reads it) or there is no such room (the state's
    read answers its 404); also at once (False) when every slot is taken.
    """
    start = pulse(slug)
    if start is None or start.version != version:
        return True
    if serial is not None and start.serial != serial:
        return True  # the board is behind already: no reason to hold it
    if not _slots.acquire(blocking=False):
        return False
    try:
        deadline = monotonic() + WAIT_SECONDS
        while monotonic() < deadline:
            _release_pooled_connection()
            sleep(CHECK_EVERY)
            if pulse(slug) != start:
                return True
        return False
    finally:
        _slots.release()
