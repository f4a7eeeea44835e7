"""The room state from cache: computed once per (room, what it reads, viewer, language).

Thousands of open boards ask for the same room's state after every move. The
answer depends on the rows the state reads, on who asks (a spectator, or the
seat 1 or 2 of this room, whose state holds their messages, their written
answers and plays, their clock) and on the language of its sentences. The
key names all of them: the room, the viewer's role, the language and a digest
of games.selectors.stamp.state_stamp (the match's version and everything
that changes without it, one query). Each role has its own entry, so what is
private to a seat is only ever served to that seat.

What the clock alone changes is kept out by time: an entry carries the
state's `until` (games.selectors.board.state_until) and is computed
again from that moment. Entries also expire after MESA_STATE_CACHE_SECONDS.

The cache is the "state" alias of settings.CACHES: Redis where CACHE_URL is
Redis (shared by every process and node), otherwise an in-process memory
cache, which is just as correct (the key comes from the database) and only
hits less. A cache that fails, on reading or on writing, is passed by: the
state is computed and answered, and a warning is logged (once a minute).

Concurrent misses on one key in one process wait for the first to compute it
(a room's waiting boards all wake at the same move). A plain state GET
reads the room with its seats in one query and the stamp in a second
(cached_state): on a hit that is all, against the six to nine of computing it.
The answer is always computed from rows read after its stamp, so it is
never older than the key it is stored under.
"""

import hashlib
import json
import logging
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest
from django.utils.translation import get_language

from games import selectors
from games.lib import clock
from games.lib.outage import Outage
from games.models import ROOM_SLUG_PATTERN, Room, Seat
from games.selectors.board import RoomState
from games.selectors.stamp import state_stamp
from games.web.seats import load_room, viewer_seat

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


def etag_of(state: RoomState, body: bytes) -> str:
    # The version says when the game moved; the digest covers what else this
    # viewer sees (their seat, the language, a join, a rematch offer).
    digest = hashlib.sha256(body).hexdigest()[:16]
    return f'"v{state.get("version", 0)}-{digest}"'


def compute(room: Room, seat: Seat | None) -> Answer:
    state = selectors.room_state(room, seat)
    until = selectors.board.state_until(room, state) if enabled() else None
    body = json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode()
    return Answer(body, etag_of(state, body), state["version"], _timestamp(until))


def _timestamp(moment: datetime | None) -> float | None:
    return moment.timestamp() if moment is not None else None


def role_of(room: Room, seat: Seat | None) -> str:
    """ "1" or "2" for a seat of this room, "-" for everybody else."""
    return str(seat.number) if seat is not None and seat.room_id == room.pk else "-"


def key_for(room: Room, seats: Iterable[Seat], seat: Seat | None) -> str:
    role = role_of(room, seat)
    stamp = repr(state_stamp(room, seats, seated=role != "-")).encode()
    digest = hashlib.sha256(stamp).hexdigest()[:32]
    return f"room-state:{room.pk}:{role}:{get_language()}:{digest}"


def enabled() -> bool:
    return bool(getattr(settings, "MESA_STATE_CACHE", True))


def state_answer(room: Room, seat: Seat | None) -> Answer:
    """The viewer's state of `room`: from the cache when it is there and fresh, else computed
    (and stored). `room` comes from load_room (its seats loaded), `seat` from viewer_seat."""
    if not enabled():
        return compute(room, seat)
    key = key_for(room, room.seats.all(), seat)
    return _get(key) or _compute_and_store(key, room.slug, seat)


def cached_state(request: HttpRequest, slug: str) -> tuple[Answer, Seat | None] | None:
    """The plain state GET's way: the room and its seats in one query, the stamp in
    another, and the answer from the cache (computed and stored on a miss).
    None when the cache is off or there is no such room (the caller answers as usual)."""
    if not enabled() or not isinstance(slug, str) or not re.fullmatch(ROOM_SLUG_PATTERN, slug):
        return None
    seats = list(Seat.objects.select_related("room").filter(room__slug=slug).order_by("number"))
    if not seats:
        return None
    room = seats[0].room
    for each in seats:
        each.room = room
    seat = viewer_seat(request, room, seats)
    key = key_for(room, seats, seat)
    return _get(key) or _compute_and_store(key, slug, seat), seat


def _compute_and_store(key: str, slug: str, seat: Seat | None) -> Answer:
    with _single_flight(key):
        found = _get(key)  # computed by the request this one waited for
        if found is not None:
            return found
        # Read again after the stamp: the answer is never older than its key.
        room = load_room(slug)
        viewer = next((s for s in room.seats.all() if seat is not None and s.pk == seat.pk), None)
        answer = compute(room, viewer)
        _set(key, answer)
        return answer


def _fresh(value: object) -> Answer | None:
    if not isinstance(value, Answer):
        return None
    if value.until is not None and clock.now().timestamp() >= value.until:
        return None
    return value


def _get(key: str) -> Answer | None:
    try:
        found = caches[ALIAS].get(key)
    except Exception as error:  # any backend's failure: compute instead
        _outage.failed(error)
        return None
    return _fresh(found)


def _set(key: str, answer: Answer) -> None:
    try:
        caches[ALIAS].set(key, answer, timeout=settings.MESA_STATE_CACHE_SECONDS)
    except Exception as error:  # answered anyway; the next request computes again
        _outage.failed(error)


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
