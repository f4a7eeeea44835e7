"""Mail that cannot go out now: retries spread over hours, dead letters the admin
sends again, and one copy more at most when the server's answer is lost.

The lost-answer tests talk to a real SMTP server on loopback (aiosmtpd) that
takes the whole message, then answers later than EMAIL_TIMEOUT: the message
is sent once more, never a third time (at least once, one duplicate at most).
"""

import asyncio
import smtplib
from datetime import timedelta
from unittest import mock

import pytest
from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.recipients import recipient_for_seat
from games import services, tasks
from games.lib import deadlines
from games.mail import claims, messages
from games.models import FollowUp, Seat, SentEmail
from games.services import outbox
from tests.helpers import Inbox, current_match, free_port

REFUSED = smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


def run_row(row: FollowUp):
    """What the follow-up sweep and a worker do with a due row (the task marks it done)."""
    result = current_app.tasks[row.task](*row.args, **row.kwargs)
    outbox.mark_done(row.pk)
    return result


def run_at_once(task, args=None, kwargs=None, **options):
    """Task.apply_async as a broker and a worker would, at once."""
    return task(*(args or ()), **(kwargs or {}))


def end_match(alice, bob, clock):
    """alice resigns; bob (consenting, away for an hour) is owed the end's email,
    alice (who wants no mail) nothing."""
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    Seat.objects.filter(pk=alice.seat.pk).update(email_consent=False)
    clock.tick(timedelta(hours=1))
    services.seat_seen(seat=alice.seat)  # alice resigns from the board: no email for her
    return services.match_resign(seat=alice.seat, version=1)


def test_retries_double_from_two_minutes_to_six_hours_over_about_half_a_day():
    waits = [outbox.retry_delay(attempt) for attempt in range(1, 10)]
    assert timedelta(minutes=2) <= waits[0] <= timedelta(minutes=2.2)
    for earlier, later in zip(waits, waits[1:], strict=False):
        assert later >= earlier * 1.8 or later >= timedelta(hours=6)
    assert max(waits) <= timedelta(hours=6.6)
    assert timedelta(hours=12) <= sum(waits, timedelta()) <= timedelta(hours=20)


def test_a_mail_that_runs_out_of_tries_is_kept_and_the_admin_sends_it_again(
    room, alice, bob, clock, mailoutbox, settings, client
):
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    with mock.patch("games.mail.messages.send_templated_mail", side_effect=REFUSED):
        assert tasks.match_ended_email(match.pk) == 0
        for attempt in range(1, settings.MAIL_TRIES):
            [row] = FollowUp.objects.filter(published_at=None, failed_at=None)
            assert row.kwargs == {"attempt": attempt}
            wait = min(timedelta(minutes=2) * 2 ** (attempt - 1), timedelta(hours=6))
            assert wait <= row.due_at - clock() <= wait * 1.1
            clock.tick(row.due_at - clock())
            FollowUp.objects.filter(pk=row.pk).update(published_at=clock())
            run_row(row)
    assert mailoutbox == []
    [dead] = FollowUp.objects.filter(failed_at__isnull=False)
    assert dead.task == "games.tasks.match_ended_email" and dead.args == [match.pk]
    assert "SMTPServerDisconnected" in dead.error

    admin = get_user_model().objects.create_superuser("root", "root@example.com", "x")
    client.force_login(admin)
    changelist = reverse("admin:games_followup_changelist")
    listed = client.get(changelist, {"estado": "dead"})
    assert "games.tasks.match_ended_email" in listed.content.decode()
    response = client.post(
        changelist, {"action": "send_again", "_selected_action": [dead.pk]}, follow=True
    )
    assert "1 tarea volverá a enviarse" in response.content.decode()
    clock.tick(timedelta(minutes=1))
    with mock.patch("celery.app.task.Task.apply_async", run_at_once):
        assert tasks.publish_follow_ups() == 1
    [email] = mailoutbox
    assert email.to == ["bob@example.com"]


def test_a_refusal_for_good_goes_straight_to_the_dead_letters(room, alice, bob, clock):
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    refused = smtplib.SMTPDataError(554, b"no such mailbox")
    with mock.patch("games.mail.messages.send_templated_mail", side_effect=refused):
        tasks.match_ended_email(match.pk)
    [dead] = FollowUp.objects.all()
    assert dead.failed_at is not None


# --- the server's answer lost after the whole message went out ---------------------


class SlowToAnswer(Inbox):
    """Keeps the message, then answers after `delay` seconds (too late for the client)."""

    delay = 1.5

    def to(self, address):
        return [message for message in self.messages if message["To"] == address]

    async def handle_DATA(self, server, session, envelope):
        answer = await super().handle_DATA(server, session, envelope)
        await asyncio.sleep(self.delay)
        return answer


def local_smtp(settings, inbox):
    from aiosmtpd.controller import Controller

    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "games.mail.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 0.5
    return controller


@pytest.fixture
def slow_smtp(settings):
    inbox = SlowToAnswer()
    controller = local_smtp(settings, inbox)
    try:
        yield inbox
    finally:
        controller.stop()


@pytest.fixture
def smtp_inbox(settings):
    inbox = Inbox()
    controller = local_smtp(settings, inbox)
    try:
        yield inbox
    finally:
        controller.stop()


def due_retry(clock) -> FollowUp:
    """The one live retry row, with the clock moved to its time."""
    [row] = FollowUp.objects.filter(published_at=None, failed_at=None)
    clock.tick(max(row.due_at - clock(), timedelta(0)))
    FollowUp.objects.filter(pk=row.pk).update(published_at=clock())
    return row


def test_a_lost_answer_sends_the_message_once_more_and_never_a_third_time(
    room, alice, bob, clock, slow_smtp
):
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    key = f"ended:{match.pk}:2"

    assert tasks.match_ended_email(match.pk) == 0  # no "250" came back
    assert len(slow_smtp.to("bob@example.com")) == 1  # but the server (most likely) has it
    # At least once: the claim is released and the task retried, like a refusal.
    assert not SentEmail.objects.filter(key=key).exists()
    assert SentEmail.objects.get(key=f"lost:{key}").state == SentEmail.State.UNCERTAIN
    retry = due_retry(clock)
    assert retry.kwargs == {"attempt": 1} and "answer was lost" in retry.error

    assert run_row(retry) == 0  # lost again: this time it is kept
    assert len(slow_smtp.to("bob@example.com")) == 2
    assert SentEmail.objects.get(key=key).state == SentEmail.State.UNCERTAIN
    [dead] = FollowUp.objects.filter(failed_at__isnull=False)
    # The claims' one shape (games.mail.claims): here the SentEmail key, claimed now.
    claimed = clock().isoformat()
    assert dead.release == {
        "claims": [
            {"row": "sent_email", "id": key, "field": "", "claimed": claimed, "previous": None}
        ]
    }

    # Every later delivery of the task, every sweep: nothing more.
    for _ in range(3):
        tasks.match_ended_email(match.pk)
        clock.tick(timedelta(hours=1))
        tasks.publish_follow_ups()
    assert len(slow_smtp.to("bob@example.com")) == 2

    # A person who checked it did not arrive sends it again, once.
    slow_smtp.delay = 0
    claims.release_claim(dead.release)
    outbox.resend(FollowUp.objects.filter(pk=dead.pk))
    assert run_row(FollowUp.objects.get(pk=dead.pk)) == 1
    assert len(slow_smtp.to("bob@example.com")) == 3
    assert SentEmail.objects.get(key=key).state == SentEmail.State.SENT


def test_a_lost_answer_then_a_clear_one_is_one_duplicate(room, alice, bob, clock, slow_smtp):
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    assert tasks.match_ended_email(match.pk) == 0
    slow_smtp.delay = 0  # the server answers again
    assert run_row(due_retry(clock)) == 1
    assert tasks.match_ended_email(match.pk) == 0
    assert len(slow_smtp.to("bob@example.com")) == 2
    assert SentEmail.objects.get(key=f"ended:{match.pk}:2").state == SentEmail.State.SENT
    assert not FollowUp.objects.filter(published_at=None).exists()


def test_a_lost_answer_to_es_tu_turno_tells_the_turn_once_more(room, alice, bob, clock, slow_smtp):
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    clock.tick(timedelta(hours=3))
    match = services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    FollowUp.objects.all().delete()

    assert tasks.turn_email(match.pk, match.version) == 0
    assert bob.refresh().turn_notified_at is None  # released: owed again
    retry = due_retry(clock)
    assert run_row(retry) == 0  # lost again: the turn stays told
    assert tasks.turn_email(match.pk, match.version) is False
    assert len(slow_smtp.messages) == 2
    bob.refresh()
    assert bob.seat.turn_notified_at == match.turn_started_at
    # No lease is left for a worker to take over: never a third copy.
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.turn_email(match.pk, match.version) is False
    assert len(slow_smtp.messages) == 2
    [dead] = FollowUp.objects.filter(failed_at__isnull=False)
    # The claims' one shape (games.mail.claims): here the seat's turn, told.
    assert dead.release == {
        "claims": [
            {
                "row": "seat",
                "id": bob.seat.pk,
                "field": "turn_notified_at",
                "claimed": match.turn_started_at.isoformat(),
                "previous": None,
            }
        ]
    }
    claims.release_claim(dead.release)
    assert bob.refresh().turn_notified_at is None


def test_a_lost_answer_to_a_reminder_is_resent_by_the_next_sweep_once(
    room, alice, bob, clock, slow_smtp
):
    # alice is on turn (the opening roll was hers); 23 hours before her deadline.
    clock.tick(timedelta(hours=25))
    FollowUp.objects.all().delete()
    assert tasks.send_absence_reminders() == 0  # lost: released, the task retried
    assert tasks.send_absence_reminders() == 0  # the next sweep sends it once more: lost
    for _ in range(3):  # kept now: neither the retries nor the sweeps send it again
        clock.tick(timedelta(minutes=10))
        assert tasks.send_absence_reminders() == 0
        for row in FollowUp.objects.filter(published_at=None, failed_at=None, due_at__lte=clock()):
            FollowUp.objects.filter(pk=row.pk).update(published_at=clock())
            run_row(row)
    assert len(slow_smtp.to("alice@example.com")) == 2
    assert FollowUp.objects.filter(failed_at__isnull=False).count() == 1


def test_a_failure_after_the_server_accepted_the_message_is_a_sent_message(
    room, alice, bob, clock, smtp_inbox
):
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    # The task's time limit cuts the goodbye, after the "250".
    with mock.patch("smtplib.SMTP.quit", side_effect=SoftTimeLimitExceeded()):
        assert tasks.match_ended_email(match.pk) == 1
    assert tasks.match_ended_email(match.pk) == 0
    assert len(smtp_inbox.messages) == 1
    assert SentEmail.objects.get(key=f"ended:{match.pk}:2").state == SentEmail.State.SENT
    assert not FollowUp.objects.exists()


def test_the_time_limit_before_the_server_accepted_is_retried_not_dropped(
    room, alice, bob, clock, smtp_inbox
):
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    with mock.patch("smtplib.SMTP.rcpt", side_effect=SoftTimeLimitExceeded()):
        assert tasks.match_ended_email(match.pk) == 0
    assert smtp_inbox.messages == []
    assert run_row(due_retry(clock)) == 1
    assert len(smtp_inbox.messages) == 1


def test_a_sending_claim_of_a_dead_worker_is_taken_over_a_live_one_is_not(
    room, alice, bob, clock, mailoutbox
):
    match = end_match(alice, bob, clock)
    key = f"ended:{match.pk}:2"
    SentEmail.objects.create(key=key, sent_at=clock(), state=SentEmail.State.SENDING)
    assert tasks.match_ended_email(match.pk) == 0  # someone is sending it right now
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.match_ended_email(match.pk) == 1  # that worker died: send it
    assert tasks.match_ended_email(match.pk) == 0
    assert len(mailoutbox) == 1


def test_a_sending_claim_of_a_worker_killed_just_now_is_taken_over_within_two_minutes(
    room, alice, bob, clock, mailoutbox, settings
):
    # A worker died mid-send a moment ago, and its task came straight back (the
    # broker's reject on worker lost, or the outbox's re-drive). Production's
    # timings: the claim is a lease of MAIL_SEND_SECONDS + EMAIL_TIMEOUT.
    settings.EMAIL_TIMEOUT, settings.MAIL_SEND_SECONDS = 20, 40
    match = end_match(alice, bob, clock)
    FollowUp.objects.all().delete()
    key = f"ended:{match.pk}:2"
    held_at = clock()
    SentEmail.objects.create(key=key, sent_at=held_at, state=SentEmail.State.SENDING)
    assert tasks.match_ended_email(match.pk) == 0
    # Looked at again when the dead worker's lease ends, not after a mail backoff.
    [retry] = FollowUp.objects.filter(published_at=None, failed_at=None)
    assert retry.due_at == held_at + claims.stale_claim_after() + timedelta(seconds=1)
    assert run_row(due_retry(clock)) == 1
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["bob@example.com"]
    # Published by the next follow-up sweep: within the 2 minutes of docs/OPERATIONS.md.
    sweep = timedelta(seconds=settings.FOLLOW_UP_SWEEP_SECONDS)
    assert clock() - held_at + sweep <= timedelta(minutes=2)
    assert SentEmail.objects.get(key=key).state == SentEmail.State.SENT
    assert tasks.match_ended_email(match.pk) == 0
    assert len(mailoutbox) == 1
    assert not FollowUp.objects.filter(published_at=None, failed_at=None).exists()


def test_a_late_release_leaves_the_claim_another_worker_took_over(room, alice, bob, clock):
    match = end_match(alice, bob, clock)
    key = f"ended:{match.pk}:2"
    SentEmail.objects.filter(key=key).delete()
    first = claims.claim_key(key)
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    second = claims.claim_key(key)  # the first worker's lease ran out: taken over
    assert second is not None and second.claimed == clock()
    claims.release([first])  # the first worker, late, gives its claim back
    assert SentEmail.objects.get(key=key).state == SentEmail.State.SENDING  # still held
    with pytest.raises(claims.Busy):  # and a third worker finds it held
        claims.claim_key(key)


def test_es_tu_turno_whose_worker_died_mid_send_goes_out_when_its_lease_ends(
    room, alice, bob, clock, mailoutbox, settings
):
    settings.EMAIL_TIMEOUT, settings.MAIL_SEND_SECONDS = 20, 40  # production's
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    clock.tick(timedelta(hours=3))
    match = services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    FollowUp.objects.all().delete()
    # A worker told bob's turn (the seat's field) and died before the server
    # had the message: the turn's task comes again (the outbox's re-drive).
    [told] = claims.claim_waiting_turns(recipient_for_seat(bob.refresh()))
    held_at = clock()
    assert bob.refresh().turn_notified_at == match.turn_started_at
    assert not tasks.turn_email(match.pk, match.version)  # its lease is young: looked at later
    [retry] = FollowUp.objects.filter(published_at=None, failed_at=None)
    assert retry.due_at == held_at + claims.stale_claim_after() + timedelta(seconds=1)
    assert run_row(due_retry(clock)) is True  # the dead worker's lease, taken over
    assert [message.to for message in mailoutbox] == [["bob@example.com"]]
    sweep = timedelta(seconds=settings.FOLLOW_UP_SWEEP_SECONDS)
    assert clock() - held_at + sweep <= timedelta(minutes=2)
    assert bob.refresh().turn_notified_at == match.turn_started_at
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.turn_email(match.pk, match.version) is False  # told, and sent: once
    assert len(mailoutbox) == 1


def test_es_tu_turno_sent_leaves_no_lease_behind(room, alice, bob, clock, mailoutbox):
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    clock.tick(timedelta(hours=3))
    match = services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    assert tasks.turn_email(match.pk, match.version) is True
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.turn_email(match.pk, match.version) is False
    assert len(mailoutbox) == 1


# --- "someone sat down" whose worker died: the turn it claimed travels with it --------


class WorkerKilled(BaseException):
    """A SIGKILL mid-send: nothing after it runs, no claim is given back."""


def killed_mid_send(monkeypatch, send, *args, **kwargs):
    """Run `send` up to the mail server's conversation, and let its worker die there."""

    def dies(held, send_it):
        raise WorkerKilled

    with monkeypatch.context() as patch:
        patch.setattr(claims, "send_claimed", dies)
        with pytest.raises(WorkerKilled):
            send(*args, **kwargs)


def ana_opens_against_ben(clock, dice, alice):
    """bob sits down at alice's table while she is away, and she opens: her turn."""
    clock.tick(timedelta(hours=1))  # alice left the board
    dice.push((3, 1))
    services.room_join(room=alice.seat.room, nickname="bob")
    FollowUp.objects.all().delete()  # the tests run the tasks themselves
    match = current_match(alice.seat.room)
    assert match.turn_seat_id == alice.seat.pk
    return match


def test_sat_down_taken_over_still_says_es_tu_turno_its_dead_worker_claimed(
    alice, clock, dice, mailoutbox, monkeypatch, settings
):
    settings.EMAIL_TIMEOUT, settings.MAIL_SEND_SECONDS = 20, 40  # production's
    match = ana_opens_against_ben(clock, dice, alice)
    room_id = alice.seat.room_id
    killed_mid_send(monkeypatch, messages.send_opponent_joined, room_id=room_id)
    assert alice.refresh().turn_notified_at == match.turn_started_at  # claimed with it

    # The turn's email, after its pause: the turn is the joined email's, not its own.
    clock.tick(deadlines.TURN_EMAIL_PAUSE)
    assert tasks.turn_email(match.pk, match.version, match.turn_started_at.isoformat()) is False
    assert mailoutbox == []
    with pytest.raises(claims.Busy):  # the dead worker's lease is not over yet
        messages.send_opponent_joined(room_id=room_id)

    clock.tick(claims.stale_claim_after())
    assert tasks.opponent_joined_email(room_id) == 1  # taken over, turn and all
    [email] = mailoutbox
    assert email.subject == "bob se sentó a tu mesa"
    assert "Empiezas tú: es tu turno." in email.body
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()

    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.turn_email(match.pk, match.version, match.turn_started_at.isoformat()) is False
    assert tasks.opponent_joined_email(room_id) == 0
    assert len(mailoutbox) == 1


def test_sat_down_taken_over_after_the_turn_email_says_nothing_of_the_turn(
    alice, clock, dice, mailoutbox, monkeypatch
):
    match = ana_opens_against_ben(clock, dice, alice)
    room_id = alice.seat.room_id
    # "Es tu turno" went first (the joined email was late), then the joined
    # email's worker died mid-send: its own claim held no turn.
    assert tasks.turn_email(match.pk, match.version) is True
    killed_mid_send(monkeypatch, messages.send_opponent_joined, room_id=room_id)
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.opponent_joined_email(room_id) == 1
    told, joined = mailoutbox
    assert told.subject == "Empieza la partida 1 contra bob: la partida simple"
    assert joined.subject == "bob se sentó a tu mesa"
    assert "es tu turno" not in joined.body and "Empieza bob" not in joined.body
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()


def test_a_dead_turn_emails_claim_is_the_turn_emails_to_take_over_not_sat_downs(
    alice, clock, dice, mailoutbox, monkeypatch
):
    match = ana_opens_against_ben(clock, dice, alice)
    room_id = alice.seat.room_id
    # The turn email claimed the turn first, and its worker died mid-send.
    killed_mid_send(monkeypatch, messages.send_your_turn, match_id=match.pk, version=match.version)
    assert tasks.opponent_joined_email(room_id) == 1
    [joined] = mailoutbox
    assert "es tu turno" not in joined.body and "Empieza bob" not in joined.body
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    assert tasks.turn_email(match.pk, match.version) is True  # its lease, taken over
    assert mailoutbox[1].subject == "Empieza la partida 1 contra bob: la partida simple"
    assert len(mailoutbox) == 2
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()


def test_sat_down_taken_over_and_refused_leaves_the_turn_owed(
    alice, clock, dice, mailoutbox, monkeypatch
):
    match = ana_opens_against_ben(clock, dice, alice)
    room_id = alice.seat.room_id
    killed_mid_send(monkeypatch, messages.send_opponent_joined, room_id=room_id)
    clock.tick(claims.stale_claim_after() + timedelta(seconds=1))
    with mock.patch("games.mail.messages._send", side_effect=REFUSED):
        assert tasks.opponent_joined_email(room_id) == 0  # released: retried later
    assert alice.refresh().turn_notified_at is None
    assert not SentEmail.objects.filter(key__startswith="lease:").exists()
    # Whichever comes first tells the turn, once.
    clock.tick(deadlines.TURN_EMAIL_PAUSE)
    assert tasks.turn_email(match.pk, match.version) is True
    assert run_row(due_retry(clock)) == 1
    told, joined = mailoutbox
    assert "es tu turno" not in joined.body
    assert len(mailoutbox) == 2


class SlowToTakeTheRecipient(Inbox):
    """Answers RCPT after `delay` seconds: the conversation outlasts the send's lease."""

    delay = 1.5

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        await asyncio.sleep(self.delay)
        envelope.rcpt_tos.append(address)
        return "250 OK"


def test_a_send_whose_lease_runs_out_before_the_message_went_out_sends_nothing(
    room, alice, bob, clock, settings
):
    inbox = SlowToTakeTheRecipient()
    controller = local_smtp(settings, inbox)
    # Each wait may last 5 s, but the send has 1 s from its claim: it gives up
    # before the message goes out, so a worker taking the claim over later
    # never makes it two.
    settings.EMAIL_TIMEOUT, settings.MAIL_SEND_SECONDS = 5, 1
    try:
        match = end_match(alice, bob, clock)
        FollowUp.objects.all().delete()
        key = f"ended:{match.pk}:2"
        assert tasks.match_ended_email(match.pk) == 0
        assert inbox.messages == []
        assert not SentEmail.objects.filter(key=key).exists()  # released: owed again
        assert not SentEmail.objects.filter(key=f"lost:{key}").exists()  # nothing went out
        inbox.delay = 0
        assert run_row(due_retry(clock)) == 1
        assert len(inbox.messages) == 1
    finally:
        controller.stop()


def test_an_answer_later_than_the_lease_is_lost_not_waited_for(room, alice, bob, clock, settings):
    inbox = SlowToAnswer()
    inbox.delay = 3
    controller = local_smtp(settings, inbox)
    # The server answers after 3 s, inside EMAIL_TIMEOUT, but past the send's
    # 2 s: the claim is not held past its lease; the answer counts as lost.
    settings.EMAIL_TIMEOUT, settings.MAIL_SEND_SECONDS = 10, 2
    try:
        match = end_match(alice, bob, clock)
        FollowUp.objects.all().delete()
        key = f"ended:{match.pk}:2"
        assert tasks.match_ended_email(match.pk) == 0
        assert len(inbox.to("bob@example.com")) == 1
        assert not SentEmail.objects.filter(key=key).exists()
        assert SentEmail.objects.get(key=f"lost:{key}").state == SentEmail.State.UNCERTAIN
    finally:
        controller.stop()


# --- "Es tu turno" when the answer comes while you are still on the board ----------


def test_es_tu_turno_reaches_a_player_who_left_just_before_the_answer(
    room, alice, bob, clock, mailoutbox
):
    Seat.objects.filter(pk=bob.seat.pk).update(email_consent=True)
    FollowUp.objects.all().delete()
    clock.tick(timedelta(hours=1))
    services.seat_seen(seat=bob.refresh())  # bob looks at the board, then leaves
    clock.tick(timedelta(seconds=20))
    match = services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    clock.tick(timedelta(seconds=60))  # the pause: bob was here 80 s ago

    assert tasks.turn_email(match.pk, match.version) is False
    assert mailoutbox == []
    again = FollowUp.objects.latest("pk")  # a look again, for the sweep
    assert (again.task, again.args) == ("games.tasks.turn_email", [match.pk, match.version])
    assert again.published_at is None
    assert again.due_at == bob.seat.last_seen_at + deadlines.TURN_EMAIL_QUIET

    clock.tick(again.due_at - clock())
    assert run_row(again) is True
    [email] = mailoutbox
    assert email.to == ["bob@example.com"]
