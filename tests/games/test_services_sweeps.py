"""The periodic sweeps' queries and services: absence closure, reminders, expiry.

Time moves through the injected clock; alice is on turn from START on.
"""

from datetime import timedelta

import pytest

from games import selectors, services
from games.engine import MatchRules
from games.lib.errors import Conflict
from games.mail import messages
from games.models import Match, Room, Seat
from tests.helpers import START, current_match, state_of


class TestAbsenceSweep:
    def test_a_game_is_due_48_hours_after_the_turn_passed(self, room, clock):
        clock.tick(timedelta(hours=47, minutes=59))
        assert selectors.absent_due() == []
        assert services.absence_close(match_id=current_match(room).pk) is None
        clock.tick(timedelta(minutes=1))
        assert selectors.absent_due() == [current_match(room).pk]

    def test_it_closes_the_game_once_for_the_waiting_player(self, room, clock):
        clock.tick(timedelta(hours=48))
        match = services.absence_close(match_id=current_match(room).pk)
        assert match.status == Match.Status.FINISHED and match.winner_side == 1
        assert state_of(room).end_reason == "absence"
        assert services.absence_close(match_id=match.pk) is None
        assert selectors.absent_due() == []

    def test_keeping_waiting_stops_the_closure_of_this_turn(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=48))
        services.absence_keep_waiting(seat=bob.seat, version=1)
        clock.tick(timedelta(days=1))
        assert selectors.absent_due() == []
        assert services.absence_close(match_id=current_match(room).pk) is None
        # bob may still close it himself
        assert services.game_claim_absence(seat=bob.seat, version=2).winner_side == 1

    def test_a_game_against_the_computer_is_never_closed(self, db, clock, dice):
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
        clock.tick(timedelta(days=3))
        assert selectors.absent_due() == []
        assert services.absence_close(match_id=current_match(seat.room).pk) is None


class TestReminder:
    def test_the_player_on_turn_is_reminded_once_24_hours_before(self, room, alice, clock):
        match_id = current_match(room).pk
        clock.tick(timedelta(hours=23, minutes=59))
        assert selectors.reminder_due() == []
        clock.tick(timedelta(minutes=1))
        assert selectors.reminder_due() == [match_id]
        Seat.objects.filter(pk=alice.seat.pk).update(email_consent=True)
        assert messages.send_absence_reminders() == 1
        assert messages.send_absence_reminders() == 0
        assert selectors.reminder_due() == []

    def test_a_new_turn_gets_its_own_reminder(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=24))
        messages.send_absence_reminders()
        services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
        clock.tick(timedelta(hours=24))
        assert selectors.reminder_due() == [current_match(room).pk]
        assert messages.send_absence_reminders() == 0  # bob: no consent
        assert selectors.reminder_due() == []

    def test_no_reminder_once_the_deadline_passed(self, room, clock):
        clock.tick(timedelta(hours=48))
        assert selectors.reminder_due() == []


class TestExpiry:
    def test_a_room_waiting_seven_days_expires(self, alice, clock):
        clock.tick(timedelta(days=7))
        assert selectors.idle_rooms_due() == [alice.seat.room_id]
        room = services.room_expire(room_id=alice.seat.room_id)
        assert room.status == Room.Status.EXPIRED and room.ended_at == START + timedelta(days=7)
        assert services.room_expire(room_id=room.pk) is None
        assert selectors.idle_rooms_due() == []

    def test_a_game_idle_seven_days_ends_with_no_winner(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=48))
        services.absence_keep_waiting(seat=bob.seat, version=1)  # counts as the last move
        clock.tick(timedelta(days=6, hours=23))
        assert selectors.idle_rooms_due() == []
        assert services.room_expire(room_id=room.pk) is None
        clock.tick(timedelta(hours=1))
        services.room_expire(room_id=room.pk)
        match = current_match(room)
        assert match.status == Match.Status.FINISHED and match.winner_side is None
        assert match.turn_seat is None
        game = match.games.get()
        assert game.revealed and game.winner_side is None
        with pytest.raises(Conflict):
            services.game_play(seat=alice.seat, version=match.version, play=[[8, 5], [6, 5]])

    def test_a_move_keeps_the_room_alive(self, room, alice, clock):
        clock.tick(timedelta(days=6))
        services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
        clock.tick(timedelta(days=6))
        assert selectors.idle_rooms_due() == []


class TestSweepTasks:
    def test_the_absence_sweep_closes_each_due_game_once(self, room, clock):
        from games import tasks

        assert tasks.close_absent_games() == 0
        clock.tick(timedelta(hours=48))
        assert tasks.close_absent_games() == 1
        assert tasks.close_absent_games() == 0

    def test_the_expiry_sweep_expires_each_idle_room_once(self, room, clock):
        from games import tasks

        clock.tick(timedelta(days=7))
        assert tasks.expire_idle_rooms() == 1
        assert tasks.expire_idle_rooms() == 0
        room.refresh_from_db()
        assert room.status == Room.Status.EXPIRED
