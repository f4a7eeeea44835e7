"""Vacations: the absence clock and the idle days stand still, the sweeps skip the player.

ana and ben are accounts at one table; the turn passes to whoever must act,
and time moves through the injected clock.
"""

from datetime import timedelta

import pytest
from django.urls import reverse

from accounts.models import Vacation
from games import selectors, services, tasks
from games.engine import MatchRules
from games.lib.errors import BadInput, Conflict, NotSeatHolder
from games.models import Match, Room
from games.selectors import vacations
from games.services.vacations import vacation_end, vacation_start
from tests.helpers import START, Persona, current_match, first_legal_play, post_json

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def seated(ana, ben, clock, dice):
    """ana (seat 1) opens with 3-1 and plays it; then ben is on turn, from START + 1 h."""
    seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
    dice.push((3, 1))
    other = services.room_join(room=seat.room, nickname="ben", user=ben)
    clock.tick(HOUR)
    match = current_match(seat.room)
    services.game_play(seat=seat, version=match.version, play=first_legal_play(seat.room, 0))
    return Persona("ana", seat=seat), Persona("ben", seat=other)


def ben_turn_started(seated):
    match = current_match(seated[0].seat.room)
    assert match.turn_seat_id == seated[1].seat.pk
    return match.turn_started_at


class TestTheSweepsWithVacation:
    def test_one_day_left_then_five_days_away_closes_one_day_after_the_return(
        self, seated, ben, clock
    ):
        started = ben_turn_started(seated)
        clock.tick(DAY)  # one day of ben's two is left
        vacation_start(user=ben, days=5)
        back = clock.at + 5 * DAY
        match = current_match(seated[0].seat.room)
        assert match.absence_due_at == back + DAY
        assert match.absence_due_at == started + 2 * DAY + 5 * DAY
        # Every day of the vacation and the day after it, the sweep closes nothing.
        for _ in range(6):
            clock.tick(DAY - timedelta(minutes=1))
            assert selectors.absent_due() == []
            assert tasks.close_absent_games() == 0
            clock.tick(timedelta(minutes=1))
        assert clock.at == back + DAY
        assert selectors.absent_due() == [match.pk]
        assert tasks.close_absent_games() == 1
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED and match.winner_side == 0

    def test_the_waiting_player_cannot_claim_while_the_clock_stands_still(self, seated, ben, clock):
        ana_p, _ = seated
        clock.tick(DAY)
        vacation_start(user=ben, days=5)
        clock.tick(3 * DAY)
        with pytest.raises(Exception) as refused:
            services.game_claim_absence(
                seat=ana_p.seat, version=current_match(ana_p.seat.room).version
            )
        assert refused.value.code == "too_early"

    def test_no_reminder_goes_out_during_the_vacation(self, seated, ben, clock):
        vacation_start(user=ben, days=3)
        for _ in range(3):
            clock.tick(DAY)
            assert selectors.reminder_due() == []
        clock.tick(DAY)  # back one day: the reminder window of the moved deadline
        assert selectors.reminder_due() == [current_match(seated[0].seat.room).pk]

    def test_a_room_waiting_for_a_player_on_vacation_does_not_expire(self, seated, ben, clock):
        room = seated[0].seat.room
        # ana keeps waiting, so absence never closes it: only the idle days count.
        services.absence_keep_waiting(seat=seated[0].seat, version=current_match(room).version)
        vacation_start(user=ben, days=10)
        clock.tick(8 * DAY)
        assert selectors.idle_rooms_due() == []
        assert tasks.expire_idle_rooms() == 0
        clock.tick(4 * DAY)  # back for 2 days: 9 idle days in all, 7 of them counting
        assert selectors.idle_rooms_due() == [room.pk]
        assert services.room_expire(room_id=room.pk) is None
        clock.tick(5 * DAY)
        assert services.room_expire(room_id=room.pk) is not None
        assert Room.objects.get(pk=room.pk).status == Room.Status.EXPIRED


class TestStartingAndEnding:
    def test_starting_mid_turn_moves_the_deadline_and_coming_back_moves_it_back(
        self, seated, ben, clock
    ):
        started = ben_turn_started(seated)
        clock.tick(10 * HOUR)
        vacation_start(user=ben, days=2)
        match = current_match(seated[0].seat.room)
        assert match.absence_due_at == started + 2 * DAY + 2 * DAY
        clock.tick(5 * HOUR)
        vacation_end(user=ben)
        match.refresh_from_db()
        assert match.absence_due_at == started + 2 * DAY + 5 * HOUR

    def test_a_move_ends_the_vacation_and_the_hours_used_are_counted_to_the_hour(
        self, seated, ben, clock
    ):
        _, ben_p = seated
        vacation_start(user=ben, days=7)
        clock.tick(2 * HOUR + timedelta(minutes=10))
        room = ben_p.seat.room
        services.game_play(
            seat=ben_p.seat, version=current_match(room).version, play=first_legal_play(room, 1)
        )
        row = Vacation.objects.get(user=ben)
        assert row.ended_at == clock.at
        assert vacations.current(ben.pk) is None
        assert vacations.allowance(ben.pk)["hours_used"] == 3  # 2 h 10 min: 3 started hours
        assert vacations.allowance(ben.pk)["hours_left"] == 720 - 3

    def test_a_move_in_one_match_lets_the_clock_run_in_the_others(
        self, seated, ana, ben, clock, dice
    ):
        # A second table where ben is on turn too.
        seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
        dice.push((3, 1))
        services.room_join(room=seat.room, nickname="ben", user=ben)
        services.game_play(
            seat=seat, version=current_match(seat.room).version, play=first_legal_play(seat.room, 0)
        )
        other = current_match(seat.room)
        vacation_start(user=ben, days=5)
        other.refresh_from_db()
        assert other.absence_due_at == other.turn_started_at + 5 * DAY + 2 * DAY
        clock.tick(HOUR)
        _, ben_p = seated
        room = ben_p.seat.room
        services.game_play(
            seat=ben_p.seat, version=current_match(room).version, play=first_legal_play(room, 1)
        )
        other.refresh_from_db()
        assert other.absence_due_at == other.turn_started_at + 2 * DAY + HOUR

    def test_thirty_days_a_year_and_not_one_hour_more(self, ben, clock):
        vacation_start(user=ben, days=20)
        with pytest.raises(Conflict) as twice:
            vacation_start(user=ben, days=1)
        assert twice.value.code == "on_vacation"
        clock.tick(20 * DAY)
        with pytest.raises(Conflict) as too_long:
            vacation_start(user=ben, days=11)
        assert too_long.value.code == "no_vacation_left"
        assert vacation_start(user=ben, days=10).ends_at == clock.at + 10 * DAY
        assert vacations.allowance(ben.pk)["hours_left"] == 0

    @pytest.mark.parametrize("days", [0, 31, -1, "x", None, True, 2.5])
    def test_the_days_are_a_whole_number_from_1_to_30(self, ben, clock, days):
        with pytest.raises(BadInput) as refused:
            vacation_start(user=ben, days=days)
        assert refused.value.code == "bad_vacation_days"
        assert not Vacation.objects.exists()

    def test_a_guest_has_no_vacation(self, db, clock):
        with pytest.raises(NotSeatHolder):
            vacation_start(user=None, days=3)

    def test_coming_back_when_not_away_is_a_conflict(self, ben, clock):
        with pytest.raises(Conflict) as refused:
            vacation_end(user=ben)
        assert refused.value.code == "not_on_vacation"


class TestWhatTheTableSees:
    def test_the_opponent_sees_until_when_and_a_spectator_does_not(self, seated, ana, ben, clock):
        room = seated[0].seat.room
        vacation_start(user=ben, days=3)
        until = (START + HOUR + 3 * DAY).isoformat()
        state = selectors.room_state(room, seated[0].seat)
        assert [s["away_until"] for s in state["seats"]] == [None, until]
        spectator = selectors.room_state(room, None)
        assert [s["away_until"] for s in spectator["seats"]] == [None, None]
        page = seated[0].client
        page.force_login(ana)
        html = page.get(reverse("games:room", args=[room.slug])).content.decode()
        # The moment for the page's script to write in the reader's zone; UTC without it.
        assert (
            'ben está de vacaciones hasta el <time datetime="2026-03-05T10:00:00+00:00" '
            "data-moment>5 de marzo de 2026 a las 10:00 (UTC)</time>." in html
        )

    def test_the_vacation_page_starts_and_ends_a_vacation(self, ben, clock, client):
        client.force_login(ben)
        url = reverse("games:vacation")
        assert "Te quedan 30 días este año (720 horas)" in client.get(url).content.decode()
        client.post(url, {"days": "4"})
        assert vacations.current(ben.pk).ends_at == START + 4 * DAY
        assert "Volver ya" in client.get(url).content.decode()
        client.post(url, {"end": "1"})
        assert vacations.current(ben.pk) is None

    def test_the_vacation_page_asks_to_log_in(self, db, client):
        response = client.get(reverse("games:vacation"))
        assert response.status_code == 302 and "/entrar/" in response["Location"]

    def test_the_api_starts_a_vacation_and_says_how_many_days_are_left(self, ben, clock, client):
        client.force_login(ben)
        url = reverse("games:api_vacation")
        answer = post_json(client, url, {"days": 2})
        assert answer.status_code == 200
        assert answer.json() == {
            "on_vacation": True,
            "until": (START + 2 * DAY).isoformat(),
            "hours_used": 48,
            "hours_left": 672,
            "days_left": 28,
        }
        refused = post_json(client, url, {"days": 40})
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "bad_vacation_days"
        assert post_json(client, url, {"end": True}).json()["on_vacation"] is False

    def test_the_api_refuses_a_guest(self, db, client):
        answer = client.get(reverse("games:api_vacation"))
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "login_required"


def test_no_daily_digest_goes_to_a_player_on_vacation(seated, ben, clock, mailoutbox):
    from accounts.models import Notify, Profile
    from games.mail import messages

    Profile.objects.update_or_create(
        user=ben, defaults={"notify": Notify.DAILY, "email_confirmed": True}
    )
    vacation_start(user=ben, days=2)
    assert messages.send_daily_digests() == 0
    clock.tick(3 * DAY)
    assert messages.send_daily_digests() == 1


def test_mis_partidas_shows_the_deadline_moved_by_the_vacation(seated, ben, clock):
    _, ben_p = seated
    started = ben_turn_started(seated)
    vacation_start(user=ben, days=4)
    (line,) = selectors.rooms_for_seats([ben_p.seat])
    assert line["your_turn"] and line["deadline"] == started + 2 * DAY + 4 * DAY
    assert line["hours_left"] == 6 * 24


def test_the_board_state_reads_the_vacations_in_one_query(seated, ana, ben, clock, dice):
    from tests.helpers import queries_of

    ana_p, _ = seated
    room = ana_p.seat.room
    before = queries_of(lambda: selectors.room_state(room, ana_p.seat))
    vacation_start(user=ben, days=4)
    # Both players away: still one query for every seat's vacations.
    vacation_start(user=ana, days=2)
    assert queries_of(lambda: selectors.room_state(room, ana_p.seat)) == before
    state = selectors.room_state(room, ana_p.seat)
    assert (
        state["match"]["absence"]["claimable_at"]
        == (ben_turn_started(seated) + 6 * DAY).isoformat()
    )
