"""The correspondence clock: every time limit of a game by mail, in one place.

A turn passes to a player (Match.turn_started_at). From ABSENCE_AFTER later,
the absence deadline, the waiting player may close the game by absence; the
sweep closes it by itself unless the waiting player chose to keep waiting
this turn (Match.absence_waived_for == turn_started_at), and 24 hours before
the deadline the player on turn is reminded. None of this applies in a room
against the computer, whose games may sleep until the room expires
(ROOM_IDLE_AFTER without a move).

While the player on turn is on vacation (accounts.Vacation) their clock
stands still: the time of each pause does not count towards the two days,
nor towards the room's seven idle days, which both resume when the vacation
ends (`run_clock`).

The services store each turn's deadline on the match (Match.absence_due_at,
from TurnClock.due_at), so the sweeps read one indexed column; everything
else asks a TurnClock. Pure: no queries, no Django.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.models import Match

# A time the clock stands still: (start, end), the end excluded.
Pause = tuple[datetime, datetime]

# The player on turn who owes an action this long may lose the game by absence:
# the seeds' two days, the default everywhere. A room, a challenge or a
# tournament may choose another number of days per move (Room.days_per_move).
ABSENCE_AFTER = timedelta(hours=48)
DAYS_PER_MOVE = 2
DAYS_PER_MOVE_CHOICES = (1, 2, 3, 5)
# The reminder email goes this long before the deadline...
REMINDER_BEFORE = timedelta(hours=24)
# ...that is, this long after the turn passed.
REMINDER_AFTER = ABSENCE_AFTER - REMINDER_BEFORE
# The board tells the waiting player when they may close once the turn is this old
# (before that, naming a deadline two days away is noise).
SHOW_DEADLINE_AFTER = timedelta(hours=6)
# A room with no move for this long expires with no winner.
ROOM_IDLE_AFTER = timedelta(days=7)
# An open challenge or an invitation nobody accepted expires this long after it was posted.
CHALLENGE_OPEN_FOR = timedelta(days=7)
# No "your turn" email to someone who was on the board this recently.
TURN_EMAIL_QUIET = timedelta(minutes=2)
# "Es tu turno" leaves this long after the turn passed, so that several games
# turning to the same person at about the same time make one message.
TURN_EMAIL_PAUSE = timedelta(seconds=60)


@dataclass(frozen=True)
class TurnClock:
    """The absence clock of one match's current turn.

    turn_started_at: when the turn passed (None when nobody owes an action,
    the match being over included); waived: the waiting player chose to keep
    waiting this turn; against_bot: the room is against the computer.
    """

    turn_started_at: datetime | None
    waived: bool = False
    against_bot: bool = False
    # The vacations of the player on turn (accounts.Vacation), any order.
    pauses: tuple[Pause, ...] = ()
    # The room's days per move, and the most a vacation may stop one turn.
    absence_after: timedelta = ABSENCE_AFTER
    vacation_cap: timedelta | None = None

    @classmethod
    def of(cls, match: "Match", *, against_bot: bool, pauses: Iterable[Pause] = ()) -> "TurnClock":
        """The clock of a Match's current turn (reads its fields and its room's clock)."""
        started = match.turn_started_at
        waived = started is not None and match.absence_waived_for == started
        # getattr: the migration that first stored deadlines reads rooms without these.
        room = getattr(match, "room", None)
        return cls(
            started,
            waived=waived,
            against_bot=bool(against_bot),
            pauses=tuple(pauses),
            absence_after=absence_after(getattr(room, "days_per_move", None)),
            vacation_cap=vacation_cap(getattr(room, "vacation_cap_days", None)),
        )

    @property
    def due_at(self) -> datetime | None:
        """The absence deadline: from then the waiting player may close the game.

        None when no absence applies (nobody on turn, a room against the
        computer). Keeping waiting does not move it: the waiting player may
        still close by hand, and the player on turn is still reminded.
        This is what Match.absence_due_at stores.
        """
        if self.turn_started_at is None or self.against_bot:
            return None
        pauses = self.pauses
        if self.vacation_cap is not None:
            pauses = cap_pauses(self.turn_started_at, pauses, self.vacation_cap)
        return run_clock(self.turn_started_at, self.absence_after, pauses)

    def paused(self, now: datetime) -> bool:
        """The player on turn is on vacation now: their clock stands still."""
        return any(start <= now < end for start, end in self.pauses)

    @property
    def closes_at(self) -> datetime | None:
        """When the sweep closes the game by itself: the deadline, unless waived."""
        return None if self.waived else self.due_at

    def claimable(self, now: datetime) -> bool:
        """The waiting player may close the game by absence now."""
        return self.due_at is not None and now >= self.due_at

    def may_keep_waiting(self, now: datetime) -> bool:
        """The waiting player may choose to keep waiting: once a turn, and only
        from the deadline on, when the choice has something to stop (the
        sweep's closure). Before it the board offers nothing, and neither does
        the API: a choice made then would only move the match's version."""
        return self.claimable(now) and not self.waived

    def closes(self, now: datetime) -> bool:
        """The absence sweep closes the game now."""
        return self.closes_at is not None and now >= self.closes_at

    def reminder_due(self, now: datetime) -> bool:
        """The player on turn is in the last REMINDER_BEFORE before the deadline."""
        return self.due_at is not None and self.due_at - REMINDER_BEFORE <= now < self.due_at

    def show_deadline(self, now: datetime) -> bool:
        """The board says "you may close by absence at <due_at>" to the waiting player."""
        return (
            self.turn_started_at is not None
            and self.due_at is not None
            and not self.claimable(now)
            and now - self.turn_started_at > SHOW_DEADLINE_AFTER
        )

    def changes(self) -> list[datetime]:
        """Every moment at which what this clock says may change by time alone: its
        pauses' starts and ends, the deadline shown, the deadline itself (a cache of
        what the board shows keeps it no longer, games.selectors.board)."""
        moments = [moment for pause in self.pauses for moment in pause]
        if self.turn_started_at is not None:
            moments.append(self.turn_started_at + SHOW_DEADLINE_AFTER)
        if self.due_at is not None:
            moments.append(self.due_at)
        return moments

    def hours_left(self, now: datetime) -> int | None:
        """Whole hours until the game closes by itself, rounded down ("31 h" means
        at least 31); None when it never does."""
        if self.closes_at is None:
            return None
        return max(0, int((self.closes_at - now).total_seconds() // 3600))


def absence_after(days_per_move: int | None) -> timedelta:
    """The time a player has for a move with this many days per move (None: the default)."""
    if days_per_move is None or days_per_move == DAYS_PER_MOVE:
        return ABSENCE_AFTER
    return timedelta(days=days_per_move)


def vacation_cap(days: int | None) -> timedelta | None:
    """The most a vacation may stop one turn of a room (None: no cap)."""
    return timedelta(days=days) if days is not None else None


def cap_pauses(start: datetime, pauses: Iterable[Pause], cap: timedelta) -> tuple[Pause, ...]:
    """The pauses after `start`, cut so that together they stop the clock `cap` at most.

    A tournament's cap: a player's vacation stops their turn's clock as
    anywhere else, but no longer than this, so one player cannot hold a round.

    >>> from datetime import datetime as at
    >>> cap_pauses(at(2026, 1, 1), [(at(2026, 1, 2), at(2026, 1, 30))], timedelta(days=7))
    ((datetime.datetime(2026, 1, 2, 0, 0), datetime.datetime(2026, 1, 9, 0, 0)),)
    """
    left, kept = cap, []
    for pause_start, pause_end in sorted(pauses):
        pause_start = max(pause_start, start)
        if pause_end <= pause_start or left <= timedelta(0):
            continue
        pause_end = min(pause_end, pause_start + left)
        left -= pause_end - pause_start
        kept.append((pause_start, pause_end))
    return tuple(kept)


def run_clock(start: datetime, duration: timedelta, pauses: Iterable[Pause] = ()) -> datetime:
    """When a clock started at `start` has run for `duration`, standing still in each pause.

    >>> from datetime import datetime as at
    >>> run_clock(at(2026, 1, 1), timedelta(days=2))
    datetime.datetime(2026, 1, 3, 0, 0)
    >>> run_clock(at(2026, 1, 1), timedelta(days=2), [(at(2026, 1, 2), at(2026, 1, 7))])
    datetime.datetime(2026, 1, 8, 0, 0)
    """
    left, at = duration, start
    for pause_start, pause_end in sorted(pauses):
        if pause_end <= at:
            continue
        if pause_start > at:
            if pause_start - at >= left:
                break
            left -= pause_start - at
        at = pause_end
    return at + left


def room_expires_at(last_move_at: datetime, pauses: Iterable[Pause] = ()) -> datetime:
    """When a room with no move since `last_move_at` expires, its player's vacations aside."""
    return run_clock(last_move_at, ROOM_IDLE_AFTER, pauses)


def reminder_window(now: datetime) -> tuple[datetime, datetime]:
    """Deadlines after the first and at or before the second are reminded now."""
    return now, now + REMINDER_BEFORE


def idle_cutoff(now: datetime) -> datetime:
    """A room whose last move is at or before this has expired."""
    return now - ROOM_IDLE_AFTER


def room_expired(last_move_at: datetime, now: datetime, pauses: Iterable[Pause] = ()) -> bool:
    return room_expires_at(last_move_at, pauses) <= now


def on_the_board(last_seen_at: datetime | None, now: datetime) -> bool:
    """The person looked at the board within TURN_EMAIL_QUIET: no email now."""
    return last_seen_at is not None and now - last_seen_at < TURN_EMAIL_QUIET


def saw_it(last_seen_at: datetime | None, happened_at: datetime) -> bool:
    """The person was on the board when it happened (seen within TURN_EMAIL_QUIET
    before it), or came to the board since: they know, and no email tells
    them. Asked about the moment the email is due, not the moment a worker
    gets to it: a late email finds them gone and would tell them what they
    watched."""
    return on_the_board(last_seen_at, happened_at)


def quiet_ends(last_seen_at: datetime) -> datetime:
    """When a person seen on the board at `last_seen_at` may be mailed again."""
    return last_seen_at + TURN_EMAIL_QUIET
