"""Match.absence_due_at: written by the services on every change, read by the sweeps.

alice is on turn from START on (tests/conftest.py); bob waits.
"""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.engine import Format, MatchRules, MatchState
from games.models import Match, Room
from games.selectors import due
from tests.helpers import START, current_match

DEADLINE = START + timedelta(hours=48)
OPENING_PLAY = [[8, 5], [6, 5]]  # alice's 3-1


def due_at(room):
    return current_match(room).absence_due_at


class TestTheServicesWriteIt:
    def test_the_first_turn_has_its_deadline(self, room):
        assert due_at(room) == DEADLINE

    def test_it_moves_with_the_turn(self, room, alice, clock):
        clock.tick(timedelta(hours=5))
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        assert due_at(room) == START + timedelta(hours=5 + 48)

    @pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=5)])
    def test_a_roll_keeps_the_turn_and_its_deadline(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=1))
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        clock.tick(timedelta(hours=2))
        services.game_roll(seat=bob.seat, version=2)
        assert due_at(room) == START + timedelta(hours=1 + 48)

    def test_keeping_waiting_keeps_the_deadline_but_stops_the_sweep(self, room, bob, clock):
        clock.tick(timedelta(hours=48))
        match = services.absence_keep_waiting(seat=bob.seat, version=1)
        assert match.absence_due_at == DEADLINE
        assert selectors.absent_due() == []
        assert due.absence_claimable_due() == [match.pk]

    def test_the_end_of_the_match_clears_it(self, room, alice):
        match = services.match_resign(seat=alice.seat, version=1)
        assert match.absence_due_at is None
        assert due_at(room) is None

    def test_a_closure_by_absence_clears_it(self, room, clock):
        clock.tick(timedelta(hours=48))
        match = services.absence_close(match_id=current_match(room).pk)
        assert match.status == Match.Status.FINISHED and match.absence_due_at is None

    def test_a_rematch_starts_a_new_deadline(self, room, alice, bob, clock, dice):
        first = services.match_resign(seat=alice.seat, version=1)
        clock.tick(timedelta(hours=3))
        services.rematch_offer(seat=alice.seat)
        dice.push((2, 5))  # bob, now side 0, starts
        match = services.rematch_accept(seat=bob.seat)
        assert match.number == 2
        assert match.absence_due_at == START + timedelta(hours=3 + 48)
        first.refresh_from_db()
        assert first.absence_due_at is None

    def test_an_expired_room_clears_it(self, room, clock):
        clock.tick(timedelta(days=7))
        services.room_expire(room_id=room.pk)
        assert due_at(room) is None

    def test_a_room_against_the_computer_has_none(self, db, clock, dice):
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
        match = current_match(seat.room)
        assert match.turn_started_at is not None and match.absence_due_at is None


class TestTheBoard:
    def absence(self, room, seat):
        return selectors.room_state(room, seat)["match"]["absence"]

    def test_the_waiting_player_is_told_when_to_show_the_deadline(self, room, bob, clock):
        clock.tick(timedelta(hours=6))
        assert self.absence(room, bob.seat) == {
            "claimable_at": DEADLINE.isoformat(),
            "can_claim": False,
            "kept_waiting": False,
            "show_deadline": False,  # not in the first six hours
        }
        clock.tick(timedelta(seconds=1))
        assert self.absence(room, bob.seat)["show_deadline"] is True
        clock.tick(timedelta(hours=42))
        absence = self.absence(room, bob.seat)
        assert absence["can_claim"] is True and absence["show_deadline"] is False

    def test_the_player_on_turn_and_a_spectator_get_no_absence(self, room, alice, clock):
        clock.tick(timedelta(hours=7))
        assert self.absence(room, alice.seat) is None
        assert self.absence(room, None) is None


class TestTheSweepsReadIt:
    def test_the_absence_sweep_follows_the_column(self, room, clock):
        clock.tick(timedelta(hours=48))
        match_id = current_match(room).pk
        assert selectors.absent_due() == [match_id]
        Match.objects.filter(pk=match_id).update(absence_due_at=START + timedelta(hours=49))
        assert selectors.absent_due() == []

    def test_the_reminder_sweep_follows_the_column(self, room, clock):
        clock.tick(timedelta(hours=24))
        match_id = current_match(room).pk
        assert selectors.reminder_due() == [match_id]
        Match.objects.filter(pk=match_id).update(absence_due_at=None)
        assert selectors.reminder_due() == []

    @pytest.mark.parametrize(
        "sweep",
        [
            pytest.param(selectors.absent_due, id="absent"),
            pytest.param(selectors.reminder_due, id="reminder"),
            pytest.param(due.absence_claimable_due, id="claimable"),
        ],
    )
    def test_each_reads_the_partial_index_on_postgresql(self, room, sweep):
        if connection.vendor != "postgresql":
            pytest.skip("EXPLAIN output differs on SQLite")
        # Many running matches far from their deadline: what a busy site holds,
        # and what makes an index on running matches alone the worse choice.
        rules = MatchRules()
        rooms = Room.objects.bulk_create(
            Room(rules=rules.to_json(), status="playing", created_at=START, last_move_at=START)
            for _ in range(400)
        )
        Match.objects.bulk_create(
            Match(
                room=other,
                number=1,
                side0_seat_number=1,
                state=MatchState.new(rules).to_json(),
                created_at=START,
                turn_started_at=START,
                absence_due_at=START + timedelta(days=30),
            )
            for other in rooms
        )
        with CaptureQueriesContext(connection) as queries:
            sweep()
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_match")
            cursor.execute("EXPLAIN " + queries.captured_queries[-1]["sql"])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "match_absence_due_idx" in plan, plan


class TestTheMigration:
    def test_it_fills_the_running_matches_by_the_same_rule(self, room, bob, clock, dice):
        clock.tick(timedelta(hours=48))
        services.absence_keep_waiting(seat=bob.seat, version=1)
        bot = services.room_create(rules=MatchRules(), nickname="eva", bot="domador").room
        Match.objects.update(absence_due_at=None)
        migration = importlib.import_module("games.migrations.0005_match_absence_due_at")
        migration.fill_absence_due_at(apps, None)
        assert due_at(room) == DEADLINE  # kept waiting: the deadline stays
        assert due_at(bot) is None
