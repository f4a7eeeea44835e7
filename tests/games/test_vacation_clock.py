"""The clock stands still on vacation: games.deadlines and accounts.vacation, pure."""

from datetime import UTC, datetime, timedelta

from accounts import vacation
from games.lib import deadlines
from games.lib.deadlines import TurnClock, run_clock

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def at(hours: float) -> datetime:
    return START + hours * HOUR


class TestTheClockStandsStill:
    def test_without_a_pause_the_clock_runs_its_duration(self):
        assert run_clock(START, 48 * HOUR) == at(48)

    def test_a_pause_in_the_middle_adds_its_length(self):
        assert run_clock(START, 48 * HOUR, [(at(24), at(24 + 120))]) == at(48 + 120)

    def test_a_pause_already_running_when_the_clock_starts_counts_from_the_start(self):
        # On vacation when the turn passed: the two days begin when it ends.
        assert run_clock(START, 48 * HOUR, [(at(-10), at(30))]) == at(30 + 48)

    def test_pauses_over_or_after_the_deadline_change_nothing(self):
        assert run_clock(START, 48 * HOUR, [(at(-50), at(-1)), (at(48), at(90))]) == at(48)

    def test_overlapping_pauses_count_once_in_any_order(self):
        pauses = [(at(30), at(40)), (at(10), at(20)), (at(15), at(35))]
        # Still from 10 to 40: 30 hours.
        assert run_clock(START, 48 * HOUR, pauses) == at(78)

    def test_one_day_left_then_five_days_away_closes_one_day_after_the_return(self):
        away = (at(24), at(24) + 5 * DAY)
        turn = TurnClock(START, pauses=(away,))
        assert turn.due_at == away[1] + DAY
        assert not turn.closes(away[1])
        assert not turn.claimable(away[1] + DAY - timedelta(seconds=1))
        assert turn.closes(away[1] + DAY)
        assert turn.paused(at(30)) and not turn.paused(away[1])

    def test_the_reminder_comes_a_day_before_the_moved_deadline(self):
        turn = TurnClock(START, pauses=((at(24), at(24 + 120)),))
        assert not turn.reminder_due(at(30))
        assert turn.reminder_due(at(24 + 120))

    def test_the_room_idle_days_stand_still_too(self):
        away = [(at(24), at(24) + 5 * DAY)]
        assert deadlines.room_expires_at(START) == START + 7 * DAY
        assert deadlines.room_expires_at(START, away) == START + 12 * DAY
        assert not deadlines.room_expired(START, START + 8 * DAY, away)
        assert deadlines.room_expired(START, START + 12 * DAY, away)

    def test_a_room_against_the_computer_has_no_absence_on_vacation_either(self):
        assert TurnClock(START, against_bot=True, pauses=((at(1), at(2)),)).due_at is None


class TestTheAllowance:
    def test_a_year_has_thirty_days_counted_in_hours(self):
        assert vacation.HOURS_PER_YEAR == 720

    def test_a_started_hour_counts_as_a_whole_hour(self):
        span = (at(0), at(2) + timedelta(minutes=1))
        assert vacation.hours_in_year(span, 2026) == 3
        assert vacation.hours_left([span], 2026) == 717

    def test_a_vacation_over_new_year_uses_both_years(self):
        start = datetime(2026, 12, 28, 12, tzinfo=UTC)
        span = (start, start + 8 * DAY)
        assert vacation.hours_in_year(span, 2026) == 3 * 24 + 12
        assert vacation.hours_in_year(span, 2027) == 4 * 24 + 12
        assert vacation.hours_in_year(span, 2025) == 0

    def test_the_thirtieth_day_fits_and_the_thirty_first_does_not(self):
        used = [(at(0), at(0) + 25 * DAY)]
        assert vacation.fits(used, (at(1000), at(1000) + 5 * DAY))
        assert not vacation.fits(used, (at(1000), at(1000) + 5 * DAY + HOUR))

    def test_last_years_days_leave_this_years_whole(self):
        last_year = [(datetime(2025, 6, 1, tzinfo=UTC), datetime(2025, 7, 1, tzinfo=UTC))]
        assert vacation.hours_left(last_year, 2025) == 0
        assert vacation.fits(last_year, (at(0), at(0) + 30 * DAY))

    def test_a_vacation_that_ends_before_it_starts_does_not_fit(self):
        assert not vacation.fits([], (at(5), at(5)))
