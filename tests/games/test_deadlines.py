"""games.lib.deadlines: the correspondence clock, pure (no database)."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from games.lib import deadlines
from games.lib.deadlines import TurnClock

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
SECOND = timedelta(seconds=1)


def at(hours, seconds=0):
    return START + hours * HOUR + seconds * SECOND


class TestTheTimes:
    def test_the_correspondence_times(self):
        assert deadlines.ABSENCE_AFTER == 48 * HOUR
        assert deadlines.REMINDER_BEFORE == 24 * HOUR
        assert deadlines.REMINDER_AFTER == 24 * HOUR
        assert deadlines.SHOW_DEADLINE_AFTER == 6 * HOUR
        assert deadlines.ROOM_IDLE_AFTER == timedelta(days=7)
        assert deadlines.TURN_EMAIL_QUIET == timedelta(minutes=2)
        assert deadlines.TURN_EMAIL_PAUSE == timedelta(seconds=60)


class TestTheDeadline:
    def test_it_is_48_hours_after_the_turn_passed(self):
        assert TurnClock(START).due_at == at(48)

    def test_it_is_claimable_at_exactly_48_hours(self):
        turn = TurnClock(START)
        assert not turn.claimable(at(48, -1))
        assert turn.claimable(at(48))
        assert turn.claimable(at(100))

    def test_nobody_on_turn_has_no_deadline(self):
        turn = TurnClock(None)
        assert turn.due_at is None and turn.closes_at is None
        assert not turn.claimable(at(100)) and not turn.closes(at(100))
        assert not turn.reminder_due(at(30)) and not turn.show_deadline(at(30))
        assert turn.hours_left(at(1)) is None

    def test_a_room_against_the_computer_has_none(self):
        turn = TurnClock(START, against_bot=True)
        assert turn.due_at is None and turn.closes_at is None
        assert not turn.claimable(at(100)) and not turn.closes(at(100))
        assert not turn.reminder_due(at(30)) and not turn.show_deadline(at(30))
        assert turn.hours_left(at(1)) is None


class TestKeepingWaiting:
    def test_the_game_no_longer_closes_by_itself(self):
        turn = TurnClock(START, waived=True)
        assert turn.closes_at is None
        assert not turn.closes(at(100))
        assert turn.hours_left(at(1)) is None

    def test_the_waiting_player_may_still_close_it_and_the_reminder_still_goes(self):
        turn = TurnClock(START, waived=True)
        assert turn.due_at == at(48)
        assert turn.claimable(at(48))
        assert turn.reminder_due(at(24))

    def test_without_it_the_game_closes_at_the_deadline(self):
        turn = TurnClock(START)
        assert turn.closes_at == at(48)
        assert not turn.closes(at(48, -1)) and turn.closes(at(48))


class TestTheReminder:
    @pytest.mark.parametrize(
        ("now", "due"),
        [
            (at(24, -1), False),
            (at(24), True),
            (at(47, 3599), True),
            (at(48), False),
        ],
    )
    def test_it_is_due_in_the_last_24_hours_before_the_deadline(self, now, due):
        assert TurnClock(START).reminder_due(now) is due

    def test_the_sweeps_window_holds_the_same_deadlines(self):
        after, until = deadlines.reminder_window(at(30))
        assert (after, until) == (at(30), at(54))
        # A deadline d is reminded now when after < d <= until: d - 24 h <= now < d.
        for started in (at(6), at(6, 1), at(-18), at(-18, 1)):
            d = TurnClock(started).due_at
            assert (after < d <= until) is TurnClock(started).reminder_due(at(30))


class TestWhatTheBoardShows:
    @pytest.mark.parametrize(
        ("now", "shown"),
        [
            (at(6), False),  # the board's "more than 6 hours"
            (at(6, 1), True),
            (at(47, 3599), True),
            (at(48), False),  # claimable: the board offers the button instead
        ],
    )
    def test_the_deadline_shows_after_six_hours_until_it_is_claimable(self, now, shown):
        assert TurnClock(START).show_deadline(now) is shown

    @pytest.mark.parametrize(
        ("now", "hours"),
        [(at(0), 48), (at(17), 31), (at(16, 1), 31), (at(47, 1), 0), (at(60), 0)],
    )
    def test_hours_left_are_whole_hours_rounded_down(self, now, hours):
        assert TurnClock(START).hours_left(now) == hours


class TestOfAMatch:
    def match(self, started, waived_for=None):
        return SimpleNamespace(turn_started_at=started, absence_waived_for=waived_for)

    def test_it_reads_the_turn_and_its_waiver(self):
        assert TurnClock.of(self.match(START), against_bot=False) == TurnClock(START)
        waived = TurnClock.of(self.match(START, START), against_bot=False)
        assert waived == TurnClock(START, waived=True)

    def test_a_waiver_of_an_earlier_turn_lapses(self):
        turn = TurnClock.of(self.match(at(10), START), against_bot=False)
        assert not turn.waived

    def test_no_turn_is_never_waived(self):
        assert not TurnClock.of(self.match(None, None), against_bot=False).waived

    def test_against_the_computer(self):
        assert TurnClock.of(self.match(START), against_bot="domador").against_bot is True


class TestRoomsAndEmails:
    def test_a_room_expires_seven_days_after_its_last_move(self):
        assert not deadlines.room_expired(START, at(7 * 24, -1))
        assert deadlines.room_expired(START, at(7 * 24))
        assert deadlines.idle_cutoff(at(7 * 24)) == START

    def test_someone_seen_in_the_last_two_minutes_is_on_the_board(self):
        assert not deadlines.on_the_board(None, START)
        assert deadlines.on_the_board(START, START + timedelta(minutes=2) - SECOND)
        assert not deadlines.on_the_board(START, START + timedelta(minutes=2))
        assert deadlines.quiet_ends(START) == START + timedelta(minutes=2)
