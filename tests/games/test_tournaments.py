"""Tournaments through the services: hosting, joining, the bracket's matches as
ordinary rooms, every way a match ends advancing its winner, withdrawals, the
league's standings, the clock, the emails.

Runs on SQLite and PostgreSQL; the races are in test_tournaments_concurrency.py.
"""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import Rating, Vacation
from games import mail, selectors, services
from games.lib import deadlines
from games.lib.errors import BadInput, Conflict, Forbidden
from games.models import (
    Entry,
    FollowUp,
    Match,
    Room,
    Seat,
    Tournament,
    TournamentMatch,
)
from games.selectors import tournaments as read
from games.services.tournaments import HOSTED_AT_ONCE
from tests.helpers import make_player, sent


@pytest.fixture
def players(db, clock, dice):
    """Eight accounts, rated 1800 down to 1450 (p1 the best)."""
    found = []
    for number in range(1, 9):
        user = make_player(f"p{number}")
        Rating.objects.create(user=user, rating=1850 - 50 * number, matches=1)
        found.append(user)
    return found


def knockout_of(players, count=None, **options):
    """A knockout to 3 points filled with `count` of them (all by default)."""
    count = count or len(players)
    fields = {
        "host": None,
        "name": "Copa",
        "kind": "knockout",
        "capacity": count,
        "lengths": [3],
    } | options
    tournament = services.tournament_create(**fields)
    for user in players[:count]:
        services.tournament_join(tournament=tournament, user=user)
    tournament.refresh_from_db()
    return tournament


def seat_of(row: TournamentMatch, user) -> Seat:
    return Seat.objects.get(room_id=row.room_id, user=user)


def resign(row: TournamentMatch, loser) -> None:
    """The loser gives up the whole match (Rendirse), through the services."""
    match = Match.objects.get(room_id=row.room_id)
    services.match_resign(seat=seat_of(row, loser), version=match.version)


def place(tournament, round_, index, group=0) -> TournamentMatch:
    return TournamentMatch.objects.get(
        tournament=tournament, group=group, round=round_, index=index
    )


def test_a_full_knockout_starts_seeded_by_rating_and_opens_its_first_round(players):
    tournament = knockout_of(list(reversed(players)))  # joined worst first
    assert tournament.status == Tournament.Status.RUNNING
    seeds = dict(Entry.objects.values_list("user__username", "seed"))
    assert seeds == {f"p{n}": n for n in range(1, 9)}
    first = TournamentMatch.objects.filter(tournament=tournament, round=1).order_by("index")
    pairs = [(row.player_a.user.username, row.player_b.user.username) for row in first]
    assert pairs == [("p1", "p8"), ("p4", "p5"), ("p2", "p7"), ("p3", "p6")]
    assert all(row.status == "playing" and row.room_id for row in first)
    room = first[0].room
    assert room.rules == {
        "format": "match",
        "length": 3,
        "auto_doubles": False,
        "max_auto_doubles": 1,
        "beavers": False,
        "jacoby": False,
    }
    assert room.rated and room.status == Room.Status.PLAYING
    assert TournamentMatch.objects.filter(tournament=tournament, room__isnull=True).count() == 3


def test_the_next_match_opens_when_both_players_are_known_not_when_the_round_ends(players):
    tournament = knockout_of(players)
    p1, p4, p5, p8 = players[0], players[3], players[4], players[7]
    resign(place(tournament, 1, 0), p8)
    semi = place(tournament, 2, 0)
    assert (semi.player_a.user, semi.player_b, semi.room) == (p1, None, None)
    resign(place(tournament, 1, 1), p4)  # the lower seed wins
    semi.refresh_from_db()
    assert (semi.player_a.user, semi.player_b.user) == (p1, p5)
    assert semi.status == "playing" and semi.room.rules["length"] == 3
    # The rest of the round still plays.
    assert place(tournament, 1, 2).status == "playing"
    assert Entry.objects.get(user=p4).status == Entry.Status.OUT


def test_each_player_hears_of_their_next_match_once(players, mailoutbox, clock):
    tournament = knockout_of(players)
    resign(place(tournament, 1, 0), players[7])
    resign(place(tournament, 1, 1), players[4])
    semi = place(tournament, 2, 0)
    owed = FollowUp.objects.filter(task="games.tasks.tournament_match_email", args=[semi.pk])
    assert owed.count() == 1
    mailoutbox.clear()
    assert mail.send_tournament_match(tournament_match_id=semi.pk) == 2
    assert mail.send_tournament_match(tournament_match_id=semi.pk) == 0
    assert sent(mailoutbox) == {
        ("p1@example.com", "Copa: tu próximo encuentro, contra p4"): 1,
        ("p4@example.com", "Copa: tu próximo encuentro, contra p1"): 1,
    }
    assert semi.room.slug in mailoutbox[0].body


def test_a_tournament_room_tells_no_one_that_an_opponent_sat_down(players):
    tournament = knockout_of(players, count=4)
    row = place(tournament, 1, 0)
    assert mail.send_opponent_joined(room_id=row.room_id) == 0


def test_byes_send_the_top_seeds_straight_to_the_second_round(players):
    tournament = knockout_of(players, count=6)
    assert TournamentMatch.objects.filter(tournament=tournament).count() == 5
    first = TournamentMatch.objects.filter(tournament=tournament, round=1)
    assert first.count() == 2 and all(row.room_id for row in first)
    semi = place(tournament, 2, 0)
    assert semi.player_a.user == players[0] and semi.player_b is None


def test_a_knockout_played_to_the_end_has_a_champion_and_rated_matches(players):
    tournament = knockout_of(players, count=4)
    p1, p2, p3, p4 = players[:4]
    resign(place(tournament, 1, 0), p4)
    resign(place(tournament, 1, 1), p2)
    final = place(tournament, 2, 0)
    assert final.length == 3 and final.room.rules["length"] == 3
    resign(final, p1)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner == p3
    assert Match.objects.filter(rated_length__isnull=False).count() == 3


def test_the_final_may_be_longer_even_when_short_of_players(players, clock):
    tournament = knockout_of(players, lengths=[1, 3, 5])
    assert [place(tournament, r, 0).length for r in (1, 2, 3)] == [1, 3, 5]
    shorter = services.tournament_create(
        host=None, name="Corta", kind="knockout", capacity=8, minimum=4, lengths=[1, 3, 5]
    )
    for user in players[:4]:
        services.tournament_join(tournament=shorter, user=user)
    clock.tick(timedelta(days=7))
    services.tournament_start_due(tournament_id=shorter.pk)
    assert [place(shorter, r, 0).length for r in (1, 2)] == [1, 5]


def test_a_win_by_absence_advances_the_waiting_player(players, clock):
    tournament = knockout_of(players, count=4)
    row = place(tournament, 1, 0)
    match = Match.objects.get(room=row.room)
    absent = match.turn_seat
    clock.tick(timedelta(days=2, minutes=1))
    assert services.absence_close(match_id=match.pk) is not None
    row.refresh_from_db()
    assert row.status == "finished" and row.winner.user_id != absent.user_id
    assert place(tournament, 2, 0).player_a.user_id == row.winner.user_id


def test_an_expired_room_counts_as_a_loss_for_the_player_it_waited_for(players, clock):
    tournament = knockout_of(players, count=4)
    row = place(tournament, 1, 0)
    match = Match.objects.get(room=row.room)
    match.absence_waived_for = match.turn_started_at  # the waiting player kept waiting
    match.save()
    absent = match.turn_seat
    clock.tick(timedelta(days=7, minutes=1))
    assert services.room_expire(room_id=row.room_id) is not None
    row.refresh_from_db()
    assert row.status == "finished" and row.winner.user_id != absent.user_id


def test_withdrawing_forfeits_the_open_match_and_makes_the_next_a_walkover(players):
    tournament = knockout_of(players, count=4)
    p1, p2, p3, p4 = players[:4]
    resign(place(tournament, 1, 0), p4)  # p1 reaches the final
    services.tournament_withdraw(tournament=tournament, user=p1)
    final = place(tournament, 2, 0)
    assert final.status == "waiting" and final.player_a.user == p1
    resign(place(tournament, 1, 1), p3)  # p2 reaches the final, against a withdrawn p1
    final.refresh_from_db()
    assert final.decided == "walkover" and final.winner.user == p2 and final.room_id is None
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner == p2


def test_withdrawing_during_a_match_loses_it_at_once(players):
    tournament = knockout_of(players, count=4)
    p1, p4 = players[0], players[3]
    row = place(tournament, 1, 0)
    services.tournament_withdraw(tournament=tournament, user=p4)
    row.refresh_from_db()
    match = Match.objects.get(room=row.room)
    assert match.status == Match.Status.FINISHED
    assert row.winner.user == p1 and row.decided == "play"
    assert Entry.objects.get(user=p4).status == Entry.Status.WITHDRAWN
    with pytest.raises(Conflict) as refused:
        services.tournament_withdraw(tournament=tournament, user=p4)
    assert refused.value.code == "already_withdrawn"


def test_a_tournament_room_offers_no_rematch(players):
    tournament = knockout_of(players, count=4)
    row = place(tournament, 1, 0)
    resign(row, players[3])
    with pytest.raises(Conflict) as refused:
        services.rematch_offer(seat=seat_of(row, players[0]))
    assert refused.value.code == "tournament_room"


def test_joining_checks_the_band_the_seats_and_twice(players):
    tournament = services.tournament_create(
        host=None, name="Banda", kind="knockout", capacity=4, lengths=[1], rating_max=1700
    )
    with pytest.raises(Forbidden) as refused:
        services.tournament_join(tournament=tournament, user=players[0])  # 1800
    assert refused.value.code == "tournament_rating"
    services.tournament_join(tournament=tournament, user=players[5])
    with pytest.raises(Conflict) as again:
        services.tournament_join(tournament=tournament, user=players[5])
    assert again.value.code == "already_entered"
    services.tournament_leave(tournament=tournament, user=players[5])
    assert not Entry.objects.exists()
    for user in players[4:8]:
        services.tournament_join(tournament=tournament, user=user)
    with pytest.raises(Conflict) as late:
        services.tournament_join(tournament=tournament, user=players[3])
    assert late.value.code == "tournament_not_open"
    with pytest.raises(Conflict):
        services.tournament_leave(tournament=tournament, user=players[4])


def test_an_account_hosts_two_at_once_of_32_players_at_most(players):
    for number in range(HOSTED_AT_ONCE):
        services.tournament_create(
            host=players[0], name=f"Mío {number}", kind="league", capacity=8, lengths=[3]
        )
    with pytest.raises(Conflict) as refused:
        services.tournament_create(
            host=players[0], name="Otro", kind="league", capacity=8, lengths=[3]
        )
    assert refused.value.code == "too_many_tournaments"
    with pytest.raises(BadInput):
        services.tournament_create(
            host=players[1], name="Grande", kind="knockout", capacity=64, lengths=[3]
        )
    with pytest.raises(Forbidden):
        services.tournament_create(
            host=AnonymousUser(), name="x", kind="league", capacity=8, lengths=[3]
        )


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "swiss"},
        {"capacity": 3},
        {"capacity": 65},
        {"lengths": []},
        {"lengths": [26]},
        {"lengths": [3, 3, 3, 3]},  # 8 players play 3 rounds
        {"name": ""},
        {"name": "x\x00"},
        {"days_per_move": 4},
        {"minimum": 9},
        {"rating_min": 1900, "rating_max": 1500},
    ],
)
def test_a_bad_tournament_is_refused_and_writes_nothing(players, bad):
    fields = {"host": None, "name": "Copa", "kind": "knockout", "capacity": 8, "lengths": [3]}
    with pytest.raises(BadInput):
        services.tournament_create(**(fields | bad))
    assert not Tournament.objects.exists()


def test_an_unfilled_tournament_is_cancelled_at_its_start_with_a_word(players, clock, mailoutbox):
    tournament = services.tournament_create(
        host=None, name="Diario", kind="knockout", capacity=8, lengths=[5]
    )
    for user in players[:3]:
        services.tournament_join(tournament=tournament, user=user)
    assert services.tournament_start_due(tournament_id=tournament.pk) is None  # not yet
    clock.tick(timedelta(days=7))
    services.tournament_start_due(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert mail.send_tournament_cancelled(tournament_id=tournament.pk) == 3
    assert mail.send_tournament_cancelled(tournament_id=tournament.pk) == 0
    assert {m.to[0] for m in mailoutbox} == {"p1@example.com", "p2@example.com", "p3@example.com"}


def test_with_its_minimum_it_starts_at_its_start_not_full(players, clock):
    tournament = services.tournament_create(
        host=None, name="Liga", kind="league", capacity=8, minimum=4, lengths=[3]
    )
    for user in players[:5]:
        services.tournament_join(tournament=tournament, user=user)
    clock.tick(timedelta(days=7))
    services.tournament_start_due(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert TournamentMatch.objects.filter(tournament=tournament, status="playing").count() == 10


def test_a_league_opens_every_pairing_at_once_and_ends_with_its_last_match(players):
    tournament = services.tournament_create(
        host=None, name="Liga", kind="league", capacity=4, lengths=[3]
    )
    p1, p2, p3, p4 = players[:4]
    for user in (p1, p2, p3, p4):
        services.tournament_join(tournament=tournament, user=user)
    rows = list(TournamentMatch.objects.filter(tournament=tournament))
    assert len(rows) == 6 and all(row.status == "playing" for row in rows)
    pairs = {frozenset((row.player_a.user, row.player_b.user)) for row in rows}
    assert len(pairs) == 6
    # p2 wins everything; p1 beats p3 and p4; p3 beats p4.
    beats = {(p2, p1), (p2, p3), (p2, p4), (p1, p3), (p1, p4), (p3, p4)}
    for row in rows:
        a, b = row.player_a.user, row.player_b.user
        resign(row, b if (a, b) in beats else a)
        tournament.refresh_from_db()
        assert tournament.status == (
            Tournament.Status.FINISHED if row == rows[-1] else Tournament.Status.RUNNING
        )
    table = read.standings_of(tournament)[0]["rows"]
    assert [(r["name"], r["wins"]) for r in table] == [("p2", 3), ("p1", 2), ("p3", 1), ("p4", 0)]
    assert tournament.winner == p2


def test_a_tournament_match_runs_on_its_days_per_move(players, clock):
    tournament = knockout_of(players, count=4, days_per_move=3)
    match = Match.objects.get(room=place(tournament, 1, 0).room)
    assert match.absence_due_at == match.turn_started_at + timedelta(days=3)


def test_a_vacation_stops_a_tournament_turn_no_longer_than_its_cap(players, clock):
    tournament = knockout_of(players, count=4, vacation_cap_days=2)
    match = Match.objects.get(room=place(tournament, 1, 0).room)
    away = match.turn_seat.user
    services.vacation_start(user=away, days=10)
    match.refresh_from_db()
    # Two days of the move, plus two of vacation at most: not ten.
    assert match.absence_due_at == match.turn_started_at + timedelta(days=4)
    assert Vacation.objects.filter(user=away).exists()


def test_the_default_clock_is_still_the_seeds_two_days():
    assert deadlines.absence_after(None) == deadlines.ABSENCE_AFTER == timedelta(days=2)
    assert deadlines.absence_after(5) == timedelta(days=5)


def test_a_room_by_link_may_choose_its_days_per_move(db, clock, dice):
    host = services.room_create(rules={"format": "single", "length": 0}, nickname="Ana")
    assert host.room.days_per_move == 2
    other = services.room_create(
        rules={"format": "single", "length": 0}, nickname="Ana", days_per_move="5"
    )
    assert other.room.days_per_move == 5
    with pytest.raises(BadInput):
        services.room_create(
            rules={"format": "single", "length": 0}, nickname="Ana", days_per_move=4
        )


def test_the_bracket_is_rebuilt_from_the_results_alone(players):
    tournament = knockout_of(players)
    resign(place(tournament, 1, 0), players[7])
    resign(place(tournament, 1, 1), players[3])
    resign(place(tournament, 2, 0), players[0])
    assert read.replayed_pairings(tournament) == read.stored_pairings(tournament)
    TournamentMatch.objects.filter(tournament=tournament, round=2).update(player_b=None)
    assert read.replayed_pairings(tournament) != read.stored_pairings(tournament)


def test_a_challenge_may_choose_its_days_per_move(players):
    challenge = services.challenge_post(
        author=players[0], rules={"format": "match", "length": 3}, days_per_move=5
    )
    seat = services.challenge_accept(challenge=challenge, user=players[1])
    assert seat.room.days_per_move == 5
    match = Match.objects.get(room=seat.room)
    assert match.absence_due_at == match.turn_started_at + timedelta(days=5)


def test_the_board_of_a_tournament_match_offers_no_rematch_and_states_its_clock(players):
    tournament = knockout_of(players, count=4, days_per_move=3)
    row = place(tournament, 1, 0)
    resign(row, players[3])
    state = selectors.room_state(row.room, seat_of(row, players[0]))
    assert state["room"]["days_per_move"] == 3
    assert "rematch_offer" not in state["match"]["allowed"]


def test_the_absence_email_names_the_rooms_own_days(players, clock, mailoutbox):
    tournament = knockout_of(players, count=4, days_per_move=3)
    match = Match.objects.get(room=place(tournament, 1, 0).room)
    clock.tick(timedelta(days=3, minutes=1))
    services.absence_close(match_id=match.pk)
    clock.tick(timedelta(minutes=5))
    mailoutbox.clear()
    assert mail.send_match_ended(match_id=match.pk) == 2
    bodies = " ".join(message.body for message in mailoutbox)
    assert "sus 3 días para jugar" in bodies and "tus 3 días para jugar" in bodies


def test_the_beat_keeps_one_of_each_site_tournament_open_and_starts_or_cancels_them(
    players, clock, settings
):
    from games import tasks
    from games.services.site_tournaments import SITE_TOURNAMENTS

    schedule = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {
        "games.tasks.start_due_tournaments",
        "games.tasks.keep_site_tournaments_open",
    } <= schedule
    assert tasks.keep_site_tournaments_open() == len(SITE_TOURNAMENTS)
    assert tasks.keep_site_tournaments_open() == 0
    daily = Tournament.objects.get(site_key="daily-knockout-5")
    for user in players:
        services.tournament_join(tournament=daily, user=user)  # full: it starts
    assert tasks.keep_site_tournaments_open() == 1  # the next daily one
    assert Tournament.objects.filter(site_key="daily-knockout-5", status="open").count() == 1
    clock.tick(timedelta(days=1))
    # The new daily one (empty) is cancelled at its start; the others are not due yet.
    assert tasks.start_due_tournaments() == 1
    assert Tournament.objects.filter(status="cancelled").count() == 1
    assert tasks.keep_site_tournaments_open() == 1
