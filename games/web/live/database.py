"""What the held waits ask the database, from a coroutine: one room's pulse, and
the pulses of the rooms whose waits end together, read in one query.

Nearly every wait runs out with the room where it was (2,000 open boards end
80 of them a second), and the database confirms each before its 304: the
waits ending within GATHER seconds of one another share one query.
"""

import asyncio
from collections.abc import Callable
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from games.selectors.pulse import Pulse, room_pulse, room_pulses

T = TypeVar("T")

GATHER = 0.05  # seconds the waits ending together gather for their one query


def _outside_a_request(read: Callable[[], T]) -> T:
    """`read` in the sync thread no request owns: its connection is handed back after
    (to the pool, or closed past CONN_MAX_AGE), since no request_finished will.
    Kept, a pooled connection stayed taken for good and the requests waited for one."""
    try:
        return read()
    finally:
        close_old_connections()


async def database_pulse(slug: str) -> Pulse | None:
    """The room's pulse as the database has it now; None: no such room. One query."""
    found = await sync_to_async(_outside_a_request)(lambda: room_pulse(slug=slug))
    return found[1] if found else None


class Gathered:
    """The pulses asked for within GATHER of one another, read in one query (one per loop)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.asked: dict[str, asyncio.Future[Pulse | None]] = {}
        self.reader: asyncio.Task[None] | None = None

    async def pulse(self, slug: str) -> Pulse | None:
        """The room's pulse as the database has it (None: no such room), read with
        those of the other rooms asked for within GATHER."""
        future = self.asked.get(slug)
        if future is None:
            future = self.asked[slug] = self.loop.create_future()
            if self.reader is None:
                self.reader = self.loop.create_task(self._read())
        return await asyncio.shield(future)

    async def _read(self) -> None:
        await asyncio.sleep(GATHER)
        batch, self.asked, self.reader = self.asked, {}, None
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
