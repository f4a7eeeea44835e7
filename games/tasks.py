"""Celery tasks: follow-up work scheduled by games.services on commit.

Tasks are thin callers of services: they load by id, re-check that the turn
they were scheduled for is still the current one (a task may run twice, late,
or after the player already acted), then call a service. A task never trusts
the arguments beyond the ids.
"""

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from games import services
from games.engine.match import MatchState
from games.errors import Conflict
from games.models import Match


@shared_task(acks_late=True)
def bot_turn(match_id: int, version: int) -> str:
    """Let the computer act for its seat, once, for the version it was scheduled for.

    The decision comes from `games.bots.decide(name, state, side)`, which returns
    the engine Action the bot takes; the service applies it like a person's.
    """
    match = Match.objects.select_related("room", "turn_seat").filter(pk=match_id).first()
    if match is None or match.version != version:
        return "stale"
    seat = match.turn_seat
    if seat is None or not seat.is_bot:
        return "not the bot's turn"
    from games import bots

    state = MatchState.from_json(match.state)
    action = bots.decide(match.room.bot, state, match.side_of(seat))
    try:
        services.game_act(
            seat=seat,
            version=version,
            kind=action.kind,
            play=[list(step) for step in action.play] if action.play is not None else None,
            value=action.value,
        )
    except Conflict:
        return "stale"  # another run of this task got there first
    return action.kind


@shared_task(acks_late=True)
def turn_email(match_id: int, version: int) -> bool:
    """Tell the player on turn by email, at most once per turn (see services.turn_notice_claim)."""
    seat = services.turn_notice_claim(match_id=match_id, version=version)
    if seat is None:
        return False
    with translation.override(seat.language):
        link = settings.SITE_URL + reverse("games:room", args=[seat.room.slug])
        subject = _("Es tu turno en Mesa")
        body = _("Te toca jugar contra %(opponent)s. Tu mesa te espera aquí:\n%(link)s") % {
            "opponent": seat.room.seats.exclude(pk=seat.pk).first().nickname,
            "link": link,
        }
    send_mail(subject, body, None, [seat.email])
    return True
