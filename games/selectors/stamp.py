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

One query of plain SQL, every part on an index: the room's latest match row
and aggregates (the last id, a count, the latest moment) of the other
tables; the room and its seats come from the caller. Plain SQL, built once
per shape, because the state is asked for far more often than it changes:
the ORM took ten times longer to build this query than the database to
answer it.
"""

from collections.abc import Iterable
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


@cache
def _sql(seated: bool, users: int) -> str:
    """The stamp's query for a spectator or a seated viewer, with `users` accounts seated.

    Parameters, in order: the room's id (match, turns, analyses), the analysis
    version; then, when seated, the room's id (messages, mutes) and the user ids
    twice (mutes between accounts, vacations)."""
    match, game, turn = _table(Match), _table(Game), _table(Turn)
    weights = " ".join(f"WHEN '{status}' THEN {w}" for status, w in STATUS_WEIGHT.items())
    columns = ", ".join(f"m.{name}" for name in MATCH_COLUMNS)
    parts = [
        f"""SELECT {columns}, t.last_turn, t.turns, a.analyses, a.analysed, a.started"""
        + (", s.last_message, s.last_mute, v.*" if seated else "")
        + f"""
        FROM (SELECT 1 AS one) one
        LEFT JOIN (
            SELECT {", ".join(MATCH_COLUMNS)} FROM {match}
            WHERE room_id = %s ORDER BY number DESC LIMIT 1
        ) m ON 1 = 1
        CROSS JOIN (
            SELECT MAX(tu.id) AS last_turn, COUNT(tu.id) AS turns FROM {turn} tu
            JOIN {game} g ON g.id = tu.game_id JOIN {match} mm ON mm.id = g.match_id
            WHERE mm.room_id = %s
        ) t
        CROSS JOIN (
            SELECT SUM(CASE an.status {weights} ELSE 0 END) AS analyses,
                MAX(an.finished_at) AS analysed, MAX(an.started_at) AS started
            FROM {_table(GameAnalysis)} an
            JOIN {game} g ON g.id = an.game_id JOIN {match} mm ON mm.id = g.match_id
            WHERE mm.room_id = %s AND an.version = %s
        ) a"""
    ]
    if seated:
        ids = ", ".join(["%s"] * users) if users else "NULL"
        parts.append(
            f"""
        CROSS JOIN (
            SELECT
                (SELECT MAX(id) FROM {_table(Message)} WHERE room_id = %s) AS last_message,
                (SELECT MAX(mu.id) FROM {_table(Mute)} mu
                    WHERE mu.seat_id IN (SELECT id FROM {_table(Seat)} WHERE room_id = %s)
                    OR mu.user_id IN ({ids})) AS last_mute
        ) s
        CROSS JOIN (
            SELECT COUNT(id) AS vacations, MAX(id) AS last_vacation,
                MAX(ended_at) AS ended, MAX(ends_at) AS ends, MIN(starts_at) AS starts
            FROM {_table(Vacation)} WHERE user_id IN ({ids})
        ) v"""
        )
    return "".join(parts)


def state_stamp(room: Room, seats: Iterable[Seat], *, seated: bool) -> tuple[object, ...]:
    """Everything besides the clock that room_state reads for `room`, as plain values:
    for one of its players (`seated`), or for a spectator (fewer tables).

    `room` and its `seats` as loaded before this query: the state computed for
    this stamp must be read after it (games.web.state_cache does)."""
    rows = sorted((s.number, s.pk, s.nickname, s.user_id) for s in seats)
    users = sorted({user for *_rest, user in rows if user is not None})
    params: list[int | str] = [room.pk, room.pk, room.pk, evaluator.current_version()]
    if seated:
        params += [room.pk, room.pk, *users, *users]
    with connection.cursor() as cursor:
        cursor.execute(_sql(seated, len(users)), params)
        row = cursor.fetchone()
    # The slug and the moment of creation too: a row id used again (a database
    # restored from a backup behind a cache that was not) never finds an old entry.
    head = (room.pk, room.slug, room.created_at, room.status, room.last_move_at)
    return (head, (room.bot, room.rated, repr(room.rules)), tuple(rows), row)
