"""Ratings, written by the unit of work that ends a match, and their recompute.

ana and ben are accounts; the expected numbers are worked by hand from the
FIBS formula (accounts.fibs): two newcomers at 1500 (K = 5) in a 1-point
match move 4·1·1/2·5 = 10 points each way; in a 5-point match 10·√5.
"""

import math
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from accounts.models import Rating, RatingChange
from games import selectors, services
from games.engine import Format, MatchRules
from games.models import Match, Room
from games.selectors import ratings
from tests.helpers import Persona, account, current_match, post_json, seat_on_turn


def table(ana_user, ben_user, dice, *, rules=None, rated=True, opening=(3, 1)):
    """A room between two accounts, ana at seat 1 (she opens with 3-1), ben at seat 2."""
    seat = services.room_create(
        rules=rules or MatchRules(), nickname="ana", user=ana_user, rated=rated
    )
    dice.push(opening)
    other = services.room_join(room=seat.room, nickname="ben", user=ben_user)
    return Persona("ana", seat=seat), Persona("ben", seat=other)


def resign(persona):
    room = persona.seat.room
    return services.match_resign(seat=persona.seat, version=current_match(room).version)


def rating(user):
    return Rating.objects.get(user=user)


class TestARatedMatch:
    def test_a_partida_simple_between_two_newcomers_moves_each_ten_points(
        self, ana, ben, clock, dice
    ):
        a, b = table(ana, ben, dice)
        match = resign(b)
        assert match.rated_length == 1
        assert (rating(ana).rating, rating(ana).experience, rating(ana).matches) == (1510.0, 1, 1)
        assert (rating(ben).rating, rating(ben).experience, rating(ben).matches) == (1490.0, 1, 1)

    def test_each_player_gets_a_history_row_with_old_new_delta_opponent_and_match(
        self, ana, ben, clock, dice
    ):
        a, b = table(ana, ben, dice)
        match = resign(b)
        won = RatingChange.objects.get(player=rating(ana))
        lost = RatingChange.objects.get(player=rating(ben))
        assert (won.rating_before, won.rating_after, won.delta) == (1500.0, 1510.0, 10.0)
        assert (lost.rating_before, lost.rating_after, lost.delta) == (1500.0, 1490.0, -10.0)
        assert won.opponent == rating(ben) and lost.opponent == rating(ana)
        assert won.match_id == lost.match_id == match.pk
        assert won.won and not lost.won
        assert won.created_at == match.ended_at

    def test_a_win_by_absence_counts_as_a_win_in_a_match_to_five(self, ana, ben, clock, dice):
        a, b = table(ana, ben, dice, rules=MatchRules(format=Format.MATCH, length=5))
        on_turn = seat_on_turn(a.seat.room, a, b)
        waiting = b if on_turn is a else a
        clock.tick(timedelta(hours=48))
        services.game_claim_absence(seat=waiting.seat, version=current_match(a.seat.room).version)
        winner = ana if waiting is a else ben
        assert rating(winner).rating == pytest.approx(1500 + 10 * math.sqrt(5), abs=1e-9)
        assert rating(winner).experience == 5

    def test_the_second_match_starts_from_the_first_ones_ratings(self, ana, ben, clock, dice):
        a, b = table(ana, ben, dice)
        resign(b)
        a2, b2 = table(ana, ben, dice)
        resign(b2)
        # D = 20, n = 1: P_upset = 1/(10^(20/2000) + 1); the favourite (ana) won, K = 5 - 1/100.
        p = 1 / (10**0.01 + 1)
        assert rating(ana).rating == pytest.approx(1510 + 4 * p * 4.99, abs=1e-9)
        assert rating(ben).rating == pytest.approx(1490 - 4 * p * 4.99, abs=1e-9)
        assert rating(ana).experience == 2


class TestWhatIsNotRated:
    def test_a_room_created_unrated_changes_nobody(self, ana, ben, clock, dice):
        a, b = table(ana, ben, dice, rated=False)
        match = resign(b)
        assert match.rated_length is None
        assert not Rating.objects.filter(bot="").exists() and not RatingChange.objects.exists()

    def test_a_sesion_libre_is_never_rated(self, ana, ben, clock, dice):
        a, b = table(ana, ben, dice, rules=MatchRules(format=Format.SESSION))
        match = resign(b)
        assert match.status == Match.Status.FINISHED and match.rated_length is None
        assert not RatingChange.objects.exists()

    def test_a_guest_is_not_rated_and_neither_is_the_account_against_them(self, ana, clock, dice):
        seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
        dice.push((3, 1))
        guest = services.room_join(room=seat.room, nickname="visita")
        resign(Persona("visita", seat=guest))
        assert not Rating.objects.filter(bot="").exists()

    def test_an_expired_room_counts_for_no_one(self, ana, ben, clock, dice):
        a, b = table(ana, ben, dice)
        clock.tick(timedelta(days=7))
        services.room_expire(room_id=a.seat.room_id)
        assert Room.objects.get(pk=a.seat.room_id).status == Room.Status.EXPIRED
        assert not RatingChange.objects.exists()
        assert current_match(a.seat.room).rated_length is None


class TestTheComputerPlayers:
    def test_each_computer_player_has_a_rating_row_from_the_start(self, db):
        from games.bots import BOT_NAMES

        rows = Rating.objects.filter(bot__in=BOT_NAMES)
        assert sorted(rows.values_list("bot", flat=True)) == sorted(BOT_NAMES)
        assert {(r.rating, r.experience, r.matches) for r in rows} == {(1500.0, 0, 0)}

    def test_a_bot_has_a_rating_of_its_own_so_a_newcomer_can_calibrate(self, ana, clock, dice):
        seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana, bot="domador")
        resign(Persona("ana", seat=seat))
        domador = Rating.objects.get(bot="domador")
        assert (domador.rating, domador.user) == (1510.0, None)
        assert rating(ana).rating == 1490.0
        assert RatingChange.objects.get(player=rating(ana)).opponent == domador
        assert ratings.leaderboard()[0] == domador


class TestTheChoiceAtCreation:
    def test_the_api_takes_rated_false_and_refuses_anything_but_a_boolean(self, ana, client):
        client.force_login(ana)
        url = reverse("games:api_create")
        made = post_json(client, url, {"nickname": "ana", "rated": False})
        assert made.status_code == 201 and made.json()["room"]["rated"] is False
        refused = post_json(client, url, {"nickname": "ana", "rated": "no"})
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "bad_rated"
        assert Room.objects.count() == 1

    def test_the_home_form_has_an_unrated_box_and_rates_when_it_is_left_empty(self, ana, client):
        client.force_login(ana)
        home = reverse("games:home")
        assert 'name="unrated"' in client.get(home).content.decode()
        client.post(home, {"opponent": "person", "format": "single", "nickname": "ana"})
        client.post(
            home, {"opponent": "person", "format": "single", "nickname": "ana", "unrated": "on"}
        )
        assert list(Room.objects.order_by("pk").values_list("rated", flat=True)) == [True, False]


class TestTheRecompute:
    def play_a_season(self, ana, ben, carla, clock, dice):
        a, b = table(ana, ben, dice)
        resign(b)
        a, b = table(ana, ben, dice, rules=MatchRules(format=Format.MATCH, length=3))
        resign(a)
        a, c = table(ana, carla, dice, rules=MatchRules(format=Format.MATCH, length=7))
        clock.tick(timedelta(hours=1))
        resign(c)
        seat = services.room_create(rules=MatchRules(), nickname="carla", user=carla, bot="chofer")
        resign(Persona("carla", seat=seat))
        a, b = table(ana, ben, dice, rated=False)
        resign(a)

    def test_recomputing_from_the_match_records_agrees_with_the_stored_ratings(
        self, ana, ben, clock, dice
    ):
        self.play_a_season(ana, ben, account("carla"), clock, dice)
        found = ratings.check_stored()
        assert found.agrees, found.differences
        assert (found.matches, found.players) == (4, 4)
        out = StringIO()
        call_command("recompute_ratings", stdout=out)
        assert "agree with the records: 4 rated matches, 4 players" in out.getvalue()

    def test_a_stored_rating_that_was_tampered_with_is_reported(self, ana, ben, clock, dice):
        self.play_a_season(ana, ben, account("carla"), clock, dice)
        Rating.objects.filter(user=ben).update(rating=1600.0)
        RatingChange.objects.filter(player__user=ana).update(delta=0.5)
        found = ratings.check_stored()
        assert not found.agrees
        assert any(f"('user', {ben.pk}): stored 1600.0" in line for line in found.differences)
        assert sum("stored 0.5" in line for line in found.differences) == 3
        with pytest.raises(CommandError, match="differences"):
            call_command("recompute_ratings", stdout=StringIO(), stderr=StringIO())

    def test_a_guest_seat_claimed_after_the_match_does_not_rate_it_later(
        self, ana, ben, clock, dice
    ):
        seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
        dice.push((3, 1))
        guest = services.room_join(room=seat.room, nickname="visita")
        resign(Persona("visita", seat=guest))
        services.seats_claim_for_user(user=ben, seat_ids=[guest.pk])
        assert ratings.check_stored().agrees
        assert ratings.check_stored().matches == 0


def test_the_leaderboard_reads_best_first(ana, ben, clock, dice):
    a, b = table(ana, ben, dice)
    resign(b)
    board = selectors.ratings.leaderboard()
    assert [r.user for r in board if r.user] == [ana, ben]  # and the computer players
