"""The room state from cache: computed once per (room, what it reads, viewer, language).

Thousands of open boards ask for the same room's state after every move. The
answer depends on the rows the state reads, on who asks (a spectator, or the
seat 1 or 2 of this room, whose state holds their messages, their written
answers and plays, their clock) and on the language of its sentences. The
key names all of them: the room, the viewer's role, the language and a digest
of the room's stamp (games.selectors.stamp: the room's state serial, which
every change of what its boards show moves, read with the seats in one
query). Each role has its own entry, so what is private to a seat is only ever served to
that seat.

What the clock alone changes is kept out by time: an entry carries the
state's `until` (games.selectors.board.room_state_and_until) and is computed
again from that moment. Entries also expire after MESA_STATE_CACHE_SECONDS.

The cache is the "state" alias of settings.CACHES: Redis where CACHE_URL is
Redis (shared by every process and node), otherwise an in-process memory
cache, which is just as correct (the key comes from the database) and only
hits less. In front of Redis each process also keeps its last
MESA_STATE_LOCAL_ENTRIES answers in memory: a key names the rows its answer
was computed from, so an answer found here is the one Redis holds, without
the round trip and the unpickling (a third of a hit's time). A cache that
fails, on reading or on writing, is passed by: the state is computed and
answered, and a warning is logged (once a minute).

Concurrent misses on one key in one process wait for the first to compute it
(a room's waiting boards all wake at the same move). A state GET reads the
seats and the stamp in one query (viewer_state): on a hit that is all,
against the six to nine of computing it.
The answer is always computed from rows read after its stamp, so it is
never older than the key it is stored under. The answer to the asker's own
change (an action, a join: fresh_viewer_state) is computed from rows read
after its commit, and neither looked up nor kept: the change has just moved
the key.
"""

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime

import psycopg
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import get_language

from games import selectors
from games.lib import clock
from games.lib.errors import NotFound
from games.lib.outage import Outage
from games.models import Room, Seat
from games.selectors.board import seat_held
from games.selectors.prepared import TEXT_MARKER, prepared
from games.selectors.stamp import Head, room_head
from games.web.etags import etag_of
from games.web.live_pass import SPECTATOR
from games.web.seats import who_asks

log = logging.getLogger(__name__)

ALIAS = "state"
WARN_EVERY = 60.0  # seconds between two warnings of a failing cache


@dataclass(frozen=True)
class Answer:
    """One viewer's state as the endpoint sends it."""

    body: bytes
    etag: str
    version: int
    until: float | None  # POSIX time from which the clock has changed it; None: never


def compute(room: Room, seat: Seat | None, seats: Iterable[Seat] | None = None) -> Answer:
    """`seats`: the room's, read with or after its stamp (else read here)."""
    # The room's row is read before the rest of the state: its serial is not newer
    # than what the state shows.
    serial = room.state_serial
    with one_snapshot():
        state, until_moment = selectors.board.room_state_and_until(room, seat, seats=seats)
    known = enabled()  # the clock part is only looked at where answers are kept
    until = _timestamp(until_moment) if known else None
    body = json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode()
    etag = etag_of(state, body, until, serial=serial, clock_known=known)
    return Answer(body, etag, state["version"], until)


@contextmanager
def one_snapshot() -> Iterator[None]:
    """The state's reads (the match, its games and turns, the words, the vacations)
    from one snapshot of the database: a move committed between two of them would
    otherwise give a board the new position beside the old history, kept until
    the next move. On PostgreSQL, a REPEATABLE READ transaction, read only. Not
    on SQLite (make run), whose transactions would lock out the writers; nor
    inside a caller's transaction (the tests'), which is one view already."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    raw, before = None, None
    try:
        with transaction.atomic():
            # Nothing is sent yet: psycopg begins the transaction at the first query,
            # with these as "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", one
            # round trip where a BEGIN and a SET TRANSACTION took two (every miss and
            # every action's answer computes a state).
            raw = connection.connection
            before = (raw.isolation_level, raw.read_only)
            raw.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            raw.read_only = True
            yield
    finally:
        # Back as they were once the transaction is over, so that the connection's
        # next transactions (its pool's next request) are the ordinary ones. A
        # connection left in a transaction is broken: Django closes it, the pool drops it.
        idle = psycopg.pq.TransactionStatus.IDLE
        if raw is not None and before is not None and raw.info.transaction_status == idle:
            raw.isolation_level, raw.read_only = before


def _timestamp(moment: datetime | None) -> float | None:
    return moment.timestamp() if moment is not None else None


def role_of(room_id: int, seat: Seat | None) -> str:
    """ "1" or "2" for a seat of this room, "-" for everybody else."""
    return str(seat.number) if seat is not None and seat.room_id == room_id else "-"


def key_for(head: Head) -> str:
    role = role_of(head.room_id, head.viewer)
    stamp = repr(head.stamp()).encode()
    digest = hashlib.sha256(stamp).hexdigest()[:32]
    return f"room-state:{head.room_id}:{role}:{get_language()}:{digest}"


def enabled() -> bool:
    return bool(getattr(settings, "MESA_STATE_CACHE", True))


def viewer_state(request: HttpRequest, slug: str) -> tuple[Answer, Seat | None]:
    """The state of room `slug` for whoever asks, and the seat they hold (None: a
    spectator). Who asks is read off the request first; then the room, top down:
    the seats and the stamp in one query (the asker's seat found among them),
    then the answer from the cache, or computed (and kept, with the cache on).
    NotFound: no such room (every room has its first seat from the start)."""
    token, user_id = who_asks(request, slug)
    head = room_head(slug, token=token, user_id=user_id)
    if head is None:
        raise NotFound("not_found", f"no room {slug!r}")
    return _answer(head, slug), head.viewer


def fresh_viewer_state(request: HttpRequest, slug: str) -> tuple[Answer, Seat | None]:
    """As viewer_state, for the asker's own change just committed (an action, a
    join, a new room): computed from the room and its seats read now, with no
    head, no look-up and nothing kept. The change moved the room's serial, so a
    look-up would miss, and what it computes is this seat's view alone (its
    other tabs, woken by the change, compute theirs once a process). Three
    round trips fewer on every action: the head's query, the cache's get and set.
    NotFound: no such room."""
    token, user_id = who_asks(request, slug)
    room, seats = _room_and_seats(slug)
    viewer = seat_held(seats, token=token, user_id=user_id)
    return compute(room, viewer, seats), viewer


def role_state(slug: str, role: str, language: str) -> tuple[Answer, Seat | None]:
    """The state of room `slug` for a role ("1", "2", or "-": a spectator) in `language`,
    and the seat of that role, or None: for games.web.live's wake-up, whose boards
    were identified by Django beforehand (games.web.live_pass). As viewer_state
    from the room's head on: the same key, the same cache, one computation.
    NotFound: no such room; LookupError: no seat of that role."""
    with translation.override(language):
        head = room_head(slug)
        if head is None:
            raise NotFound("not_found", f"no room {slug!r}")
        seat = None
        if role != SPECTATOR:
            seat = next((s for s in head.seats if str(s.number) == role), None)
            if seat is None:
                raise LookupError(f"room {slug!r} has no seat {role}")
        return _answer(replace(head, viewer=seat), slug), seat


def _answer(head: Head, slug: str) -> Answer:
    if not enabled():
        return _compute_after(head, slug)
    key = key_for(head)
    return _get(key) or _compute_and_store(key, slug, head)


def _compute_and_store(key: str, slug: str, head: Head) -> Answer:
    """Compute the answer under `key` and keep it."""
    with _single_flight(key):
        found = _get(key)  # computed by the request this one waited for
        if found is not None:
            return found
        answer = _compute_after(head, slug)
        _set(key, answer)
        return answer


def _compute_after(head: Head, slug: str) -> Answer:
    """The answer from rows read after `head`, so never older than its key. The
    head read only part of each seat (games.selectors.stamp.HEAD_SEAT_FIELDS):
    the seats are read whole here, the asker's among them by its id."""
    room, seats = _room_and_seats(slug)
    viewer = head.viewer
    if viewer is not None:
        viewer = next((seat for seat in seats if seat.pk == viewer.pk), None)
    return compute(room, viewer, seats)


def _room_and_seats(slug: str) -> tuple[Room, list[Seat]]:
    """The room and its seats, whole (NotFound: no such room, or deleted since its head)."""
    rooms = prepared("state room", Room, lambda slug: Room.objects.filter(slug=slug), TEXT_MARKER)
    found = rooms.instances(slug)
    if not found:
        raise NotFound("not_found", f"no room {slug!r}")
    room = found[0]
    seats = prepared(
        "state seats", Seat, lambda room_id: Seat.objects.filter(room_id=room_id).order_by("number")
    ).instances(room.pk)
    return room, seats


def _fresh(value: object) -> Answer | None:
    if not isinstance(value, Answer):
        return None
    if value.until is not None and clock.now().timestamp() >= value.until:
        return None
    return value


def _get(key: str) -> Answer | None:
    found = _local.get(key)
    if found is not None:
        return _fresh(found)
    try:
        found = caches[ALIAS].get(key)
    except Exception as error:  # any backend's failure: compute instead
        _outage.failed(error)
        return None
    answer = _fresh(found)
    if answer is not None:
        _local.put(key, answer)
    return answer


def _set(key: str, answer: Answer) -> None:
    _local.put(key, answer)
    try:
        caches[ALIAS].set(key, answer, timeout=settings.MESA_STATE_CACHE_SECONDS)
    except Exception as error:  # answered anyway; the next request computes again
        _outage.failed(error)


class _Recent:
    """The process's last answers by key, in front of a shared cache (not of a local one)."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, Answer] = OrderedDict()
        self.lock = threading.Lock()

    def size(self) -> int:
        try:
            backend = caches[ALIAS]
        except Exception:  # no such cache (a test's CACHES): nothing kept in front of it
            return 0
        if isinstance(backend, LocMemCache):
            return 0  # the cache itself is this process's memory
        return int(getattr(settings, "MESA_STATE_LOCAL_ENTRIES", 1000))

    def get(self, key: str) -> Answer | None:
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
            return found

    def put(self, key: str, answer: Answer) -> None:
        size = self.size()
        with self.lock:
            if size <= 0:
                return
            self.entries[key] = answer
            self.entries.move_to_end(key)
            while len(self.entries) > size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_local = _Recent()


def clear() -> None:
    """Forget every stored answer: this process's and the shared cache's."""
    _local.clear()
    caches[ALIAS].clear()


# One log line a minute while the cache fails (games.lib.outage), not one a request.
_outage = Outage("The state cache", log, meanwhile="computing the state", log_every=WARN_EVERY)


# --- one computation per key in a process ---------------------------------------

_flights: dict[str, threading.Lock] = {}
_flights_lock = threading.Lock()


class _single_flight:
    """Hold the key's lock while computing, so concurrent misses compute once."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __enter__(self) -> None:
        with _flights_lock:
            self.lock = _flights.setdefault(self.key, threading.Lock())
        self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.lock.release()
        with _flights_lock:
            if not self.lock.locked():
                _flights.pop(self.key, None)
