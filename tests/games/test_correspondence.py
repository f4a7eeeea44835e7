"""Correspondence email: who gets which message, with which link, how often.

alice (seat 1, consenting guest) opens the room and is on turn after the
opening roll; bob joins as a guest. Tasks run here as a worker would run them,
one call each; the sweeps and the real worker have their own modules.
"""

import smtplib
from datetime import timedelta
from unittest import mock

from celery.app.task import Task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.models import EmailOptOut, Notify, Profile
from games import services, tasks
from games.engine import MatchRules
from games.mail import messages
from games.models import FollowUp, Seat, SentEmail
from tests.helpers import current_match, seat_url, when_published

OPENING_PLAY = [[8, 5], [6, 5]]  # alice's 3-1


def consent(persona, **fields):
    Seat.objects.filter(pk=persona.seat.pk).update(email_consent=True, **fields)
    persona.refresh()


def pass_turn_to_bob(alice, clock, hours=3):
    """bob left the board after joining; alice plays her opening 3-1 some hours later."""
    clock.tick(timedelta(hours=hours))
    return services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)


def an_account(username, *, language="es", notify=Notify.EVERY_TURN, confirmed=True):
    user = get_user_model().objects.create_user(
        username, email=f"{username}@example.com", password="tablero-de-nogal-77"
    )
    Profile.objects.filter(user=user).update(
        language=language, notify=notify, email_confirmed=confirmed
    )
    return user


class TestYourTurn:
    def test_a_guest_gets_one_email_with_a_seat_link_that_holds_the_seat(
        self, room, alice, bob, clock, mailoutbox
    ):
        consent(bob)
        match = pass_turn_to_bob(alice, clock)

        assert tasks.turn_email(match.pk, match.version) is True
        assert tasks.turn_email(match.pk, match.version) is False  # a second delivery
        [email] = mailoutbox
        assert email.to == ["bob@example.com"]
        assert email.subject == "Te toca contra alice en la partida simple"
        link = settings.SITE_URL + reverse(
            "games:seat_link", args=[room.slug, bob.seat.mail_token()]
        )
        assert link in email.body and link in email.alternatives[0][0]
        assert "alice" in email.body
        unsubscribe = email.extra_headers["List-Unsubscribe"]
        assert unsubscribe.startswith(f"<{settings.SITE_URL}/cuenta/correo/baja/")
        assert email.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert unsubscribe[1:-1] in email.body

        # On another device, the link from the email holds bob's seat.
        phone = Client()
        response = phone.get(link.removeprefix(settings.SITE_URL))
        assert response.status_code == 302
        state = phone.get(reverse("games:api_state", args=[room.slug])).json()
        assert state["viewer"]["seat"] == 2

    def test_a_tampered_email_link_holds_no_seat(self, room, alice, bob):
        token = alice.seat.mail_token()
        tampered = token[:-1] + ("1" if token[-1] == "0" else "0")
        response = Client().get(seat_url(room, tampered))
        assert response.status_code == 403

    def test_an_account_holder_on_turn_is_mailed_at_the_account_address_in_english(
        self, db, clock, dice, mailoutbox
    ):
        bea = an_account("bea", language="en")
        seat = services.room_create(rules=MatchRules(), nickname="bea", user=bea)
        dice.push((1, 3))  # the guest (side 1) starts
        guest = services.room_join(room=seat.room, nickname="carlos")
        clock.tick(timedelta(hours=1))
        match = services.game_play(seat=guest, version=1, play=OPENING_PLAY)

        assert tasks.turn_email(match.pk, match.version) is True
        [email] = mailoutbox
        assert email.to == ["bea@example.com"]
        assert email.subject == "Your turn against carlos in the single game"
        assert "carlos" in email.body and "You have until" in email.body
        seat_link = settings.SITE_URL + reverse("games:my_seat", args=[seat.room.slug])
        assert f"{seat_link}\n" in email.body  # the seat's address, never a seat secret
        assert "/asiento/" not in email.body

    def test_an_account_holders_link_opens_their_seat_through_the_log_in(self, db, clock, dice):
        bea = an_account("bea")
        seat = services.room_create(rules=MatchRules(), nickname="bea", user=bea)
        link = messages.board_link(seat).removeprefix(settings.SITE_URL)
        room_url = reverse("games:room", args=[seat.room.slug])
        state_url = reverse("games:api_state", args=[seat.room.slug])

        # On another device, not logged in: the log-in page, coming back here.
        phone = Client()
        response = phone.get(link)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('accounts:login')}?next={link}"
        response = phone.post(
            response["Location"], {"username": "bea", "password": "tablero-de-nogal-77"}
        )
        assert response["Location"] == link
        assert phone.get(link)["Location"] == room_url
        assert phone.get(state_url).json()["viewer"]["seat"] == 1

        # Logged in as another account: the room, and a word on whose seat it is.
        other = Client()
        other.force_login(an_account("carla"))
        response = other.get(link, follow=True)
        assert response.redirect_chain == [(room_url, 302)]
        assert "Ese asiento es de otra cuenta" in response.content.decode()

    def test_nobody_who_was_on_the_board_in_the_last_two_minutes(
        self, room, alice, bob, clock, mailoutbox
    ):
        consent(bob)
        match = pass_turn_to_bob(alice, clock)
        clock.tick(timedelta(seconds=10))
        services.seat_seen(seat=bob.refresh())
        clock.tick(timedelta(minutes=1, seconds=59))

        assert tasks.turn_email(match.pk, match.version) is False
        assert mailoutbox == []

    def test_a_turn_already_played_sends_nothing(self, room, alice, bob, clock, mailoutbox):
        consent(bob)
        match = pass_turn_to_bob(alice, clock)
        services.match_resign(seat=bob.seat, version=match.version)

        assert tasks.turn_email(match.pk, match.version) is False
        assert mailoutbox == []

    def test_several_games_waiting_make_one_message_listing_them(
        self, room, alice, bob, clock, dice, mailoutbox
    ):
        consent(bob)
        # bob sits at a second table, with the same address, and starts there too.
        other = services.room_create(rules=MatchRules(), nickname="dora")
        dice.push((3, 1))
        services.room_join(
            room=other.room, nickname="bob", email="BOB@example.com", email_consent=True
        )
        clock.tick(timedelta(hours=2))
        first = services.game_play(seat=alice.seat, version=1, play=OPENING_PLAY)
        second = services.game_play(seat=other, version=1, play=OPENING_PLAY)

        assert tasks.turn_email(first.pk, first.version) is True
        assert tasks.turn_email(second.pk, second.version) is False
        [email] = mailoutbox
        assert email.subject == "Es tu turno en 2 partidas de Mesa"
        assert "Contra alice" in email.body and "Contra dora" in email.body
        assert email.body.count("/asiento/") == 2

    def test_the_digest_and_no_mail_choices_get_no_turn_email(
        self, room, alice, bob, clock, mailoutbox
    ):
        consent(bob, notify=Seat.Notify.DAILY)
        match = pass_turn_to_bob(alice, clock)
        assert tasks.turn_email(match.pk, match.version) is False
        consent(bob, notify=Seat.Notify.NONE)
        assert tasks.turn_email(match.pk, match.version) is False
        consent(bob, notify=Seat.Notify.EVERY_TURN)
        EmailOptOut.objects.create(email="bob@example.com")
        assert tasks.turn_email(match.pk, match.version) is False
        assert mailoutbox == []

    def test_a_failed_delivery_releases_the_turn_so_the_retry_sends_it(
        self, room, alice, bob, clock, mailoutbox
    ):
        consent(bob)
        match = pass_turn_to_bob(alice, clock)
        refused = smtplib.SMTPServerDisconnected("the server went away")
        with mock.patch("games.mail.messages.send_templated_mail", side_effect=refused):
            assert tasks.turn_email(match.pk, match.version) == 0
        assert bob.refresh().turn_notified_at is None
        [retry] = FollowUp.objects.filter(task="games.tasks.turn_email").exclude(error="")
        assert retry.args == [match.pk, match.version] and retry.kwargs == {"attempt": 1}

        assert tasks.turn_email(*retry.args, **retry.kwargs) is True
        assert len(mailoutbox) == 1

    def test_the_task_retries_database_trouble_in_the_broker_and_acks_late(self):
        for task in (tasks.turn_email, tasks.send_absence_reminders, tasks.send_daily_digests):
            assert task.acks_late is True
            assert {error.__name__ for error in task.autoretry_for} == {"OperationalError"}
            assert task.retry_backoff_max <= settings.CELERY_VISIBILITY_TIMEOUT / 5

    def test_the_turn_email_waits_a_moment_so_several_turns_make_one_message(self):
        with mock.patch.object(Task, "apply_async") as publish:
            tasks.turn_email.delay(7, 3)
            tasks.turn_email.apply_async((7, 3), countdown=0)
        assert publish.call_args_list[0].kwargs["countdown"] == 60
        assert publish.call_args_list[1].kwargs["countdown"] == 0


class TestDigest:
    def test_one_digest_a_day_lists_every_waiting_game(self, room, alice, bob, clock, mailoutbox):
        Seat.objects.filter(pk=alice.seat.pk).update(notify=Seat.Notify.DAILY)
        clock.tick(timedelta(hours=5))

        assert tasks.send_daily_digests() == 1
        assert tasks.send_daily_digests() == 0
        [email] = mailoutbox
        assert email.to == ["alice@example.com"]
        assert email.subject == "Tu resumen del día en Mesa"
        assert "contra bob, desde hace 5\xa0horas" in email.body
        # The game has just begun: alice starts, and the digest says so, not "bob moved".
        assert "Empieza la partida contra bob. Salida: tú sacas 3 y bob 1" in email.body
        assert messages.board_link(alice.refresh()) in email.body

        clock.tick(timedelta(days=1))
        assert tasks.send_daily_digests() == 1
        assert len(mailoutbox) == 2

    def test_no_digest_without_a_waiting_game_or_for_every_turn_people(
        self, room, alice, bob, clock, mailoutbox
    ):
        assert tasks.send_daily_digests() == 0  # alice chose every turn
        consent(bob, notify=Seat.Notify.DAILY)  # bob is not on turn
        assert tasks.send_daily_digests() == 0
        assert mailoutbox == []

    def test_the_digest_walks_the_games_in_pages(self, room, alice, bob, clock, dice, mailoutbox):
        Seat.objects.filter(pk=alice.seat.pk).update(notify=Seat.Notify.DAILY)
        for name in ("dora", "eli"):
            dice.push((3, 1))
            host = services.room_create(
                rules=MatchRules(), nickname=name, email=f"{name}@example.com", email_consent=True
            )
            Seat.objects.filter(pk=host.pk).update(notify=Seat.Notify.DAILY)
            services.room_join(room=host.room, nickname="bob")
        assert tasks.send_daily_digests(batch=1) == 3
        assert sorted(email.to[0] for email in mailoutbox) == [
            "alice@example.com",
            "dora@example.com",
            "eli@example.com",
        ]


class TestEvents:
    def test_the_host_hears_once_that_the_opponent_sat_down(
        self, alice, clock, dice, mailoutbox, django_capture_on_commit_callbacks, monkeypatch
    ):
        when_published(monkeypatch, tasks.turn_email, lambda *args: None)
        clock.tick(timedelta(hours=1))
        dice.push((3, 1))
        with django_capture_on_commit_callbacks() as callbacks:
            services.room_join(room=alice.seat.room, nickname="bob")
        # The outbox's publishes (the room's live pulse is another on-commit hook).
        published = [c for c in callbacks if "schedule" in getattr(c, "__qualname__", "")]
        assert len(published) == 2  # the joined email and alice's turn email

        room_id = alice.seat.room_id
        assert tasks.opponent_joined_email(room_id) == 1
        assert tasks.opponent_joined_email(room_id) == 0
        [email] = mailoutbox
        assert email.subject == "bob se sentó a tu mesa"
        assert "Empiezas tú: es tu turno." in email.body
        # That message said it is her turn: no "Es tu turno" right after it.
        match = current_match(alice.seat.room)
        assert tasks.turn_email(match.pk, match.version) is False

    def test_nobody_is_told_of_a_join_they_watched_happen(self, alice, dice, mailoutbox):
        dice.push((3, 1))
        services.room_join(room=alice.seat.room, nickname="bob")
        assert tasks.opponent_joined_email(alice.seat.room_id) == 0
        assert mailoutbox == []

    def test_a_late_sat_down_email_never_announces_a_turn_already_announced(
        self, alice, clock, dice, mailoutbox
    ):
        clock.tick(timedelta(hours=1))  # alice left the board
        dice.push((3, 1))  # alice opens: her turn
        services.room_join(room=alice.seat.room, nickname="bob")
        match = current_match(alice.seat.room)
        # The mail worker took "Es tu turno" first (the joined email was late).
        clock.tick(timedelta(minutes=1))
        assert tasks.turn_email(match.pk, match.version) is True
        assert tasks.opponent_joined_email(alice.seat.room_id) == 1
        told, joined = mailoutbox
        assert told.subject == "Empieza la partida 1 contra bob: la partida simple"
        assert joined.subject == "bob se sentó a tu mesa"
        assert "es tu turno" not in joined.body
        assert "Empieza bob" not in joined.body  # nor the opposite: alice starts

    def test_nobody_is_mailed_the_end_of_a_match_they_watched_end(
        self, room, alice, bob, clock, mailoutbox
    ):
        consent(bob)
        clock.tick(timedelta(hours=1))
        services.seat_seen(seat=alice.seat)  # both on the board when it ends
        services.seat_seen(seat=bob.seat)
        match = services.match_resign(seat=alice.seat, version=1)
        # The mail worker comes ten minutes late: both have left the board by then.
        clock.tick(timedelta(minutes=10))
        assert tasks.match_ended_email(match.pk) == 0
        assert mailoutbox == []

    def test_a_player_who_came_to_the_board_after_the_end_is_not_mailed_it(
        self, room, alice, bob, clock, mailoutbox
    ):
        consent(bob)
        clock.tick(timedelta(hours=1))
        match = services.match_resign(seat=alice.seat, version=1)
        clock.tick(timedelta(minutes=5))
        services.seat_seen(seat=bob.seat)  # bob saw the result, then left
        clock.tick(timedelta(minutes=5))
        assert tasks.match_ended_email(match.pk) == 1  # alice only
        [email] = mailoutbox
        assert email.to == ["alice@example.com"]

    def test_both_players_hear_how_it_ended_but_not_the_one_on_the_board(
        self, room, alice, bob, clock, mailoutbox, settings
    ):
        consent(bob, language="en")
        clock.tick(timedelta(hours=1))
        services.seat_seen(seat=alice.seat)  # alice resigns from the board
        match = services.match_resign(seat=alice.seat, version=1)

        assert tasks.match_ended_email(match.pk) == 1
        assert tasks.match_ended_email(match.pk) == 0
        [email] = mailoutbox
        assert email.to == ["bob@example.com"]
        assert email.subject == "Your game against alice is over"
        assert "alice resigned: you won." in email.body
        assert SentEmail.objects.filter(key=f"ended:{match.pk}:2").exists()

    def test_the_end_is_scheduled_when_the_match_finishes(
        self, room, alice, django_capture_on_commit_callbacks, monkeypatch
    ):
        ended = []
        when_published(monkeypatch, tasks.match_ended_email, ended.append)
        with django_capture_on_commit_callbacks(execute=True):
            match = services.match_resign(seat=alice.seat, version=1)
        assert ended == [match.pk]


def test_every_periodic_task_has_a_beat_entry_that_names_it():
    from config import celery_app

    celery_app.autodiscover_tasks(force=True)
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    periodic = {
        "games.tasks.close_absent_games",
        "games.tasks.expire_idle_rooms",
        "games.tasks.send_absence_reminders",
        "games.tasks.send_absence_claimable",
        "games.tasks.send_daily_digests",
        "games.tasks.publish_follow_ups",
        "games.tasks.requeue_stuck_analyses",
    }
    assert periodic <= scheduled
    assert periodic <= set(celery_app.tasks)
