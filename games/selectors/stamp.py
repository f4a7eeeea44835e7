"""What the room state reads, in one query: the key of the state's cache.

The match's version moves with every action, but the room state
(games.selectors.board.room_state) also reads rows that change without it:
a player's written answer or plays (their Turn rows and the match's state),
a join (the seats, the room's status), the rematch offer, "keep waiting"
(absence_waived_for), an analysis queued, running or done, an account
claiming a guest seat, the deadline a vacation moves; and, for the two
players only (a spectator's state reads none of them), the words between
them, the mutes and their vacations. `state_stamp` reads all of them, so two
equal stamps mean the state reads the same rows. Nothing here reads the
clock: what the clock alone changes (the absence deadline passing, a
vacation starting or ending) is board.state_until's.

One query of plain SQL by the room's slug, every part on an index: the
room's seats with the room's own columns, its latest match row, and
aggregates (the last id, a count, the latest moment) of the other tables.
Plain SQL, built once, because the state is asked for far more often than
it changes: building the two ORM queries this replaced cost more than the
database took to answer them. The seats come back as Seat instances (Django
converts their columns), since the viewer is found among them; the rest
stays as the database gives it, as it only ever goes into the cache's key.
"""

from dataclasses import dataclass
from functools import cache

from django.db import connection, models

from accounts.models import Vacation
from games.lib import evaluator
from games.models import Game, GameAnalysis, Match, Message, Mute, Room, Seat, Turn

# The match's own columns the state reads besides its state and version; and
# absence_due_at, which a vacation moves.
MATCH_COLUMNS = (
    "id",
    "created_at",
    "number",
    "version",
    "status",
    "turn_seat_id",
    "turn_started_at",
    "winner_side",
    "rematch_offered_by_id",
    "absence_waived_for",
    "absence_due_at",
    "side0_seat_number",
)
# The room's columns the state reads (a join changes its status, a move last_move_at).
ROOM_COLUMNS = ("slug", "created_at", "status", "last_move_at", "bot", "rated", "rules")
SPECTATOR_COLUMNS = (
    *(f"m_{name}" for name in MATCH_COLUMNS),
    "last_turn",
    "turns",
    "analyses",
    "analysed",
    "started",
)
# Read for the two players only: a spectator's state shows none of them.
SEATED_COLUMNS = (
    "last_message",
    "last_mute",
    "vacations",
    "last_vacation",
    "vacation_ended",
    "vacation_ends",
    "vacation_starts",
)

# Each analysis status weighs differently in one sum, so a change of any
# game's status changes the sum (a room has far fewer than 1,000 games).
STATUS_WEIGHT = {
    GameAnalysis.Status.PENDING: 1,
    GameAnalysis.Status.RUNNING: 1_000,
    GameAnalysis.Status.DONE: 1_000_000,
    GameAnalysis.Status.FAILED: 1_000_000_000,
}


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@dataclass(frozen=True)
class Head:
    """A room's seats and what its state reads, as of one query."""

    room_id: int
    seats: list[Seat]  # by number, each with room_id
    room: tuple[object, ...]  # ROOM_COLUMNS
    spectator: tuple[object, ...]  # SPECTATOR_COLUMNS
    seated: tuple[object, ...]  # SEATED_COLUMNS

    def stamp(self, *, seated: bool) -> tuple[object, ...]:
        """Everything besides the clock that room_state reads: for one of the
        room's players (`seated`), or for a spectator (fewer tables). Two equal
        stamps mean the state reads the same rows."""
        seats = tuple((s.number, s.pk, s.nickname, s.user_id) for s in self.seats)
        # The room's id, slug and moment of creation: a row id used again (a
        # database restored from a backup behind a cache that was not) never
        # finds an old entry.
        parts = (self.room_id, self.room, seats, self.spectator)
        return (*parts, self.seated) if seated else parts


@cache
def _sql(vendor: str) -> tuple[str, int]:
    """The head's query for this database, and how many times it takes the slug.

    Its other parameter, the analysis version, comes right after the first slug."""
    del vendor  # the cache's key: quoting differs between databases
    room, seat, match, game, turn = (_table(m) for m in (Room, Seat, Match, Game, Turn))
    room_id = f"(SELECT id FROM {room} WHERE slug = %s)"
    users = f"(SELECT user_id FROM {seat} WHERE room_id = {room_id} AND user_id IS NOT NULL)"
    weights = " ".join(f"WHEN '{status}' THEN {w}" for status, w in STATUS_WEIGHT.items())
    # Named apart from the Seat's own attributes (its related "turns", say).
    stamp_columns = ", ".join(
        f"{name.replace('_', '.', 1) if name.startswith('m_') else name} AS stamp_{name}"
        for name in (*SPECTATOR_COLUMNS, *SEATED_COLUMNS)
    )
    room_columns = ", ".join(f"r.{name} AS room_{name}" for name in ROOM_COLUMNS)
    sql = f"""
    SELECT s.*, {room_columns}, st.*
    FROM {seat} s JOIN {room} r ON r.id = s.room_id
    CROSS JOIN (
        SELECT {stamp_columns}
        FROM (SELECT 1 AS one) one
        LEFT JOIN (
            SELECT {", ".join(MATCH_COLUMNS)} FROM {match}
            WHERE room_id = {room_id} ORDER BY number DESC LIMIT 1
        ) m ON 1 = 1
        CROSS JOIN (
            SELECT MAX(an.finished_at) AS analysed, MAX(an.started_at) AS started,
                SUM(CASE an.status {weights} ELSE 0 END) AS analyses
            FROM {_table(GameAnalysis)} an
            JOIN {game} g ON g.id = an.game_id JOIN {match} mm ON mm.id = g.match_id
            WHERE an.version = %s AND mm.room_id = {room_id}
        ) a
        CROSS JOIN (
            SELECT MAX(tu.id) AS last_turn, COUNT(tu.id) AS turns FROM {turn} tu
            JOIN {game} g ON g.id = tu.game_id JOIN {match} mm ON mm.id = g.match_id
            WHERE mm.room_id = {room_id}
        ) t
        CROSS JOIN (
            SELECT
                (SELECT MAX(id) FROM {_table(Message)} WHERE room_id = {room_id})
                    AS last_message,
                (SELECT MAX(mu.id) FROM {_table(Mute)} mu
                    WHERE mu.seat_id IN (SELECT id FROM {seat} WHERE room_id = {room_id})
                    OR mu.user_id IN {users}) AS last_mute
        ) w
        CROSS JOIN (
            SELECT COUNT(id) AS vacations, MAX(id) AS last_vacation,
                MAX(ended_at) AS vacation_ended, MAX(ends_at) AS vacation_ends,
                MIN(starts_at) AS vacation_starts
            FROM {_table(Vacation)} WHERE user_id IN {users}
        ) v
    ) st
    WHERE r.slug = %s
    ORDER BY s.number"""
    return sql, sql.count("%s") - 1


def room_head(slug: str) -> Head | None:
    """The room's seats and its stamps in one query; None when there is no such
    room (or it has no seat yet). The state computed for a stamp must be read
    after it (games.web.state_cache does)."""
    sql, slugs = _sql(connection.vendor)
    params: list[str] = [slug, evaluator.current_version(), *[slug] * (slugs - 1)]
    seats = list(Seat.objects.raw(sql, params))
    if not seats:
        return None
    first = seats[0]

    def values(names: tuple[str, ...], prefix: str = "") -> tuple[object, ...]:
        return tuple(getattr(first, prefix + name) for name in names)

    room = values(ROOM_COLUMNS, "room_")
    return Head(
        first.room_id,
        seats,
        room,
        values(SPECTATOR_COLUMNS, "stamp_"),
        values(SEATED_COLUMNS, "stamp_"),
    )
