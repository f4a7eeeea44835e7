"""Celery tasks: follow-up work scheduled by games.services on commit.

Tasks are thin callers of services: they load by id, re-check that the turn
they were scheduled for is still the current one (a task may run twice, late,
or after the player already acted), then call a service. A task never trusts
the arguments beyond the ids.
"""

import smtplib

from celery import Task, shared_task
from django.db import OperationalError

from games import analysis_service, notifications, selectors, services
from games.engine.match import MatchState
from games.errors import Conflict
from games.models import Match

# A lost database connection or a deadlock victim is worth another try; the
# task re-reads everything, so running it again is safe.
RETRYING = {
    "acks_late": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**RETRYING)
def bot_turn(match_id: int, version: int) -> str:
    """Let the computer act for its seat, once, for the version it was scheduled for.

    Run twice or late, it finds the version moved on and does nothing.
    """
    match = Match.objects.select_related("room").filter(pk=match_id).first()
    if match is None or match.version != version or not match.room.bot:
        return "stale"
    seat = match.room.seats.get(number=2)
    from games.bots import get_bot
    from games.bots.runner import next_action

    bot = get_bot(match.room.bot)
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
        action = next_action(bot, state, match.side_of(seat))
        if action is None:
            return "nothing to do"
        play = [list(step) for step in action.play] if action.play is not None else None
        services.game_act(seat=seat, version=version, kind=action.kind, play=play)
    except Conflict:
        return "stale"  # another run of this task got there first
    return action.kind


class AfterAPause(Task):
    """A task whose messages wait YOUR_TURN_PAUSE unless the caller says otherwise.

    services schedules `turn_email.delay(...)`; the pause lets the first run
    list every game that turned to the same person meanwhile, in one message.
    """

    def apply_async(self, args=None, kwargs=None, **options):
        if "countdown" not in options and "eta" not in options:
            options["countdown"] = notifications.YOUR_TURN_PAUSE.total_seconds()
        return super().apply_async(args, kwargs, **options)


# Mail tasks also retry when the mail server is down or refuses for a moment;
# a notification releases its claim when sending fails, so the retry sends it.
MAILING = {
    "acks_late": True,
    "autoretry_for": (OperationalError, smtplib.SMTPException, ConnectionError, TimeoutError),
    "retry_backoff": 30,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 6,
}


@shared_task(base=AfterAPause, **MAILING)
def turn_email(match_id: int, version: int) -> bool:
    """Send "Es tu turno" to the person on turn, with their other waiting games (once a turn)."""
    return notifications.send_your_turn(match_id=match_id, version=version) > 0


@shared_task(**MAILING)
def opponent_joined_email(room_id: int) -> int:
    return notifications.send_opponent_joined(room_id=room_id)


@shared_task(**MAILING)
def match_ended_email(match_id: int) -> int:
    return notifications.send_match_ended(match_id=match_id)


@shared_task(**MAILING)
def send_absence_reminders(batch: int = 100) -> int:
    """The reminder to the player on turn, 24 h before the absence deadline."""
    return notifications.send_absence_reminders(batch=batch)


@shared_task(**MAILING)
def send_absence_claimable(batch: int = 100) -> int:
    """Tell a waiting player who chose to keep waiting that they may close by absence now."""
    return notifications.send_absence_claimable(batch=batch)


@shared_task(**MAILING)
def send_daily_digests(batch: int = 200) -> int:
    return notifications.send_daily_digests(batch=batch)


# --- sweeps (beat) -------------------------------------------------------------
# Each finds due rows through an indexed query and hands them one by one to a
# service that locks with skip_locked and re-checks: two workers running the
# same sweep at once close each game once.


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


# --- analysis after the game (its own queue: seconds of bgsage never delay a bot or a mail) ---


# Bounded: a typical game takes a few seconds of CPU (bench/analysis.py); a
# game that runs past these limits is marked failed and may be asked for again.
@shared_task(**RETRYING, soft_time_limit=240, time_limit=300)
def analyse_game(analysis_id: int) -> str:
    """Rate every decision of a finished game; run again, it rewrites the same rows."""
    row = analysis_service.game_analysis_run(analysis_id=analysis_id)
    return row.status if row is not None else "gone"


@shared_task(**RETRYING)
def requeue_analyses(batch: int = 50) -> int:
    """Send again the analyses whose message was lost (broker down, worker killed)."""
    return analysis_service.requeue_analyses(limit=batch)
