"""What the room state is computed from, in one short query: the state cache's key.

Five marks say "the room changed"; two are counters, three are keys built from
them, one for each reader. Match.version counts the game's moves (every action
but a player's written notes, table.save): a client sends the version it saw
and a stale one is refused (409), so it must not move for a word or a mute.
Room.state_serial counts every change of what the room's boards show (a move,
a word, a mute, a vacation, an analysis queued), in the change's transaction
(games.services.live.room_moved); it cannot be the version, which would then
refuse moves over changes that are not the game's. The pulse
(games.selectors.pulse) is what a long poll waits on: the version, the latest
message and the serial, read in one query and published on Redis. Head.stamp
(below) is the state cache's key: the serial plus what changes the state
without anyone counting it (the seats' names and accounts, the database, the
analysis settings). The ETag (games.web.etags) is what one viewer was sent:
the version, the serial, a digest of the body and the clock's second, for a
304 and for the ASGI quiet wait without Django.

The room state (games.selectors.board.room_state) reads many rows: the
match, its turns, the written answers and plays, the analyses, the words
between the players and their mutes, their vacations, the seats. Every
service that changes one of them calls games.services.live.room_moved in
its transaction, which adds one to the room's `state_serial`; so two equal
serials mean the state reads the same rows, and a hit needs one indexed
read (the seats with their room) instead of reading every table the state
reads. What the clock alone changes (the absence deadline passing, a
vacation starting or ending) is board.room_state_and_until's.

The database's own identity is in the key as well (on PostgreSQL the oid of
the current database, which a database made afresh gets anew): restored from
a backup (scripts/mesa-restore makes a fresh database), the rooms count their
serials again from the backup's, and a shared cache still holds the answers
of the timeline the restore undid under those same serials.

The room's status and last move are in the key too, from the same row: a
move, a join or an expiry by a process of the release before (running while
this one is deployed, which counts no serial) still changes the key.

The seats come back as Seat instances (each column converted as the ORM
converts it), since the viewer is found among them; the seats' own columns the
state shows (nickname, account) are in the key too, so an account deleted (its
seats set to none by the database) is a new key without anyone counting it.
The query is read with a plain cursor, its columns named once per process:
this is the one query of every state GET's cache hit, and raw()'s mapping of
the cursor's columns to the model's, made anew for each query, cost more than
the rest of the hit's Python.

A hit reads only what it uses (HEAD_SEAT_FIELDS: the key's columns, what finds
the asker's seat and what the live pass and seat_seen read); the rest of each
seat is deferred, and whoever computes the state reads the seats whole, after
the stamp (games.web.state_cache). The database's identity is read once per
connection (a connection never changes database), not in every head's query;
the two seats are put in order here rather than by the server; the room's two
moments come as text, which the key compares and nothing parses. The server
then plans and runs the query in two thirds of the time, and the hit's own
CPU is an eighth less (docs/LOAD.md).
"""

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connection, models

from games.lib import evaluator
from games.models import Room, Seat
from games.selectors.board import seat_held


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@dataclass(frozen=True)
class Head:
    """A room's seats and what its state is computed from, as of one query."""

    room_id: int
    seats: list[Seat]  # by number; HEAD_SEAT_FIELDS, the rest deferred
    room: tuple[object, ...]  # ROOM_COLUMNS
    database: object = None  # which database, as DATABASE_IDENTITY reads it
    viewer: Seat | None = None  # among `seats`: the one the asker holds

    def stamp(self) -> tuple[object, ...]:
        """The state cache's key (this module's docstring: the five marks of a change).
        Two equal stamps: the state reads the same rows (and the same analysis
        settings). The room's id, slug and moment of creation: a row id used again
        never finds an old entry; and the database's identity: a database restored
        from a backup behind a cache that was not never finds an answer of the
        timeline it undid."""
        seats = tuple((s.number, s.pk, s.nickname, s.user_id) for s in self.seats)
        return (self.database, self.room_id, self.room, seats, evaluator.current_version())


# The room's own columns in the key, read with its seats; its moments as text.
ROOM_COLUMNS = ("slug", "created_at", "state_serial", "status", "last_move_at")
ROOM_MOMENTS = ("created_at", "last_move_at")


# What a hit reads of each seat: the key's (number, id, nickname, account), what
# finds the asker's seat (its secret's hash, its account), what the live pass
# names it by (games.web.live_pass.seat_fingerprint) and what seat_seen reads.
# (Attribute names.)
HEAD_SEAT_FIELDS = frozenset(
    ("id", "room_id", "number", "nickname", "user_id", "token_hash", "last_seen_at")
)

# The database's identity (SQLite: a file, and make run's alone).
DATABASE_IDENTITY = {
    "postgresql": "SELECT oid FROM pg_database WHERE datname = current_database()",
}

# Each connection's database identity, read on its first head.
_identities: "weakref.WeakKeyDictionary[Any, object]" = weakref.WeakKeyDictionary()


@cache
def _head_fields() -> tuple[models.Field[Any, Any], ...]:
    """HEAD_SEAT_FIELDS in the model's order, which Model.from_db reads values in."""
    return tuple(field for field in Seat._meta.concrete_fields if field.attname in HEAD_SEAT_FIELDS)


@cache
def _sql(vendor: str) -> str:
    room, seat = _table(Room), _table(Seat)
    quote = connection.ops.quote_name
    seats = ", ".join(f"s.{quote(field.column)}" for field in _head_fields())
    columns = ", ".join(
        f"CAST(r.{name} AS TEXT)" if name in ROOM_MOMENTS else f"r.{name}" for name in ROOM_COLUMNS
    )
    return f"""
    SELECT {seats}, {columns}
    FROM {seat} s JOIN {room} r ON r.id = s.room_id
    WHERE r.slug = %s"""


def database_identity(vendor: str) -> object:
    """The connected database's identity: read once for each connection."""
    query = DATABASE_IDENTITY.get(vendor)
    if query is None:
        return 0
    connection.ensure_connection()
    own = connection.connection
    found = _identities.get(own)
    if found is None:
        with connection.cursor() as cursor:
            cursor.execute(query)
            row = cursor.fetchone()
        found = _identities[own] = row[0] if row else 0
    return found


Converter = Callable[[Any, Any, Any], Any]


@cache
def _converters(vendor: str) -> tuple[tuple[int, tuple[Converter, ...], Any], ...]:
    """(index, converters, column) of each seat column the backend converts (SQLite's
    dates and booleans; none on PostgreSQL), as the ORM's compiler finds them."""
    found = []
    for index, field in enumerate(_head_fields()):
        column = field.get_col(Seat._meta.db_table)
        own = field.get_db_converters(connection)  # type: ignore[attr-defined] # in Django, not its stubs
        chain = (*connection.ops.get_db_converters(column), *own)
        if chain:
            found.append((index, tuple(chain), column))
    return tuple(found)


def _seat(row: Sequence[Any], width: int, vendor: str) -> Seat:
    values = list(row[:width])
    for index, chain, column in _converters(vendor):
        for convert in chain:
            values[index] = convert(values[index], column, connection)
    return Seat.from_db(connection.alias, HEAD_SEAT_FIELDS, values)


def room_head(slug: str, *, token: str | None = None, user_id: int | None = None) -> Head | None:
    """The room's seats and its stamp in one query, with the seat that the asker
    (`token`, `user_id`: as board.seat_held) holds among them; None when there is
    no such room (or it has no seat yet). The state computed for a stamp must be
    read after it (games.web.state_cache does)."""
    vendor = connection.vendor
    database = database_identity(vendor)
    with connection.cursor() as cursor:
        cursor.execute(_sql(vendor), [slug])
        rows = cursor.fetchall()
    if not rows:
        return None
    width = len(_head_fields())
    seats = sorted((_seat(row, width, vendor) for row in rows), key=lambda seat: seat.number)
    # The query's own columns, after the seat's.
    room = tuple(rows[0][width : width + len(ROOM_COLUMNS)])
    viewer = seat_held(seats, token=token, user_id=user_id)
    return Head(seats[0].room_id, seats, room, database, viewer)
