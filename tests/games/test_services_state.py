"""games.selectors: what the board and the JSON state endpoint are given."""

import json
from datetime import timedelta

import pytest

from games import selectors, services
from games.engine import CHECKERS_PER_SIDE, Format, MatchRules, Position
from games.engine.matchid import GAME_PLAYING, decode_match_id
from games.models import Game
from tests.helpers import (
    Persona,
    bind,
    current_match,
    first_legal_play,
    play_out,
    play_turns,
    queries_of,
    seat_on_turn,
    secret_forms,
)

OPENING_PLAY = [[8, 5], [6, 5]]


class TestRoomState:
    def test_a_waiting_room_has_no_match_yet(self, alice):
        state = selectors.room_state(alice.seat.room, alice.seat)
        assert state["match"] is None and state["version"] == 0
        assert state["viewer"] == {"seat": 1, "side": None}
        assert [s["nickname"] for s in state["seats"]] == ["alice"]

    def test_the_player_on_turn_sees_the_board_from_their_side(self, room, alice):
        state = selectors.room_state(room, alice.seat)
        match = state["match"]
        assert state["viewer"] == {"seat": 1, "side": 0}
        assert state["version"] == 1
        assert match["phase"] == "move" and match["dice"] == [3, 1]
        assert match["turn"] == 0 and match["turn_seat"] == 1
        assert match["turn_started_at"] == "2026-03-02T09:00:00+00:00"
        assert {"play", "resign_offer", "forfeit"} <= set(match["allowed"])
        assert match["pips"] == [167, 167]
        assert sum(match["position"]["me"]) == CHECKERS_PER_SIDE
        assert match["cube"] == {"value": 1, "owner": None}
        assert match["away"] is None and match["end_reason"] is None  # a partida simple
        assert match["game"]["commitment"] and match["game"]["seed"] is None
        assert [h["kind"] for h in match["history"]] == ["roll"]

    def test_the_other_player_waits(self, room, bob):
        match = selectors.room_state(room, bob.seat)["match"]
        assert match["position"]["side"] == 1
        assert "play" not in match["allowed"] and "forfeit" in match["allowed"]
        assert match["absence"]["can_claim"] is False
        assert match["absence"]["claimable_at"] == "2026-03-04T09:00:00+00:00"

    def test_a_spectator_may_do_nothing(self, room, carol):
        state = selectors.room_state(room, None)
        assert state["viewer"] == {"seat": None, "side": None}
        assert state["match"]["allowed"] == [] and state["match"]["absence"] is None
        assert not any(seat["is_you"] for seat in state["seats"])

    def test_a_seat_of_another_room_is_a_spectator_here(self, room, db, clock):
        elsewhere = services.room_create(rules=MatchRules(), nickname="mallory")
        state = selectors.room_state(room, elsewhere)
        assert state["viewer"]["seat"] is None and state["match"]["allowed"] == []

    def test_the_history_is_in_notation(self, room, alice, dice):
        dice.push((6, 5))
        services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        history = selectors.room_state(room, None)["match"]["history"]
        assert [(h["kind"], h["side"], h["notation"], h["dice"]) for h in history] == [
            ("roll", 0, "", [3, 1]),
            ("play", 0, "8/5 6/5", None),
            ("roll", 1, "", [6, 5]),
        ]

    @pytest.mark.parametrize("opening", [(3, 4)])  # bob starts with 4-3
    def test_a_roll_with_no_legal_play_passes_and_says_so(self, room, alice, bob, dice):
        dice.push((4, 1))
        services.game_play(seat=bob.seat, version=1, play=[[24, 20], [24, 21]])
        dice.push((6, 6), (2, 1))  # bob's two checkers on the bar face alice's closed 6-point
        services.game_play(seat=alice.seat, version=2, play=[[8, 4], [6, 5]])
        history = selectors.room_state(room, bob.seat)["match"]["history"]
        assert [(h["kind"], h["side"], h["dice"], h["blocked"]) for h in history[-3:]] == [
            ("play", 0, None, False),
            ("roll", 1, [6, 6], True),
            ("roll", 0, [2, 1], False),
        ]
        assert history[-3]["notation"] == "8/4* 6/5*"
        assert selectors.room_state(room, alice.seat)["match"]["turn_seat"] == 1

    def test_after_48_hours_the_waiting_player_may_claim(self, room, bob, clock):
        clock.tick(timedelta(hours=48))
        match = selectors.room_state(room, bob.seat)["match"]
        assert match["absence"]["can_claim"] is True
        assert "claim_absence" in match["allowed"]

    @pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=5)])
    def test_a_match_shows_the_points_each_side_still_needs(self, room, alice, bob):
        services.game_resign_offer(seat=alice.seat, version=1, value=2)
        services.game_resign_accept(seat=bob.seat, version=2)
        match = selectors.room_state(room, None)["match"]
        assert (match["score"], match["away"]) == ([0, 2], [5, 3])

    def test_a_finished_match_offers_a_rematch(self, room, alice, bob):
        services.match_resign(seat=alice.seat, version=1)
        assert selectors.room_state(room, None)["match"]["end_reason"] == "resign"
        assert selectors.room_state(room, alice.seat)["match"]["allowed"] == ["rematch_offer"]
        services.rematch_offer(seat=alice.seat)
        assert selectors.room_state(room, alice.seat)["match"]["allowed"] == []
        assert selectors.room_state(room, bob.seat)["match"]["allowed"] == ["rematch_accept"]
        assert selectors.room_state(room, bob.seat)["match"]["rematch_offered_by"] == 1


class TestGnubgMatchId:
    """The state carries GNU Backgammon's Match ID, which decodes to the match as it stands."""

    @pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=5)])
    def test_it_holds_the_score_and_the_cube_of_a_match(self, room, alice, bob):
        services.game_resign_offer(seat=alice.seat, version=1, value=2)
        services.game_resign_accept(seat=bob.seat, version=2)  # bob leads 2-0; game 2 opens
        match = current_match(room)
        opener = seat_on_turn(room, alice, bob)
        services.game_play(
            seat=opener.seat,
            version=match.version,
            play=first_legal_play(room, match.side_of(opener.seat)),
        )
        doubler = seat_on_turn(room, alice, bob)
        match = services.game_double(seat=doubler.seat, version=current_match(room).version)
        taker = seat_on_turn(room, alice, bob)
        services.game_take(seat=taker.seat, version=match.version)

        state = selectors.room_state(room, None)["match"]
        fields = decode_match_id(state["match_id"])
        assert (fields.length, fields.score) == (5, (0, 2))
        match = current_match(room)
        assert (fields.cube_value, fields.cube_owner) == (2, match.side_of(taker.seat))
        assert fields.game_state == GAME_PLAYING and not fields.crawford and not fields.jacoby
        assert fields.on_roll == match.side_of(doubler.seat)
        assert fields.dice == tuple(sorted(state["dice"], reverse=True))  # the table rolled

    def test_a_partida_simple_is_a_one_point_match(self, room, alice):
        state = selectors.room_state(room, alice.seat)["match"]
        fields = decode_match_id(state["match_id"])
        assert (fields.length, fields.score, fields.cube_value) == (1, (0, 0), 1)
        assert (fields.on_roll, fields.dice) == (0, (3, 1))

    @pytest.mark.parametrize("rules", [MatchRules(format=Format.SESSION, jacoby=True)])
    def test_a_session_is_money_play_with_its_jacoby_rule(self, room):
        fields = decode_match_id(selectors.room_state(room, None)["match"]["match_id"])
        assert fields.length == 0 and fields.jacoby

    @pytest.mark.parametrize("viewer", ["alice", "bob", None])
    def test_the_pair_for_gnubg_is_seen_from_the_side_on_roll_whoever_looks(
        self, room, alice, bob, viewer
    ):
        seat = {"alice": alice.seat, "bob": bob.seat, None: None}[viewer]
        match = selectors.room_state(room, seat)["match"]
        position_id, match_id = match["gnubg_id"].split(":")
        assert match_id == match["match_id"]
        assert position_id == selectors.room_state(room, alice.seat)["match"]["position"]["id"]
        assert Position.from_position_id(position_id).pips() == (167, 167)

    def test_the_position_id_of_the_other_side_is_what_that_side_sees(self, room, alice, bob):
        services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
        spectator = selectors.room_state(room, None)["match"]["position"]
        for_alice = selectors.room_state(room, alice.seat)["match"]["position"]
        for_bob = selectors.room_state(room, bob.seat)["match"]["position"]
        assert spectator["id"] == for_alice["id"] == for_bob["other_side_id"]
        assert spectator["other_side_id"] == for_bob["id"] == for_alice["other_side_id"]
        assert for_alice["id"] != for_bob["id"]


class TestTheSeedStaysSecret:
    def test_a_running_game_never_shows_its_seed(self, room, alice, bob):
        game = current_match(room).games.get()
        for viewer in (alice.seat, bob.seat, None):
            text = json.dumps(selectors.room_state(room, viewer))
            assert not any(secret in text for secret in secret_forms(game))
        assert not any(
            secret in json.dumps(current_match(room).state) for secret in secret_forms(game)
        )

    def test_no_page_or_state_endpoint_shows_it_to_anyone(self, room, alice, bob, carol):
        from django.urls import reverse

        game = current_match(room).games.get()
        for persona in (alice, bob, carol):
            if persona.token:
                bind(persona, room)
            for url in (
                reverse("games:room", args=[room.slug]),
                reverse("games:api_state", args=[room.slug]),
            ):
                response = persona.client.get(url)
                assert response.status_code == 200
                text = response.content.decode()
                assert not any(secret in text for secret in secret_forms(game)), (persona, url)
                assert game.commitment in text
            state = persona.client.get(reverse("games:api_state", args=[room.slug])).json()
            assert state["viewer"]["seat"] == (persona.seat.number if persona.seat else None)

    def test_the_seed_is_revealed_when_the_game_ends(self, room, alice, bob):
        services.match_resign(seat=bob.seat, version=1)
        game = current_match(room).games.get()
        info = selectors.room_state(room, None)["match"]["game"]
        assert info["seed"] == bytes(game.seed).hex()


def test_the_state_costs_the_same_queries_however_long_the_history(room, alice, bob):
    room = alice.seat.room
    short = queries_of(lambda: selectors.room_state(room, alice.seat))
    play_turns(room, alice, bob, 20)  # ten turns each
    assert current_match(room).games.get().turn_count > 30
    long = queries_of(lambda: selectors.room_state(room, alice.seat))
    # Four, and two for the words only the players read (the mute, the messages).
    assert short == long == 4 + 2
    assert queries_of(lambda: selectors.room_state(room, None)) == 4


class TestSeatByToken:
    def test_the_private_token_finds_its_seat(self, room, alice, bob):
        assert selectors.seat_by_token(alice.token) == alice.seat
        assert selectors.seat_by_token(bob.token) == bob.seat

    @pytest.mark.parametrize("token", ["", None, 42, "x" * 500])
    def test_nonsense_finds_nothing(self, room, token):
        assert selectors.seat_by_token(token) is None

    def test_a_forged_token_finds_nothing(self, room, mallory):
        assert selectors.seat_by_token(mallory.token) is None


class TestMyRooms:
    def test_each_seat_sees_whose_turn_it_is(self, room, alice, bob, db, clock):
        waiting = services.room_create(rules=MatchRules(), nickname="alice")
        lines = selectors.rooms_for_seats([alice.seat, waiting])
        by_room = {line["room"].pk: line for line in lines}
        assert by_room[room.pk]["your_turn"] is True
        assert by_room[room.pk]["opponent"] == "bob"
        assert by_room[waiting.room_id]["opponent"] is None
        assert by_room[waiting.room_id]["your_turn"] is False
        [line] = selectors.rooms_for_seats([bob.seat])
        assert line["your_turn"] is False and line["turn_started_at"] is not None


class TestVerifiableDice:
    def test_every_roll_of_a_finished_game_comes_from_its_revealed_seed(self, db, clock, dice):
        # No scripted dice: the real derivation from each game's seed.
        alice = Persona("alice", seat=services.room_create(rules=MatchRules(), nickname="alice"))
        bob = Persona("bob", seat=services.room_join(room=alice.seat.room, nickname="bob"))
        match = play_out(alice.seat.room, alice, bob)
        game = match.games.get()
        assert game.revealed and game.rolls_drawn > 10
        assert selectors.verify_game_dice(game)

    def test_a_changed_roll_fails_the_check(self, db, clock, dice):
        alice = Persona("alice", seat=services.room_create(rules=MatchRules(), nickname="alice"))
        bob = Persona("bob", seat=services.room_join(room=alice.seat.room, nickname="bob"))
        services.match_resign(seat=bob.seat, version=1)
        game = current_match(alice.seat.room).games.get()
        assert selectors.verify_game_dice(game)
        Game.objects.filter(pk=game.pk).update(commitment="0" * 64)
        game.refresh_from_db()
        assert not selectors.verify_game_dice(game)

    def test_a_running_game_cannot_be_verified_yet(self, room):
        assert not selectors.verify_game_dice(current_match(room).games.get())
