"""Celery tasks: follow-up work scheduled by games.services on commit, and the beat's sweeps.

The Celery entry point (autodiscovered as games.tasks): the registered names,
"games.tasks.<function>", are what the outbox rows, the routes and the beat
schedule name, so they stay.

Tasks are thin callers of services: they load by id, re-check that the turn
they were scheduled for is still the current one (a task may run twice, late,
or after the player already acted), then call a service. A task never trusts
the arguments beyond the ids.

Queues (settings.CELERY_TASK_ROUTES): bot_turn on "bots", mail on "mail",
the sweeps on "sweeps", so a hung mail server never holds up a bot.
"""

import logging
import smtplib
import time
from datetime import datetime
from typing import Any, TypedDict

from billiard.einfo import ExceptionInfo
from celery import Task, shared_task, signals, states
from celery.exceptions import SoftTimeLimitExceeded
from celery.result import AsyncResult
from django.conf import settings as django_settings
from django.db import DatabaseError, OperationalError

from games import bots, mail, selectors, services
from games.bots.runner import next_action
from games.engine import MatchState
from games.lib import clock, deadlines
from games.lib.errors import Conflict
from games.models import Match
from games.services import outbox
from games.services.analysis import RUNS_AT_MOST

log = logging.getLogger(__name__)


@signals.task_postrun.connect
def _follow_up_done(task: Task[..., Any] | None = None, state: str | None = None, **_: Any) -> None:
    """A task published for a FollowUp row (its message's outbox.HEADER) ran:
    the row is done, and the sweep will not publish it again. Not after a
    retry (the retry's message carries the header on); a task that failed for
    good is done too (its mail is a dead letter of its own, a bot's turn is
    nudged again by nudge_stuck_bots). If this write fails, the sweep
    re-drives the task later, which does nothing twice."""
    if task is None or state == states.RETRY:
        return
    row = (task.request.headers or {}).get(outbox.HEADER)
    if row is None:
        return
    try:
        outbox.mark_done(int(row))
    except DatabaseError:
        log.warning("follow-up %s ran but could not be marked done", row, exc_info=True)


# A lost database connection or a deadlock victim is worth another try; the
# task re-reads everything, so running it again is safe. These retries wait
# in the broker, well inside its visibility timeout: 2, 4, 8, 16, then every
# 30 s, 8 tries over 150 s, so a database restarting or stopped for 30 s is
# outlived with room to spare and the first try after it comes within 30 s.
# No jitter: Celery's "full jitter" may shrink every wait to nearly nothing,
# all the tries spent inside the outage (the mail then waited for the
# outbox's re-drive, minutes later).
class _Retrying(TypedDict):
    acks_late: bool
    autoretry_for: tuple[type[BaseException], ...]
    retry_backoff: int
    retry_backoff_max: int
    retry_jitter: bool
    max_retries: int


RETRYING: _Retrying = {
    "acks_late": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": 2,
    "retry_backoff_max": 30,
    "retry_jitter": False,
    "max_retries": 8,
}


def move_deadline(turn_started_at: datetime | None) -> float:
    """When the bot's search must stop, on time.monotonic: BOT_MOVE_BUDGET_SECONDS
    after its turn began. Counted from the turn, not from this task: a turn
    that waited in the queue searches less, and a second copy (a nudge, a
    re-drive) that runs while or after the first searched finds no time left
    and plays the cheapest ranking's best at once (Bot.choose_play)."""
    budget = float(django_settings.BOT_MOVE_BUDGET_SECONDS)
    waited = (clock.now() - turn_started_at).total_seconds() if turn_started_at else 0.0
    return time.monotonic() + max(0.0, budget - max(0.0, waited))


# Its own limits, above the move's budget: the budget stops the search, the
# limits only a task gone wrong (settings: BOT_TURN_SOFT_TIME_LIMIT).
@shared_task(
    **RETRYING,
    soft_time_limit=django_settings.BOT_TURN_SOFT_TIME_LIMIT,
    time_limit=django_settings.BOT_TURN_TIME_LIMIT,
)
def bot_turn(match_id: int, version: int) -> str:
    """Let the computer act for its seat, once, for the version it was scheduled for.

    Run twice or late, it finds the version moved on and does nothing.
    """
    match = Match.objects.select_related("room").filter(pk=match_id).first()
    if match is None or match.version != version or not match.room.bot:
        return "stale"
    seat = match.room.seats.get(number=2)
    bot = bots.get_bot(match.room.bot)  # looked up when called: tests swap the bot
    try:
        if match.status == Match.Status.FINISHED:
            offered = match.rematch_offered_by_id
            if offered is None or offered == seat.pk or not bot.accept_rematch():
                return "nothing to answer"
            services.rematch_accept(seat=seat)
            return "rematch"
        if match.turn_seat_id != seat.pk:
            return "not the bot's turn"
        state = MatchState.from_json(match.state)
        deadline = move_deadline(match.turn_started_at)
        action = next_action(bot, state, match.side_of(seat), deadline=deadline)
        if action is None:
            return "nothing to do"
        play = [list(step) for step in action.play] if action.play is not None else None
        services.game_act(seat=seat, version=version, kind=action.kind, play=play)
    except Conflict:
        return "stale"  # another run of this task got there first
    return action.kind


class MailTask(Task[..., int]):
    """A mail task: delivery trouble waits in the database, not in the broker.

    When the mail server is down, hung or refuses for now (an SMTP error, a
    refused connection, a timeout), the notification has released its claim,
    and the task records itself in the outbox to run again after a backoff
    that doubles up to hours (games.services.outbox.retry_delay); after MAIL_TRIES
    tries it stays there as a dead letter the admin can send again. A mail
    whose server answer was lost after the whole message went out is retried
    the same way once (mail.Resend: the server may not have it); lost a
    second time (mail.Uncertain) it becomes a dead letter at once.
    The soft time limit hit while talking to a slow server is delivery
    trouble too (the claims were released): retried, not dropped; and so is
    an email another worker is sending right now (mail.Busy): looked at again.
    A database error is retried by Celery, past a 30 s outage, like every task
    (RETRYING).

    `attempt` counts the tries already made; callers leave it out.
    """

    acks_late = RETRYING["acks_late"]
    autoretry_for = RETRYING["autoretry_for"]
    retry_backoff = RETRYING["retry_backoff"]
    retry_backoff_max = RETRYING["retry_backoff_max"]
    retry_jitter = RETRYING["retry_jitter"]
    max_retries = RETRYING["max_retries"]
    # `attempt` is taken by __call__, not by the task's own function: no
    # signature check when publishing.
    typing = False

    def __call__(self, *args: object, attempt: int = 0, **kwargs: object) -> int:
        try:
            return super().__call__(*args, **kwargs)
        except mail.Uncertain as uncertain:
            outbox.dead_letter(self.name, args, error=str(uncertain), release=uncertain.release)
        except mail.Busy as busy:  # another worker is sending it: look again later
            outbox.retry_later(
                self.name, args, attempt=attempt + 1, error=busy, not_before=busy.until
            )
            return busy.sent
        except DELIVERY_ERRORS as error:
            tries = attempt + 1
            if _refused_for_good(error):
                tries = max(tries, django_settings.MAIL_TRIES)
            outbox.retry_later(self.name, args, attempt=tries, error=error)
        return 0

    def on_failure(
        self,
        exc: Exception,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: ExceptionInfo,
    ) -> None:
        # Anything else that finally failed a mail task (the database gone for
        # good, a bug): keep it as a dead letter if the database lets us.
        try:
            outbox.dead_letter(self.name, args, error=f"{type(exc).__name__}: {exc}")
        except OperationalError:
            pass


# ConnectionError and TimeoutError are OSErrors, and so is a refused socket.
DELIVERY_ERRORS = (smtplib.SMTPException, OSError, mail.Resend, SoftTimeLimitExceeded)


def _refused_for_good(error: BaseException) -> bool:
    """A 5xx answer: the server will say no again, straight to the dead letters."""
    return isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500


class AfterAPause(MailTask):
    """A mail task whose messages wait deadlines.TURN_EMAIL_PAUSE unless the caller says otherwise.

    The outbox publishes `turn_email.delay(...)`; the pause lets the first run
    list every game that turned to the same person meanwhile, in one message.
    The turn's push waits the same pause: a turn played within it owes neither.
    """

    # The options are passed on whole, as Celery's own apply_async reads them;
    # celery-types spells each one out, so the shorter signature is flagged.
    def apply_async(  # type: ignore[override]
        self,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
        **options: Any,
    ) -> AsyncResult[int]:
        if "countdown" not in options and "eta" not in options:
            options["countdown"] = deadlines.TURN_EMAIL_PAUSE.total_seconds()
        return super().apply_async(args, kwargs, **options)


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _owed_for(match_id: int, version: int, started: str | None) -> tuple[object, ...]:
    """A turn message's arguments as it got them, to owe it again."""
    return (match_id, version) if started is None else (match_id, version, started)


@shared_task(base=AfterAPause)
def turn_email(match_id: int, version: int, started: str | None = None) -> bool:
    """Send "Es tu turno" to the person on turn, with their other waiting games (once a turn).

    Owed for the turn that began at `started` (ISO 8601; left out by rows
    recorded before it travelled, which go by `version`). While they are on
    the board, look again when the quiet period ends (the follow-up sweep
    publishes it then).
    """
    moment = _moment(started)
    try:
        return mail.send_your_turn(match_id=match_id, version=version, started=moment) > 0
    except mail.NotNow as later:
        args = _owed_for(match_id, version, started)
        outbox.defer("games.tasks.turn_email", *args, until=later.until)
        return False


@shared_task(base=MailTask)
def opponent_joined_email(room_id: int) -> int:
    return mail.send_opponent_joined(room_id=room_id)


@shared_task(base=MailTask)
def match_ended_email(match_id: int) -> int:
    return mail.send_match_ended(match_id=match_id)


@shared_task(base=MailTask)
def invitation_email(challenge_id: int) -> int:
    """Tell an invited player who challenges them (once per invitation)."""
    return mail.send_invitation(challenge_id=challenge_id)


@shared_task(base=MailTask)
def tournament_match_email(tournament_match_id: int) -> int:
    """ "Your next match" to both players of a tournament match that opened (once each)."""
    return mail.send_tournament_match(tournament_match_id=tournament_match_id)


@shared_task(base=MailTask)
def tournament_cancelled_email(tournament_id: int) -> int:
    """A word to each who joined a tournament cancelled at its start (once each)."""
    return mail.send_tournament_cancelled(tournament_id=tournament_id)


@shared_task(base=AfterAPause)
def turn_push(match_id: int, version: int, started: str | None = None) -> int:
    """ "Es tu turno" as a Web Push message, at the email's moment and with its quiet rules."""
    moment = _moment(started)
    try:
        return mail.push.send_turn_push(match_id=match_id, version=version, started=moment)
    except mail.NotNow as later:
        outbox.defer(
            "games.tasks.turn_push", *_owed_for(match_id, version, started), until=later.until
        )
        return 0


@shared_task(base=MailTask)
def answer_played_email(turn_id: int) -> int:
    """The player whose written answer the table just played hears of it."""
    return mail.send_answer_played(turn_id=turn_id)


@shared_task(base=MailTask)
def send_absence_reminders(batch: int = 100) -> int:
    """The reminder to the player on turn, 24 h before the absence deadline."""
    return mail.send_absence_reminders(batch=batch)


@shared_task(base=MailTask)
def send_absence_claimable(batch: int = 100) -> int:
    """Tell a waiting player who chose to keep waiting that they may close by absence now."""
    return mail.send_absence_claimable(batch=batch)


# The digest may mail many addresses in one run: a longer time limit (and
# still under the broker's visibility timeout, see settings).
@shared_task(base=MailTask, soft_time_limit=200, time_limit=230)
def send_daily_digests(batch: int = 200) -> int:
    return mail.send_daily_digests(batch=batch)


# --- sweeps (beat) -------------------------------------------------------------
# Each finds due rows through an indexed query and hands them one by one to a
# service that locks the row (waiting for a holder, never skipping it) and
# re-checks: two workers running the same sweep at once close each game once,
# and neither passes over a row the other is only looking at.


@shared_task(**RETRYING)
def close_absent_games(batch: int = 100) -> int:
    """Close, as a win for the waiting player, games whose player on turn is 48 h away."""
    return sum(
        services.absence_close(match_id=match_id) is not None
        for match_id in selectors.absent_due(limit=batch)
    )


@shared_task(**RETRYING)
def expire_idle_rooms(batch: int = 100) -> int:
    """Expire rooms with no move for seven days (no winner)."""
    return sum(
        services.room_expire(room_id=room_id) is not None
        for room_id in selectors.idle_rooms_due(limit=batch)
    )


@shared_task(**RETRYING)
def expire_challenges(batch: int = 500) -> int:
    """Expire open challenges and invitations nobody accepted in seven days."""
    return services.challenges_expire(batch=batch)


@shared_task(**RETRYING)
def start_due_tournaments(batch: int = 100) -> int:
    """Start, or cancel for want of players, the open tournaments whose start has come."""
    return sum(
        services.tournament_start_due(tournament_id=tournament_id) is not None
        for tournament_id in selectors.tournaments_due(limit=batch)
    )


@shared_task(**RETRYING)
def keep_site_tournaments_open() -> int:
    """Open the next of each of the site's standing tournaments that has none open."""
    return services.site_tournaments.keep_site_tournaments_open()


# --- the follow-up machinery (beat, every minute) --------------------------------


@shared_task(**RETRYING)
def publish_follow_ups(batch: int = 200) -> int:
    """Publish the follow-ups whose publish failed or whose time came (games.services.outbox)."""
    return outbox.publish_due(batch=batch)


@shared_task(**RETRYING)
def nudge_stuck_bots(batch: int = 100) -> int:
    """Give the bot's task again to every bot that has been on turn too long.

    Its message may have been lost with a killed worker (it comes back only
    after the broker's visibility timeout) or never published. bot_turn
    re-checks version and turn, so a second copy of a live task is harmless.
    """
    stuck = selectors.stuck_bot_turns(older_than=django_settings.BOT_STUCK_AFTER, limit=batch)
    for match_id, version in stuck:
        bot_turn.apply_async((match_id, version))
    return len(stuck)


# --- analysis after the game (its own queue: seconds of bgsage never delay a bot or a mail) ---


# Bounded: a typical game takes a few seconds of CPU (bench/analysis.py); a
# game that runs past these limits is marked failed and may be asked for again.
@shared_task(
    bind=True, **RETRYING, soft_time_limit=200, time_limit=int(RUNS_AT_MOST.total_seconds())
)
def analyse_game(self: Task[[int], str], analysis_id: int) -> str:
    """Rate every decision of a finished game; run again, it rewrites the same rows.

    A retry (the database went away mid-run) or a redelivery (the worker was
    killed) finds the RUNNING mark its own earlier attempt left, and takes it up.
    """
    delivery = self.request.delivery_info or {}
    again = bool(self.request.retries) or bool(delivery.get("redelivered"))
    row = services.game_analysis_run(analysis_id=analysis_id, again=again)
    # The queue may be idle now: the full pass of a game shown by its quick one follows.
    services.analyses_deepen()
    return row.status if row is not None else "gone"


@shared_task(**RETRYING)
def requeue_stuck_analyses(batch: int = 50) -> int:
    """Owe again the analyses stuck RUNNING (games.services.analysis.requeue_stuck says
    why the outbox and the broker leave those); lost messages are the outbox's."""
    return services.requeue_stuck(limit=batch)


@shared_task(**RETRYING)
def catch_up_analyses() -> int:
    """Queue a few games analysed under earlier settings (after the evaluator changed)."""
    return services.analyses_catch_up()
