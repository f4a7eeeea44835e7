"""A room's wake-up: its new state read once per (role, language), fanned out.

When a room moves, all its waiting boards wake together. Each used to go on
to Django, which ran, one board after another on the ASGI process's one
thread for synchronous code, the session, the seat, the state's query (and
the state itself, once per key: games.web.state_cache). Here a woken board
whose pass (games.web.live_pass) Django signed for this very request joins
its room's flight for its role and language: the first of them starts it,
one call into the sync thread (the room's head, the state from the cache or
computed, and the seat's seat_seen, so no "your turn" email goes out to a
seat whose board is open), and every board of that role and language is
answered from its result.

A flight is joined only by boards that heard of the change before it began
(hub.tick): its state was read after what woke them, so it is at least as
new as that. A board that heard later (a finished analysis publishes the
same pulse again) starts a flight of its own.
"""

import asyncio
import weakref

from asgiref.sync import sync_to_async

from games.lib import clock
from games.services import seat_seen
from games.web import state_cache
from games.web.live.database import _outside_a_request
from games.web.live.hub import tick
from games.web.live_pass import Pass, seat_fingerprint

LINGER = 5.0  # seconds a landed flight still answers the boards that heard before it began

FlightKey = tuple[str, str, str, str]  # room slug, role, seat fingerprint, language


def state_for(given: Pass) -> state_cache.Answer | None:
    """The state for the pass's role and language, as of now (sync; one flight's work).
    None when the room's seat of that role is no longer the one the pass names
    (Django answers that board). NotFound when the room is gone."""
    try:
        answer, seat = state_cache.role_state(given.slug, given.role, given.language)
    except LookupError:
        return None
    if seat_fingerprint(seat) != given.seat:
        return None
    if seat is not None:
        seat_seen(seat=seat)  # once per flight: every board of this role is this seat's
    return answer


class Flights:
    """This event loop's flights, by (room, role, seat, language)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.flights: dict[FlightKey, tuple[int, asyncio.Future[state_cache.Answer | None]]] = {}

    async def answer(self, given: Pass, woke: int) -> state_cache.Answer | None:
        """The state for a board with pass `given` that heard of the change at tick `woke`."""
        key = (given.slug, given.role, given.seat, given.language)
        found = self.flights.get(key)
        if found is None or found[0] < woke or _expired(found[1]):
            future = self.loop.create_task(self._read(given))
            found = self.flights[key] = (tick(), future)
            future.add_done_callback(lambda done: self._landed(key, done))
        return await asyncio.shield(found[1])

    async def _read(self, given: Pass) -> state_cache.Answer | None:
        return await sync_to_async(_outside_a_request)(lambda: state_for(given))

    def _landed(self, key: FlightKey, done: asyncio.Future[state_cache.Answer | None]) -> None:
        if not done.cancelled():
            done.exception()  # its boards were told (or left): nothing to log twice
        # Kept a moment for the boards that heard with the first and were not yet
        # scheduled when it landed.
        self.loop.call_later(LINGER, self._forget, key, done)

    def _forget(self, key: FlightKey, done: asyncio.Future[state_cache.Answer | None]) -> None:
        found = self.flights.get(key)
        if found is not None and found[1] is done:
            del self.flights[key]


def _expired(flight: asyncio.Future[state_cache.Answer | None]) -> bool:
    """A landed flight whose state the clock has changed since (or that failed)."""
    if not flight.done():
        return False
    if flight.cancelled() or flight.exception() is not None:
        return True
    answer = flight.result()
    if answer is None or answer.until is None:
        return False
    return clock.now().timestamp() >= answer.until


_flights: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Flights]" = (
    weakref.WeakKeyDictionary()
)


def flights() -> Flights:
    """This event loop's flights."""
    loop = asyncio.get_running_loop()
    found = _flights.get(loop)
    if found is None:
        found = _flights[loop] = Flights(loop)
    return found
