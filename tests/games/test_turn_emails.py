"""The "Es tu turno" email itself says what happened, in the reader's language:
the subject names the opponent and the match, the body the news, the score and
the deadline (the wording of each situation: tests/games/test_turn_news.py)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import Profile
from accounts.recipients import recipient_for_seat
from games import services, tasks
from games.engine import Format, MatchRules
from games.models import FollowUp, Seat
from tests.helpers import current_match, first_legal_play, version_of

pytestmark = pytest.mark.django_db


def mail_to(seat, language="es"):
    Seat.objects.filter(pk=seat.pk).update(
        email=f"{seat.nickname}@example.com", email_consent=True, language=language
    )


def send(room):
    match = current_match(room)
    return tasks.turn_email(match.pk, match.version)


def test_a_double_to_answer_is_the_subject_with_the_match_and_its_score(clock, dice, mailoutbox):
    alice = services.room_create(rules=MatchRules(format=Format.MATCH, length=5), nickname="ana")
    dice.push((3, 1))
    bob = services.room_join(room=alice.room, nickname="beto")
    mail_to(alice)
    room = alice.room
    services.game_play(seat=alice, version=version_of(room), play=[[8, 5], [6, 5]])
    clock.tick(timedelta(hours=1))
    services.game_double(seat=bob, version=version_of(room))
    clock.tick(timedelta(hours=1))
    assert send(room) is True
    [email] = mailoutbox
    assert email.subject == "beto te dobla a 2 en el match a 5 puntos (tú 0, beto 0)"
    assert "beto te dobla: si aceptas, la partida pasa a valer 2." in email.body
    assert "Te toca decidir: aceptar el cubo o rechazarlo" in email.body
    assert "Marcador: tú 0, beto 0, en un match a 5 puntos." in email.body
    assert "Tienes hasta el 4 de marzo de 2026 a las 10:00 (hora de UTC)" in email.body
    html = email.alternatives[0][0]
    assert "beto te dobla: si aceptas" in html and "Marcador: tú 0, beto 0" in html


def test_a_rematch_that_only_had_its_opening_roll_never_says_the_opponent_moved(
    clock, dice, mailoutbox
):
    host = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((3, 1))
    guest = services.room_join(room=host.room, nickname="beto")
    room = host.room
    services.game_play(seat=host, version=version_of(room), play=[[8, 5], [6, 5]])
    services.match_resign(seat=guest, version=version_of(room))
    services.rematch_offer(seat=host)
    dice.push((2, 5))  # colours swap: beto is side 0 now, ana's 5 beats his 2
    services.rematch_accept(seat=guest)
    mail_to(host, language="en")
    clock.tick(timedelta(hours=1))
    assert current_match(room).turn_seat_id == host.pk
    assert send(room) is True
    [email] = mailoutbox
    assert email.subject == "The rematch against beto begins: the single game"
    assert "Opening roll: you rolled 5 and beto 2, so you start with 5-2." in email.body
    assert "played" not in email.body  # the old "beto already moved" lie
    assert "You have until March 4, 2026, 9 a.m. (UTC time)" in email.body


def test_two_tables_in_one_email_each_say_their_own_news(clock, dice, mailoutbox):
    first = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((3, 1))
    me = services.room_join(
        room=first.room, nickname="beto", email="beto@example.com", email_consent=True
    )
    second = services.room_create(rules=MatchRules(format=Format.MATCH, length=3), nickname="dora")
    dice.push((3, 1))
    services.room_join(
        room=second.room, nickname="beto", email="beto@example.com", email_consent=True
    )
    services.game_play(seat=first, version=1, play=[[8, 5], [6, 5]])
    services.game_play(seat=second, version=1, play=[[24, 21], [21, 20]])
    clock.tick(timedelta(hours=1))
    assert send(first.room) is True
    [email] = mailoutbox
    assert email.subject == "Es tu turno en 2 partidas de Mesa"
    assert (
        "Contra ana, en la partida simple: ana jugó 3-1: 8/5 6/5. "
        "La mesa ya tiró tus dados: te toca mover con 5-1."
    ) in email.body
    assert (
        "Contra dora, en el match a 3 puntos (tú 0, dora 0): dora jugó 3-1: 24/20. "
        "Te toca doblar o tirar."
    ) in email.body
    assert email.to == [me.email]


def test_the_deadline_is_in_the_time_zone_the_browser_gave_when_joining(
    clock, dice, mailoutbox, client
):
    host = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((3, 1))
    response = client.post(
        reverse("games:join", args=[host.room.slug]),
        {
            "nickname": "beto",
            "email": "beto@example.com",
            "email_consent": "on",
            "time_zone": "Europe/Madrid",
        },
    )
    assert response.status_code == 302
    guest = Seat.objects.get(room=host.room, number=2)
    assert guest.time_zone == "Europe/Madrid"
    Seat.objects.filter(pk=guest.pk).update(last_seen_at=None)
    services.game_play(seat=host, version=version_of(host.room), play=[[8, 5], [6, 5]])
    clock.tick(timedelta(hours=1))
    assert send(host.room) is True
    [email] = mailoutbox
    # 09:00 UTC plus two days is 10:00 in Madrid (winter time).
    assert "Tienes hasta el 4 de marzo de 2026 a las 10:00 (hora de Europe/Madrid)" in email.body


def test_an_unknown_time_zone_is_dropped_and_the_mail_says_utc(clock, dice):
    host = services.room_create(rules=MatchRules(), nickname="ana", time_zone="Mars/Olympus")
    assert host.time_zone == ""
    dice.push((3, 1))
    guest = services.room_join(room=host.room, nickname="beto", time_zone="Asia/Tokyo")
    assert guest.time_zone == "Asia/Tokyo"


def test_an_accounts_profile_zone_comes_before_the_seats(clock, dice, mailoutbox):
    user = get_user_model().objects.create_user("carla", "carla@example.com", "x-Long-pass-1")
    Profile.objects.filter(user=user).update(email_confirmed=True, time_zone="Asia/Tokyo")
    host = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((3, 1))
    guest = services.room_join(room=host.room, nickname="carla", user=user, time_zone="UTC")
    Seat.objects.filter(pk=guest.pk).update(last_seen_at=None)
    assert recipient_for_seat(Seat.objects.get(pk=guest.pk)).time_zone == "Asia/Tokyo"
    services.game_play(seat=host, version=version_of(host.room), play=[[8, 5], [6, 5]])
    assert send(host.room) is True
    [email] = mailoutbox
    assert "4 de marzo de 2026 a las 18:00 (hora de Asia/Tokyo)" in email.body


def test_the_profile_keeps_a_known_time_zone_and_refuses_an_unknown_one(db, client):
    user = get_user_model().objects.create_user("dani", "dani@example.com", "x-Long-pass-1")
    client.force_login(user)
    fields = {"display_name": "", "language": "es", "notify": "turn"}
    client.post(reverse("accounts:profile"), {**fields, "time_zone": "America/Lima"})
    assert Profile.objects.get(user=user).time_zone == "America/Lima"
    response = client.post(reverse("accounts:profile"), {**fields, "time_zone": "Nowhere/Here"})
    assert response.status_code == 200
    assert Profile.objects.get(user=user).time_zone == "America/Lima"


def test_the_json_api_takes_the_time_zone_too_and_ignores_a_wrong_type(db, client):
    body = {"rules": {"format": "single"}, "nickname": "ana", "time_zone": "Europe/Lisbon"}
    response = client.post(reverse("games:api_create"), body, content_type="application/json")
    assert response.status_code == 201
    assert Seat.objects.get(nickname="ana").time_zone == "Europe/Lisbon"
    body = {"rules": {"format": "single"}, "nickname": "eva", "time_zone": 7}
    response = client.post(reverse("games:api_create"), body, content_type="application/json")
    assert response.status_code == 201
    assert Seat.objects.get(nickname="eva").time_zone == ""


def test_nothing_the_waiting_player_does_cancels_the_turn_email_owed(clock, dice, mailoutbox):
    ana = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((3, 1))
    beto = services.room_join(room=ana.room, nickname="beto")
    mail_to(beto)
    room = ana.room
    services.game_play(seat=ana, version=version_of(room), play=[[8, 5], [6, 5]])
    owed = FollowUp.objects.filter(task="games.tasks.turn_email").latest("pk")  # beto's
    # The mail worker is late (an outage); meanwhile ana, waiting, keeps waiting
    # and so moves the match's version. beto's turn is the same and untold.
    clock.tick(timedelta(hours=48))
    services.absence_keep_waiting(seat=ana, version=version_of(room))
    assert tasks.turn_email(*owed.args) is True
    [email] = mailoutbox
    assert email.to == ["beto@example.com"]
    assert tasks.turn_email(*owed.args) is False  # once a turn


def test_a_turn_email_owed_for_a_turn_that_passed_sends_nothing(clock, dice, mailoutbox):
    ana = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((3, 1))
    beto = services.room_join(room=ana.room, nickname="beto")
    mail_to(beto)
    room = ana.room
    services.game_play(seat=ana, version=version_of(room), play=[[8, 5], [6, 5]])
    owed = FollowUp.objects.filter(task="games.tasks.turn_email").latest("pk")  # beto's
    clock.tick(timedelta(hours=1))
    side = current_match(room).side_of(beto)
    services.game_play(seat=beto, version=version_of(room), play=first_legal_play(room, side))
    assert tasks.turn_email(*owed.args) is False  # beto played: that turn is over
    assert mailoutbox == []


def test_a_guest_who_gave_no_address_is_owed_no_turn_email(clock, dice):
    """No row, broker message or worker's run for mail that could never go out: the
    turn passing to a guest without an address owes nothing; to one with an address
    and consent, one "Es tu turno"."""
    ana = services.room_create(rules=MatchRules(), nickname="ana")  # no address
    dice.push((3, 1))
    beto = services.room_join(room=ana.room, nickname="beto", email="beto@example.com")
    Seat.objects.filter(pk=beto.pk).update(email_consent=True)
    room = ana.room

    def owed():
        rows = FollowUp.objects.filter(task="games.tasks.turn_email")
        return [tuple(row.args[:2]) for row in rows if row.args[0] == current_match(room).pk]

    services.game_play(seat=ana, version=version_of(room), play=[[8, 5], [6, 5]])
    betos_turn = [(current_match(room).pk, version_of(room))]
    assert owed() == betos_turn  # the turn is beto's, who gave an address
    side = current_match(room).side_of(beto)
    services.game_play(seat=beto, version=version_of(room), play=first_legal_play(room, side))
    assert current_match(room).turn_seat_id == ana.pk
    assert owed() == betos_turn  # and none for ana's


@pytest.mark.parametrize(
    ("email", "consent", "account", "never"),
    [
        ("", False, False, True),
        ("ana@example.com", False, False, True),  # an address without consent
        ("", True, False, True),
        ("ana@example.com", True, False, False),
        ("", False, True, False),  # an account's address may be confirmed later
    ],
)
def test_only_a_guest_without_an_address_or_consent_is_never_mailed(email, consent, account, never):
    from types import SimpleNamespace

    from accounts.recipients import never_mailed

    seat = SimpleNamespace(user_id=7 if account else None, email=email, email_consent=consent)
    assert never_mailed(seat) is never
