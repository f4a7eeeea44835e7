"""games.models: secrets, constraints and indexes, and the admin pages over them."""

import pytest
from django.db import IntegrityError, connection, transaction

from games import models, services
from games.engine import MatchRules
from games.models import Game, Match, Room, Seat, Turn
from tests.helpers import START, current_match


class TestSecrets:
    def test_room_slugs_are_random_and_long(self):
        slugs = {models.new_room_slug() for _ in range(200)}
        assert len(slugs) == 200
        assert all(len(slug) == 16 for slug in slugs)  # 12 bytes = 96 bits

    def test_seat_tokens_carry_at_least_128_bits(self):
        token = models.new_seat_token()
        assert len(token) == 32  # 24 bytes = 192 bits
        assert models.hash_token(token) != token and len(models.hash_token(token)) == 64

    def test_a_token_is_compared_in_constant_time(self, alice, monkeypatch):
        calls = []
        real = models.hmac.compare_digest
        monkeypatch.setattr(
            models.hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b)
        )
        assert alice.seat.check_token(alice.token)
        assert calls == [(alice.seat.token_hash, models.hash_token(alice.token))]

    @pytest.mark.parametrize("token", ["", None, 7, b"bytes"])
    def test_a_missing_token_never_matches(self, alice, token):
        assert not alice.seat.check_token(token)

    def test_a_running_game_does_not_reveal_its_seed(self, room):
        game = current_match(room).games.get()
        assert game.revealed_seed is None
        assert len(bytes(game.seed)) == 32


class TestConstraints:
    def test_a_room_has_seats_1_and_2_only(self, room):
        with pytest.raises(IntegrityError), transaction.atomic():
            Seat.objects.create(
                room=room, number=3, nickname="x", token_hash="a" * 64, created_at=room.created_at
            )

    def test_a_seat_number_is_taken_once(self, room):
        with pytest.raises(IntegrityError), transaction.atomic():
            Seat.objects.create(
                room=room, number=2, nickname="x", token_hash="b" * 64, created_at=room.created_at
            )

    def test_a_turn_number_is_written_once_per_game(self, room):
        turn = Turn.objects.get()
        turn.pk = None
        with pytest.raises(IntegrityError), transaction.atomic():
            turn.save()

    def test_a_match_number_is_used_once_per_room(self, room):
        match = current_match(room)
        match.pk = None
        with pytest.raises(IntegrityError), transaction.atomic():
            match.save()


class TestIndexes:
    @pytest.mark.parametrize(
        ("table", "index"),
        [
            ("games_room", "room_idle_idx"),
            ("games_match", "match_turn_active_idx"),
            ("games_turn", "turn_unique_number"),
        ],
    )
    def test_the_sweeps_have_their_indexes(self, db, table, index):
        with connection.cursor() as cursor:
            constraints = connection.introspection.get_constraints(cursor, table)
        assert index in constraints

    @pytest.mark.parametrize(
        ("model", "query", "index"),
        [
            (Match, {"status": "playing", "turn_started_at__lt": START}, "match_turn_active_idx"),
            (Room, {"status__in": Room.ACTIVE, "last_move_at__lte": START}, "room_idle_idx"),
        ],
    )
    def test_the_sweeps_use_their_partial_indexes_on_postgresql(self, room, model, query, index):
        if connection.vendor != "postgresql":
            pytest.skip("EXPLAIN output differs on SQLite")
        with connection.cursor() as cursor:
            cursor.execute("SET enable_seqscan = off")  # a tiny table would be scanned anyway
            plan = model.objects.filter(**query).explain()
            cursor.execute("SET enable_seqscan = on")
        assert index in plan


class TestSides:
    def test_the_side0_seat_is_stored_not_assumed(self, room, alice, bob):
        match = current_match(room)
        assert (match.side_of(alice.seat), match.seat_number_of(0)) == (0, 1)
        match.side0_seat_number = 2
        assert (match.side_of(alice.seat), match.seat_number_of(0)) == (1, 2)


class TestAdmin:
    def test_every_admin_list_and_page_opens(self, room, admin_client):
        match = current_match(room)
        objects = {
            "room": room.pk,
            "seat": room.seats.first().pk,
            "match": match.pk,
            "game": match.games.get().pk,
            "turn": Turn.objects.first().pk,
        }
        for name, pk in objects.items():
            assert admin_client.get(f"/admin/games/{name}/").status_code == 200
            assert admin_client.get(f"/admin/games/{name}/{pk}/change/").status_code == 200

    def test_the_admin_never_shows_a_running_seed_or_a_token_hash(self, room, alice, admin_client):
        game = current_match(room).games.get()
        seed = bytes(game.seed).hex()
        pages = [
            "/admin/games/game/",
            f"/admin/games/game/{game.pk}/change/",
            f"/admin/games/match/{game.match_id}/change/",
            "/admin/games/seat/",
            f"/admin/games/seat/{alice.seat.pk}/change/",
            f"/admin/games/room/{room.pk}/change/",
        ]
        for page in pages:
            content = admin_client.get(page).content.decode()
            assert seed not in content
            assert alice.seat.token_hash not in content and alice.token not in content

    def test_a_finished_games_seed_is_shown(self, room, alice, admin_client):
        services.match_resign(seat=alice.seat, version=1)
        game = Game.objects.get()
        content = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
        assert bytes(game.seed).hex() in content


def test_rooms_with_a_bot_mark_its_seat(db, clock, dice):
    seat = services.room_create(rules=MatchRules(), nickname="ana", bot="empresario")
    room = Room.objects.get(pk=seat.room_id)
    assert [s.is_bot for s in room.seats.order_by("number")] == [False, True]
