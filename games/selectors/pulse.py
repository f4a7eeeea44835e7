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
looks like news from the past.
"""

from collections.abc import Iterable
from typing import NamedTuple

from django.db.models import OuterRef, Subquery

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


PULSE_COLUMNS = (
    "room__slug",
    "number",
    "version",
    "rematch_offered_by_id",
    "latest_message",
    "room__state_serial",
)


def room_pulse(*, room_id: int | None = None, slug: str | None = None) -> tuple[str, Pulse] | None:
    """(slug, pulse) of the room by id or slug; None when there is no such room.

    One query; two for a room that has no match yet (its pulse is all zeros)."""
    assert room_id is not None or slug is not None, "one room, by id or slug"
    latest_message = Message.objects.filter(room_id=OuterRef("room_id")).order_by("-pk")
    matches = Match.objects.all()
    if room_id is not None:
        matches = matches.filter(room_id=room_id)
    if slug is not None:
        matches = matches.filter(room__slug=slug)
    row = (
        matches.order_by("-number")
        .annotate(latest_message=Subquery(latest_message.values("pk")[:1]))
        .values_list(*PULSE_COLUMNS)
        .first()
    )
    if row is None:
        # A room still waiting for its second player: version 0, until the join.
        rooms = Room.objects.filter(pk=room_id) if room_id is not None else Room.objects.all()
        if slug is not None:
            rooms = rooms.filter(slug=slug)
        waiting = rooms.values_list("slug", "state_serial").first()
        return (waiting[0], Pulse(0, 0, None, None, waiting[1])) if waiting else None
    room_slug, number, version, rematch, message, serial = row
    return room_slug, Pulse(number, version, rematch, message, serial)


def room_pulses(slugs: Iterable[str]) -> dict[str, Pulse]:
    """{slug: pulse} of the rooms among `slugs` that exist, in one query (two when
    some have no match yet): the waits that end together check in one read."""
    wanted = set(slugs)
    if not wanted:
        return {}
    latest_message = Message.objects.filter(room_id=OuterRef("room_id")).order_by("-pk")
    latest_number = Match.objects.filter(room_id=OuterRef("room_id")).order_by("-number")
    rows = (
        Match.objects.filter(
            room__slug__in=wanted, number=Subquery(latest_number.values("number")[:1])
        )
        .annotate(latest_message=Subquery(latest_message.values("pk")[:1]))
        .values_list(*PULSE_COLUMNS)
    )
    found = {
        slug: Pulse(number, version, rematch, message, serial)
        for slug, number, version, rematch, message, serial in rows
    }
    if len(found) < len(wanted):
        waiting = Room.objects.filter(slug__in=wanted - set(found))
        found.update(
            (slug, Pulse(0, 0, None, None, serial))
            for slug, serial in waiting.values_list("slug", "state_serial")
        )
    return found
