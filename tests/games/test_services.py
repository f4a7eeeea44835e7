"""games.services: each action, and each of its refusals, against the database.

alice (seat 1) plays side 0 in the first match; the opening roll is 3 for
alice and 1 for bob, so alice starts with 3-1 (see tests/conftest.py).
"""

import hashlib
from datetime import timedelta

import pytest

from games import services
from games.engine import Format, MatchRules, Phase
from games.lib.errors import BadInput, Conflict, IllegalMoveError, NotSeatHolder
from games.models import Game, Match, Room, Seat, Turn
from tests.helpers import (
    START,
    Persona,
    current_match,
    play_out,
    state_of,
    version_of,
    when_published,
)

MATCH_TO_5 = MatchRules(format=Format.MATCH, length=5)
SESSION = MatchRules(format=Format.SESSION, beavers=True)
OPENING_PLAY = [[8, 5], [6, 5]]  # alice's 3-1: make the 5-point


def turns_of(room):
    return list(Turn.objects.filter(game__match__room=room).order_by("game__number", "number"))


def snapshot(room):
    """What a refused action must leave untouched."""
    match = current_match(room)
    return (match.version, match.state, Turn.objects.count(), Game.objects.count())


# --- rooms and seats ---------------------------------------------------------


class TestRoomCreate:
    def test_it_seats_the_host_and_waits_for_a_rival(self, alice):
        room = alice.seat.room
        assert room.status == Room.Status.WAITING
        assert alice.seat.number == 1
        assert len(room.slug) >= 16  # 96 random bits in URL-safe base64
        assert not room.matches.exists()
        assert room.created_at == room.last_move_at == START

    def test_the_seat_token_is_kept_only_as_a_hash(self, alice):
        seat = Seat.objects.get(pk=alice.seat.pk)
        assert len(alice.token) >= 32  # 192 bits
        assert seat.token_hash == hashlib.sha256(alice.token.encode()).hexdigest()
        assert alice.token not in str(Seat.objects.filter(pk=seat.pk).values().get())
        assert seat.check_token(alice.token)
        last = "y" if alice.token.endswith("x") else "x"
        assert not seat.check_token(alice.token[:-1] + last)

    @pytest.mark.parametrize(
        ("fields", "code"),
        [
            ({"nickname": ""}, "bad_nickname"),
            ({"nickname": "   "}, "bad_nickname"),
            ({"nickname": "x" * 31}, "bad_nickname"),
            ({"nickname": 7}, "bad_nickname"),
            ({"email": "not-an-address"}, "bad_email"),
            ({"rules": {"format": "match", "length": 0}}, "bad_rules"),
            ({"rules": {"format": "chess"}}, "bad_rules"),
            ({"rules": "single"}, "bad_rules"),
            ({"bot": "skynet"}, "bad_bot"),
        ],
    )
    def test_it_refuses_bad_input_and_creates_nothing(self, db, clock, fields, code):
        arguments = {"rules": MatchRules(), "nickname": "alice"} | fields
        with pytest.raises(BadInput) as refusal:
            services.room_create(**arguments)
        assert refusal.value.code == code
        assert refusal.value.status == 400
        assert not Room.objects.exists() and not Seat.objects.exists()

    def test_a_room_against_the_computer_starts_at_once(self, db, clock, dice):
        dice.push((5, 2))
        seat = services.room_create(rules=MatchRules(), nickname="alice", bot="domador")
        room = seat.room
        bot_seat = room.seats.get(number=2)
        assert room.status == Room.Status.PLAYING
        assert bot_seat.is_bot and bot_seat.nickname == "Domador"
        assert state_of(room).phase is Phase.MOVE


class TestRoomJoin:
    def test_joining_starts_the_match_with_the_opening_roll(self, room, alice, bob):
        match = current_match(room)
        game = match.games.get()
        assert room.status == Room.Status.PLAYING
        assert match.version == 1 and match.number == 1
        assert match.side_of(alice.seat) == 0 and match.side_of(bob.seat) == 1
        [opening] = turns_of(room)
        assert (opening.kind, opening.side, opening.dice, opening.automatic) == (
            "roll",
            0,
            [3, 1],
            True,
        )
        assert match.turn_seat_id == alice.seat.pk and match.turn_started_at == START
        assert game.commitment == hashlib.sha256(bytes(game.seed)).hexdigest()
        assert game.rolls_drawn == 1 and not game.revealed

    def test_an_opening_tie_rolls_again(self, alice, dice):
        dice.push((2, 2), (5, 6))
        services.room_join(room=alice.seat.room, nickname="bob")
        room = alice.seat.room
        assert [(t.kind, t.dice) for t in turns_of(room)] == [("roll", [2, 2]), ("roll", [5, 6])]
        state = state_of(room)
        assert (state.turn, state.dice, state.phase) == (1, (5, 6), Phase.MOVE)
        assert current_match(room).games.get().rolls_drawn == 2

    def test_a_full_room_refuses_a_third_player(self, room):
        with pytest.raises(Conflict) as refusal:
            services.room_join(room=room, nickname="carol")
        assert refusal.value.code == "room_full" and refusal.value.status == 409
        assert room.seats.count() == 2

    def test_one_account_cannot_take_both_seats(self, db, clock, django_user_model):
        user = django_user_model.objects.create_user("ana", password="x")
        host = services.room_create(rules=MatchRules(), nickname="ana", user=user)
        with pytest.raises(Conflict) as refusal:
            services.room_join(room=host.room, nickname="ana2", user=user)
        assert refusal.value.code == "already_seated"

    def test_an_expired_room_cannot_be_joined(self, alice):
        Room.objects.filter(pk=alice.seat.room_id).update(status=Room.Status.EXPIRED)
        with pytest.raises(Conflict):
            services.room_join(room=alice.seat.room, nickname="bob")


def test_the_bot_names_are_the_bots(db):
    from games.bots import BOT_NAMES
    from games.services import rooms

    assert rooms.BOT_NAMES == BOT_NAMES


class TestSeatsClaimForUser:
    def test_guest_seats_join_the_account_and_others_stay(
        self, room, alice, bob, django_user_model
    ):
        ana = django_user_model.objects.create_user("ana", password="x")
        other = django_user_model.objects.create_user("otro", password="x")
        Seat.objects.filter(pk=bob.seat.pk).update(user=other)
        claimed = services.seats_claim_for_user(user=ana, seat_ids=[alice.seat.pk, bob.seat.pk])
        assert claimed == 1
        assert alice.refresh().user == ana
        assert bob.refresh().user == other


# --- playing -------------------------------------------------------------------


class TestPlay:
    def test_a_legal_play_is_recorded_and_the_table_rolls_for_bob(self, room, alice, bob, dice):
        dice.push((6, 5))
        match = services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        assert match.version == 2
        play, roll = turns_of(room)[1:]
        assert (play.kind, play.side, play.steps, play.notation) == (
            "play",
            0,
            OPENING_PLAY,
            "8/5 6/5",
        )
        assert (roll.kind, roll.side, roll.dice, roll.automatic) == ("roll", 1, [6, 5], True)
        assert match.turn_seat_id == bob.seat.pk
        assert state_of(room).dice == (6, 5)

    def test_a_turn_is_a_handful_of_queries(self, room, alice, bob, django_assert_num_queries):
        # lock, seats, game; write match, game, turns (one insert), the room (its last
        # move and its state serial in one UPDATE: games.services.live.room_moved), the
        # follow-up (outbox) row of bob's "Es tu turno"; plus the savepoint pair
        Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
        with django_assert_num_queries(10):
            services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)

    def test_a_stale_version_is_a_conflict_and_changes_nothing(self, room, alice, bob):
        before = snapshot(room)
        with pytest.raises(Conflict) as refusal:
            services.game_play(seat=alice.seat, version=0, play=OPENING_PLAY)
        assert refusal.value.code == "stale_version"
        assert snapshot(room) == before

    def test_playing_out_of_turn_is_a_conflict(self, room, bob):
        before = snapshot(room)
        with pytest.raises(Conflict) as refusal:
            services.game_play(seat=bob.seat, version=1, play=[[24, 21], [24, 23]])
        assert refusal.value.code == "not_your_turn"
        assert snapshot(room) == before

    @pytest.mark.parametrize(
        "play",
        [
            [[8, 4], [6, 5]],  # 4 is not on the dice
            [[8, 5]],  # the 1 can be played too
            [],
            [[1, 0], [6, 5]],  # no checker on the 1-point
        ],
    )
    def test_an_illegal_play_is_refused_by_the_rules(self, room, alice, play):
        before = snapshot(room)
        with pytest.raises(IllegalMoveError) as refusal:
            services.game_play(seat=alice.seat, version=1, play=play)
        assert refusal.value.status == 422
        assert refusal.value.message  # a sentence a person can read
        assert snapshot(room) == before

    @pytest.mark.parametrize(
        "play",
        [
            "8/5 6/5",
            [[8]],
            [[8, 5, 1]],
            [["8", "5"]],
            [[8, 26]],
            [[-1, 5]],
            [[True, 5]],
            [[8, 5]] * 5,
            None,
            {"8": 5},
        ],
    )
    def test_a_malformed_play_is_bad_input(self, room, alice, play):
        before = snapshot(room)
        with pytest.raises(BadInput) as refusal:
            services.game_play(seat=alice.seat, version=1, play=play)
        assert refusal.value.code == "bad_play"
        assert snapshot(room) == before

    @pytest.mark.parametrize("version", [None, "uno", -1, True, 1.0, [1], "²", "1" * 5000])
    def test_a_malformed_version_is_bad_input(self, room, alice, version):
        with pytest.raises(BadInput) as refusal:
            services.game_play(seat=alice.seat, version=version, play=OPENING_PLAY)
        assert refusal.value.code == "bad_version"

    def test_a_version_sent_as_a_form_string_is_accepted(self, room, alice):
        services.game_play(seat=alice.seat, version="1", play=OPENING_PLAY)
        assert version_of(room) == 2

    def test_someone_without_a_seat_cannot_act(self, room):
        with pytest.raises(NotSeatHolder) as refusal:
            services.game_play(seat=None, version=1, play=OPENING_PLAY)
        assert refusal.value.status == 403

    def test_a_seat_of_a_waiting_room_has_nothing_to_play(self, alice):
        with pytest.raises(Conflict) as refusal:
            services.game_play(seat=alice.seat, version=0, play=OPENING_PLAY)
        assert refusal.value.code == "no_match"

    def test_the_partida_simple_has_no_cube(self, room, alice, bob):
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        state = state_of(room)
        assert state.phase is Phase.MOVE  # the table rolled for bob at once
        with pytest.raises(IllegalMoveError):
            services.game_double(seat=bob.seat, version=2)


class TestGameAct:
    def test_it_dispatches_an_action_by_name(self, room, alice, bob):
        match = services.game_act(seat=alice.seat, version=1, kind="play", play=OPENING_PLAY)
        assert match.version == 2 and turns_of(room)[1].notation == "8/5 6/5"

    def test_it_passes_the_resign_value(self, room, alice):
        services.game_act(seat=alice.seat, version=1, kind="resign_offer", value=3)
        assert state_of(room).resign_value == 3

    @pytest.mark.parametrize("kind", ["teleport", "", None, 3, "_act"])
    def test_an_unknown_action_is_bad_input(self, room, alice, kind):
        before = snapshot(room)
        with pytest.raises(BadInput):
            services.game_act(seat=alice.seat, version=1, kind=kind)
        assert snapshot(room) == before


class TestRoll:
    @pytest.fixture
    def rules(self):
        return MATCH_TO_5

    @pytest.fixture
    def bob_may_double(self, room, alice, bob):
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        assert state_of(room).phase is Phase.ROLL
        return room

    def test_a_player_who_may_double_rolls_when_they_choose(self, bob_may_double, bob, dice):
        dice.push((4, 2))
        match = services.game_roll(seat=bob.seat, version=2)
        roll = turns_of(bob_may_double)[-1]
        assert (roll.kind, roll.side, roll.dice, roll.automatic) == ("roll", 1, [4, 2], False)
        assert match.turn_seat_id == bob.seat.pk  # still bob: now he moves
        assert state_of(bob_may_double).dice == (4, 2)

    def test_a_second_roll_never_rolls_again(self, bob_may_double, bob, dice):
        dice.push((4, 2), (6, 6))
        services.game_roll(seat=bob.seat, version=2)
        game = current_match(bob_may_double).games.get()
        with pytest.raises(Conflict):
            services.game_roll(seat=bob.seat, version=2)  # a second tab, same version
        with pytest.raises(IllegalMoveError) as refusal:
            services.game_roll(seat=bob.seat, version=3)  # a reload, fresh version
        assert refusal.value.code == "wrong_phase"
        game.refresh_from_db()
        assert state_of(bob_may_double).dice == (4, 2)
        assert game.rolls_drawn == 2  # the opening roll and bob's, nothing more
        assert [t.kind for t in turns_of(bob_may_double)].count("roll") == 2

    def test_rolling_out_of_turn_draws_no_dice(self, bob_may_double, alice):
        game = current_match(bob_may_double).games.get()
        with pytest.raises(Conflict) as refusal:
            services.game_roll(seat=alice.seat, version=2)
        assert refusal.value.code == "not_your_turn"
        game.refresh_from_db()
        assert game.rolls_drawn == 1  # the opening roll only

    def test_a_taken_double_gives_the_cube_to_the_taker(self, bob_may_double, alice, bob, dice):
        match = services.game_double(seat=bob.seat, version=2)
        assert match.turn_seat_id == alice.seat.pk
        assert state_of(bob_may_double).phase is Phase.DOUBLED
        dice.push((4, 2))
        match = services.game_take(seat=alice.seat, version=3)
        state = state_of(bob_may_double)
        assert (state.cube_value, state.cube_owner) == (2, 0)
        # Bob may not redouble (alice owns the cube): the table rolls for him.
        assert state.phase is Phase.MOVE and state.dice == (4, 2)
        kinds = [(t.kind, t.automatic) for t in turns_of(bob_may_double)[-3:]]
        assert kinds == [("double", False), ("take", False), ("roll", True)]
        assert match.turn_seat_id == bob.seat.pk

    def test_a_dropped_double_ends_the_game_and_the_next_one_starts(
        self, bob_may_double, alice, bob, dice
    ):
        services.game_double(seat=bob.seat, version=2)
        dice.push((6, 1))
        match = services.game_drop(seat=alice.seat, version=3)
        first, second = match.games.order_by("number")
        assert first.status == Game.Status.FINISHED and first.revealed
        assert (first.winner_side, first.points) == (1, 1)
        assert second.status == Game.Status.PLAYING and not second.revealed
        assert second.commitment != first.commitment
        assert [(t.kind, t.number) for t in second.turns.all()] == [("next_game", 1), ("roll", 2)]
        state = state_of(bob_may_double)
        assert state.score == (0, 1) and state.game_number == 2
        assert match.status == Match.Status.PLAYING

    def test_a_beaver_is_refused_where_the_room_plays_without(self, bob_may_double, alice, bob):
        services.game_double(seat=bob.seat, version=2)
        with pytest.raises(IllegalMoveError) as refusal:
            services.game_beaver(seat=alice.seat, version=3)
        assert refusal.value.code == "beaver_not_allowed"

    def test_taking_with_nothing_offered_is_refused(self, bob_may_double, alice, bob):
        with pytest.raises((IllegalMoveError, Conflict)):
            services.game_take(seat=bob.seat, version=2)

    def test_doubling_after_rolling_is_refused(self, bob_may_double, bob):
        services.game_roll(seat=bob.seat, version=2)
        with pytest.raises(IllegalMoveError) as refusal:
            services.game_double(seat=bob.seat, version=3)
        assert refusal.value.code == "already_rolled"


class TestResign:
    @pytest.fixture
    def rules(self):
        return MATCH_TO_5

    def test_an_accepted_resignation_scores_its_value(self, room, alice, bob):
        match = services.game_resign_offer(seat=alice.seat, version=1, value=2)
        assert match.turn_seat_id == bob.seat.pk
        assert state_of(room).resign_value == 2
        services.game_resign_accept(seat=bob.seat, version=2)
        assert state_of(room).score == (0, 2)
        assert current_match(room).games.order_by("number").first().revealed

    def test_a_declined_resignation_plays_on(self, room, alice, bob):
        services.game_resign_offer(seat=alice.seat, version=1, value=1)
        match = services.game_resign_decline(seat=bob.seat, version=2)
        state = state_of(room)
        assert (state.phase, state.turn, state.dice) == (Phase.MOVE, 0, (3, 1))
        assert match.turn_seat_id == alice.seat.pk

    @pytest.mark.parametrize("value", [0, 4, "2", None, True])
    def test_a_resignation_is_single_gammon_or_backgammon(self, room, alice, value):
        with pytest.raises(BadInput) as refusal:
            services.game_resign_offer(seat=alice.seat, version=1, value=value)
        assert refusal.value.code == "bad_value"

    def test_only_the_player_on_turn_offers(self, room, bob):
        with pytest.raises(Conflict):
            services.game_resign_offer(seat=bob.seat, version=1, value=1)

    def test_resigning_the_match_ends_it_at_once(self, room, alice, bob):
        match = services.match_resign(seat=bob.seat, version=1)  # even out of turn
        assert match.status == Match.Status.FINISHED and match.winner_side == 0
        assert match.turn_seat is None and match.turn_started_at is None
        room.refresh_from_db()
        assert room.status == Room.Status.FINISHED and room.ended_at == START
        assert match.games.get().revealed
        with pytest.raises(Conflict) as refusal:
            services.game_play(seat=alice.seat, version=match.version, play=OPENING_PLAY)
        assert refusal.value.code == "match_over"


class TestSession:
    @pytest.fixture
    def rules(self):
        return SESSION

    @pytest.fixture
    def doubled(self, room, alice, bob):
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        services.game_double(seat=bob.seat, version=2)
        return room

    def test_a_beaver_redoubles_and_keeps_the_cube(self, doubled, alice, bob):
        match = services.game_beaver(seat=alice.seat, version=3)
        assert match.turn_seat_id == bob.seat.pk  # the doubler answers the beaver
        services.game_take(seat=bob.seat, version=4)
        state = state_of(doubled)
        assert (state.cube_value, state.cube_owner) == (4, 0)

    def test_a_session_waits_between_games_until_someone_stops(self, doubled, alice, bob):
        match = services.game_drop(seat=alice.seat, version=3)
        assert state_of(doubled).phase is Phase.GAME_OVER
        assert match.turn_seat is None  # nobody owes a move between games
        match = services.session_stop(seat=alice.seat, version=match.version)
        assert match.status == Match.Status.FINISHED and match.winner_side == 1

    def test_a_session_goes_on_when_a_player_asks(self, doubled, alice, bob, dice):
        match = services.game_drop(seat=alice.seat, version=3)
        dice.push((1, 2))
        match = services.game_next(seat=bob.seat, version=match.version)
        state = state_of(doubled)
        assert state.game_number == 2 and state.turn == 1 and state.dice == (1, 2)
        assert match.games.count() == 2 and match.turn_seat_id == bob.seat.pk

    def test_a_session_cannot_stop_in_the_middle_of_a_game(self, room, alice):
        with pytest.raises(IllegalMoveError) as refusal:
            services.session_stop(seat=alice.seat, version=1)
        assert refusal.value.code == "wrong_phase"


def test_only_a_session_stops(room, alice):
    with pytest.raises(IllegalMoveError) as refusal:
        services.session_stop(seat=alice.seat, version=1)
    assert refusal.value.code == "not_session"


class TestAbsence:
    def test_claiming_before_48_hours_is_too_early(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=47, minutes=59))
        with pytest.raises(IllegalMoveError) as refusal:
            services.game_claim_absence(seat=bob.seat, version=1)
        assert refusal.value.code == "too_early"
        assert current_match(room).status == Match.Status.PLAYING

    def test_after_48_hours_the_waiting_player_wins(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=48))
        match = services.game_claim_absence(seat=bob.seat, version=1)
        assert match.status == Match.Status.FINISHED and match.winner_side == 1
        assert state_of(room).end_reason == "absence"
        assert turns_of(room)[-1].reason == "absence" and turns_of(room)[-1].side == 0

    def test_the_player_on_turn_cannot_claim(self, room, alice, clock):
        clock.tick(timedelta(days=3))
        with pytest.raises(Conflict):
            services.game_claim_absence(seat=alice.seat, version=1)

    def test_the_48_hours_count_from_when_the_turn_passed(self, room, alice, bob, clock):
        clock.tick(timedelta(hours=40))
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        clock.tick(timedelta(hours=40))
        with pytest.raises(IllegalMoveError):
            services.game_claim_absence(seat=alice.seat, version=2)
        clock.tick(timedelta(hours=8))
        match = services.game_claim_absence(seat=alice.seat, version=2)
        assert match.winner_side == 0

    @pytest.mark.parametrize("opening", [(3, 4)])  # bob starts with 4-3
    def test_a_turn_that_comes_straight_back_restarts_the_clock(
        self, room, alice, bob, dice, clock
    ):
        dice.push((4, 1))
        services.game_play(seat=bob.seat, version=1, play=[[24, 20], [24, 21]])
        clock.tick(timedelta(hours=47))
        dice.push((6, 6), (2, 1))  # bob, on the bar twice, cannot enter: alice again
        match = services.game_play(seat=alice.seat, version=2, play=[[8, 4], [6, 5]])
        assert match.turn_seat_id == alice.seat.pk
        assert match.turn_started_at == START + timedelta(hours=47)
        clock.tick(timedelta(hours=2))
        with pytest.raises(IllegalMoveError):
            services.game_claim_absence(seat=bob.seat, version=match.version)

    def test_keeping_waiting_marks_this_turn_only(self, room, alice, bob, clock):
        with pytest.raises(IllegalMoveError):  # nothing to choose before the deadline
            services.absence_keep_waiting(seat=bob.seat, version=1)
        clock.tick(timedelta(hours=48))
        match = services.absence_keep_waiting(seat=bob.seat, version=1)
        assert match.absence_waived_for == match.turn_started_at == START
        assert match.version == 2
        clock.tick(timedelta(hours=1))
        match = services.game_play(seat=alice.seat, version=2, play=OPENING_PLAY)
        assert match.absence_waived_for != match.turn_started_at

    def test_only_the_waiting_player_keeps_waiting(self, room, alice):
        with pytest.raises(Conflict):
            services.absence_keep_waiting(seat=alice.seat, version=1)


class TestRematch:
    @pytest.fixture
    def finished(self, room, alice, bob):
        services.match_resign(seat=alice.seat, version=1)
        return room

    def test_a_rematch_swaps_the_sides(self, finished, alice, bob, dice):
        offered = services.rematch_offer(seat=alice.seat)
        assert offered.rematch_offered_by_id == alice.seat.pk
        dice.push((2, 5))
        match = services.rematch_accept(seat=bob.seat)
        assert match.number == 2 and match.status == Match.Status.PLAYING
        assert match.version > offered.version  # versions only grow within a room
        assert match.side_of(bob.seat) == 0 and match.side_of(alice.seat) == 1
        finished.refresh_from_db()
        assert finished.status == Room.Status.PLAYING
        # Opening 2-5: side 1 (alice now) starts.
        assert match.turn_seat_id == alice.seat.pk
        assert state_of(finished).dice == (2, 5)

    def test_two_offers_make_a_rematch(self, finished, alice, bob):
        services.rematch_offer(seat=bob.seat)
        assert services.rematch_offer(seat=bob.seat).number == 1  # asking twice changes nothing
        match = services.rematch_offer(seat=alice.seat)
        assert match.number == 2 and match.side0_seat_number == 2

    def test_there_is_no_rematch_to_accept_without_an_offer(self, finished, alice, bob):
        with pytest.raises(IllegalMoveError) as refusal:
            services.rematch_accept(seat=bob.seat)
        assert refusal.value.code == "nothing_offered"
        services.rematch_offer(seat=bob.seat)
        with pytest.raises(IllegalMoveError):
            services.rematch_accept(seat=bob.seat)  # one's own offer

    def test_a_rematch_waits_for_the_end_of_the_match(self, room, alice):
        with pytest.raises(Conflict) as refusal:
            services.rematch_offer(seat=alice.seat)
        assert refusal.value.code == "match_not_over"


class TestFollowUp:
    def test_the_turn_email_is_scheduled_after_commit(
        self, room, alice, bob, django_capture_on_commit_callbacks, monkeypatch
    ):
        from games import tasks

        sent = []
        when_published(monkeypatch, tasks.turn_email, lambda *args: sent.append(args))
        Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)  # bob may be mailed
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            match = services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        assert len(callbacks) == 1
        assert sent == [(match.pk, 2, match.turn_started_at.isoformat())]

    def test_the_bot_is_called_for_its_turn(
        self, db, clock, dice, django_capture_on_commit_callbacks, monkeypatch
    ):
        from games import tasks

        called = []
        when_published(monkeypatch, tasks.bot_turn, lambda *args: called.append(args))
        dice.push((1, 3))  # the bot (side 1) starts
        with django_capture_on_commit_callbacks(execute=True):
            seat = services.room_create(rules=MatchRules(), nickname="alice", bot="chofer")
        match = current_match(seat.room)
        assert called == [(match.pk, match.version)]

    def test_a_refused_action_schedules_nothing(
        self, room, alice, django_capture_on_commit_callbacks
    ):
        with django_capture_on_commit_callbacks() as callbacks, pytest.raises(Conflict):
            services.game_play(seat=alice.seat, version=0, play=OPENING_PLAY)
        assert callbacks == []


class TestWholeGames:
    def test_a_partida_simple_is_played_to_the_end(self, room, alice, bob):
        match = play_out(room, alice, bob)
        game = match.games.get()
        assert game.status == Game.Status.FINISHED and game.revealed
        assert match.winner_side in (0, 1) and game.winner_side == match.winner_side
        room.refresh_from_db()
        assert room.status == Room.Status.FINISHED
        assert game.rolls_drawn == sum(1 for t in game.turns.all() if t.kind == "roll")

    def test_a_match_to_three_plays_game_after_game(self, db, clock, dice):
        alice = Persona(
            "alice",
            seat=services.room_create(
                rules=MatchRules(format=Format.MATCH, length=3), nickname="alice"
            ),
        )
        bob = Persona("bob", seat=services.room_join(room=alice.seat.room, nickname="bob"))
        match = play_out(alice.seat.room, alice, bob)
        state = state_of(alice.seat.room)
        assert max(state.score) >= 3
        assert match.games.count() == len(state.games) >= 2
        assert all(game.revealed for game in match.games.all())
