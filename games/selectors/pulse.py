"""A room's pulse: what moves when anyone acts in it, read in one query.

The pulse is the current match's number and version, the rematch offer
(offered with a version of its own, but kept apart so nothing relies on it),
the latest message (a word on its own moves no version) and the room's
state serial (games.services.live.room_moved counts every change of what a
board shows: a written answer, a mute, a vacation move no version either). The board's
long poll waits for it to move (games.web.longpoll, games.web.live); the
publisher (games.services.live) sends it on Redis after every commit.

Pulses of one room are ordered by (version, latest message, serial):
versions keep growing across a room's matches, message ids and the serial
only grow. `not_older` is that order, so a late or repeated message never
looks like news from the past. How the pulse relates to the version, the
serial, the state cache's stamp and the ETag: games.selectors.stamp.
"""

from collections.abc import Iterable, Sequence
from functools import cache
from typing import NamedTuple

from django.db import connection, models

from games.models import Match, Message, Room


class Pulse(NamedTuple):
    number: int
    version: int
    rematch: int | None
    message: int | None
    serial: int = 0

    def order(self) -> tuple[int, int, int]:
        return (self.version, self.message or 0, self.serial)

    def not_older(self, other: "Pulse") -> bool:
        return self.order() >= other.order()

    def encode(self) -> str:
        """ "version:message:number:rematch:serial", the order first (the Redis script
        compares it)."""
        return f"{self.version}:{self.message or 0}:{self.number}:{self.rematch or 0}:{self.serial}"

    @classmethod
    def decode(cls, text: str | bytes) -> "Pulse | None":
        if isinstance(text, bytes):
            text = text.decode("ascii", "replace")
        try:
            parts = [int(part) for part in text.split(":")]
        except ValueError:
            return None
        if len(parts) == 4:
            parts.append(0)  # published by the release before the serial
        if len(parts) != 5:
            return None
        version, message, number, rematch, serial = parts
        return cls(number, version, rematch or None, message or None, serial)


# Slugs per query of room_pulses: old SQLite builds take at most 999 parameters.
BATCH = 500


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _sql(vendor: str, where: str) -> str:
    """The pulse of the rooms matching `where` (a condition on the room, "r"): the
    room's latest match (none yet: all zeros) and its latest message, in one
    statement written once per process. Raw SQL: the ORM spent more building
    this query than the database answering it, and every move and every wait
    asks for a pulse."""
    del vendor  # the cache's key: quoting differs between databases
    room, match, message = _table(Room), _table(Match), _table(Message)
    return f"""
    SELECT r.slug, m.number, m.version, m.rematch_offered_by_id,
           CASE WHEN m.id IS NULL THEN NULL
                ELSE (SELECT MAX(w.id) FROM {message} w WHERE w.room_id = r.id) END,
           r.state_serial
    FROM {room} r
    LEFT JOIN {match} m ON m.room_id = r.id
         AND m.number = (SELECT MAX(l.number) FROM {match} l WHERE l.room_id = r.id)
    WHERE {where}"""


def _pulses(where: str, params: Sequence[int | str]) -> list[tuple[str, Pulse]]:
    with connection.cursor() as cursor:
        cursor.execute(_sql(connection.vendor, where), params)
        rows = cursor.fetchall()
    # A room still waiting for its second player: version 0, until the join.
    return [
        (slug, Pulse(number or 0, version or 0, rematch, message, serial))
        for slug, number, version, rematch, message, serial in rows
    ]


def room_pulse(*, room_id: int | None = None, slug: str | None = None) -> tuple[str, Pulse] | None:
    """(slug, pulse) of the room by id or slug; None when there is no such room. One query."""
    if room_id is not None:
        found = _pulses("r.id = %s", [room_id])
    elif slug is not None:
        found = _pulses("r.slug = %s", [slug])
    else:
        raise ValueError("one room, by id or slug")
    if found and slug is not None and found[0][0] != slug:
        return None  # both given, and they name two rooms
    return found[0] if found else None


def room_pulses(slugs: Iterable[str]) -> dict[str, Pulse]:
    """{slug: pulse} of the rooms among `slugs` that exist, in one query: the waits
    that end together check in one read."""
    wanted = sorted(set(slugs))
    if not wanted:
        return {}
    found: dict[str, Pulse] = {}
    for start in range(0, len(wanted), BATCH):
        part = wanted[start : start + BATCH]
        where = f"r.slug IN ({', '.join(['%s'] * len(part))})"
        found.update(_pulses(where, part))
    return found
