"""A room's pulse: what moves when anyone acts in it, read in one query.

The pulse is the current match's number and version, the rematch offer
(offered with a version of its own, but kept apart so nothing relies on it)
and the latest message (a word on its own moves no version). The board's
long poll waits for it to move (games.web.longpoll, games.web.live); the
publisher (games.services.live) sends it on Redis after every commit.

Pulses of one room are ordered by (version, latest message): versions keep
growing across a room's matches, message ids only grow. `not_older` is that
order, so a late or repeated message never looks like news from the past.
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

    def order(self) -> tuple[int, int]:
        return (self.version, self.message or 0)

    def not_older(self, other: "Pulse") -> bool:
        return self.order() >= other.order()

    def encode(self) -> str:
        """ "version:message:number:rematch", the order first (the Redis script compares it)."""
        return f"{self.version}:{self.message or 0}:{self.number}:{self.rematch or 0}"

    @classmethod
    def decode(cls, text: str | bytes) -> "Pulse | None":
        if isinstance(text, bytes):
            text = text.decode("ascii", "replace")
        try:
            version, message, number, rematch = (int(part) for part in text.split(":"))
        except ValueError:
            return None
        return cls(number, version, rematch or None, message or None)


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
        .values_list("room__slug", "number", "version", "rematch_offered_by_id", "latest_message")
        .first()
    )
    if row is None:
        # A room still waiting for its second player: version 0, until the join.
        rooms = Room.objects.filter(pk=room_id) if room_id is not None else Room.objects.all()
        if slug is not None:
            rooms = rooms.filter(slug=slug)
        found = rooms.values_list("slug", flat=True).first()
        return (found, Pulse(0, 0, None, None)) if found is not None else None
    room_slug, number, version, rematch, message = row
    return room_slug, Pulse(number, version, rematch, message)


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
        .values_list("room__slug", "number", "version", "rematch_offered_by_id", "latest_message")
    )
    found = {
        slug: Pulse(number, version, rematch, message)
        for slug, number, version, rematch, message in rows
    }
    if len(found) < len(wanted):
        waiting = Room.objects.filter(slug__in=wanted - set(found)).values_list("slug", flat=True)
        found.update((slug, Pulse(0, 0, None, None)) for slug in waiting)
    return found
