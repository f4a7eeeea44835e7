"""Due work: what every sweep and periodic email looks for, in one place.

Each query uses a partial index (see games.models) and returns ids (or a
page) for a writer that locks the row with lock_for_sweep (waiting, never
skipping) and re-checks everything: games.services.sweeps, games.mail.messages,
games.tasks.
"""

from datetime import timedelta

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from games.lib import clock, deadlines, evaluator
from games.models import Game, GameAnalysis, Match, Room, SentEmail, Tournament
from games.selectors import vacations


def absent_due(*, limit: int = 100) -> list[int]:
    """Matches past their absence deadline that the waiting player did not choose
    to keep waiting: for games.services.sweeps.absence_close."""
    matches = (
        Match.objects.filter(status=Match.Status.PLAYING, absence_due_at__lte=clock.now())
        .exclude(absence_waived_for=F("turn_started_at"))
        .order_by("absence_due_at")
    )
    return list(matches.values_list("pk", flat=True)[:limit])


def reminder_due(*, limit: int = 100) -> list[int]:
    """Matches whose player on turn is 24 h from the deadline and was not reminded
    of this deadline (the reminder sweep; Match.reminder_sent_for holds the deadline
    reminded, so a deadline a vacation moved is reminded again, once)."""
    after, until = deadlines.reminder_window(clock.now())
    matches = (
        Match.objects.filter(
            status=Match.Status.PLAYING, absence_due_at__gt=after, absence_due_at__lte=until
        )
        .exclude(reminder_sent_for=F("absence_due_at"))
        .order_by("absence_due_at")
    )
    return list(matches.values_list("pk", flat=True)[:limit])


def idle_rooms_due(*, limit: int = 100) -> list[int]:
    """Active rooms with no move for seven days: for games.services.sweeps.room_expire.

    Not the rooms waiting for a player on vacation now: their idle days stand
    still (room_expire counts the pauses exactly once they are over).
    """
    now = clock.now()
    cutoff = deadlines.idle_cutoff(now)
    away = vacations.away_now().filter(user_id=OuterRef("turn_seat__user_id"))
    waiting_for_away = Match.objects.filter(status=Match.Status.PLAYING).filter(Exists(away))
    rooms = Room.objects.filter(status__in=Room.ACTIVE, last_move_at__lte=cutoff).exclude(
        pk__in=waiting_for_away.values("room_id")
    )
    return list(rooms.order_by("last_move_at").values_list("pk", flat=True)[:limit])


def tournaments_due(*, limit: int = 100) -> list[int]:
    """Open tournaments whose start has come: started with their minimum, or
    cancelled (games.services.tournaments.tournament_start_due)."""
    return list(tournaments_due_query().values_list("pk", flat=True)[:limit])


def tournaments_due_query() -> QuerySet[Tournament]:
    """tournaments_due's query, on the partial index of open tournaments by start."""
    return Tournament.objects.filter(
        status=Tournament.Status.OPEN, starts_at__lte=clock.now()
    ).order_by("starts_at")


def stuck_bot_turns(*, older_than: timedelta, limit: int = 100) -> list[tuple[int, int]]:
    """(match id, version) of bot games where the bot has owed an action for
    longer than `older_than` (nothing moved in the room since): the bot sweep."""
    cutoff = clock.now() - older_than
    matches = Match.objects.filter(
        status=Match.Status.PLAYING,
        turn_seat__number=2,
        room__last_move_at__lte=cutoff,
        room__status=Room.Status.PLAYING,
    ).exclude(room__bot="")
    return list(matches.order_by("room__last_move_at").values_list("pk", "version")[:limit])


def absence_claimable_matches() -> QuerySet[Match]:
    """Matches past the 48 h whose waiting player chose to keep waiting (so the
    sweep will not close them) and was not told yet that they may close them."""
    return (
        Match.objects.filter(
            status=Match.Status.PLAYING,
            absence_due_at__lte=clock.now(),
            absence_waived_for=F("turn_started_at"),
        )
        .exclude(absence_notice_sent_for=F("turn_started_at"))
        .order_by("absence_due_at")
    )


def absence_claimable_due(*, limit: int = 100) -> list[int]:
    """For the "you may close by absence" email."""
    return list(absence_claimable_matches().values_list("pk", flat=True)[:limit])


def digest_page(*, after: int) -> QuerySet[Match]:
    """Playing matches with someone on turn, by id from `after` on (keyset pages)."""
    return (
        Match.objects.filter(
            status=Match.Status.PLAYING, turn_started_at__isnull=False, pk__gt=after
        )
        .select_related("turn_seat__room", "turn_seat__user")
        .order_by("pk")
    )


def waiting_for_address(email: str) -> QuerySet[Match]:
    """Playing matches whose seat on turn belongs to this address (account or guest)."""
    belongs = Q(turn_seat__user__isnull=True, turn_seat__email__iexact=email) | Q(
        turn_seat__user__email__iexact=email
    )
    return Match.objects.filter(belongs, status=Match.Status.PLAYING, turn_seat__isnull=False)


def email_sent(key: str) -> bool:
    """A SentEmail row holds this key, sent or uncertain (not one being sent now,
    which its worker may yet free or leave stale: games.mail.claims.claim_key)."""
    return SentEmail.objects.filter(key=key).exclude(state=SentEmail.State.SENDING).exists()


def lock_for_sweep(match_id: int) -> Match | None:
    """The row lock every sweep takes, in the caller's transaction: the playing
    match, or None when it is over.

    It waits for a worker that holds the row (an action, another sweep: each
    holds it for milliseconds and locks one match) rather than skip it: a
    sweep skipping a row does not know whether the holder will do its part,
    and the next sweep may come too late (a reminder after the deadline).
    Two sweeps at once therefore run one after the other on each row, and the
    second finds the first's claim. Every sweep transaction locks one match
    first, so they cannot deadlock each other."""
    return (
        Match.objects.select_for_update(of=("self",))
        .select_related("room")
        .filter(pk=match_id, status=Match.Status.PLAYING)
        .first()
    )


def analyses_behind(*, limit: int, quick_only: bool = False) -> list[int]:
    """Finished games analysed only under earlier settings or by their quick pass, the
    latest ended first: for games.services.analysis's catch-up (after the evaluator
    changed, or when the queue is idle again after a burst). ``quick_only``: only
    games whose current quick pass is DONE.

    A game never analysed at all is not here: every finished game is queued when
    it ends (games.services.table), and one whose analysis was never asked for
    ended before there was any. Nor is one whose current analysis waits, runs,
    is done or failed (a seat asks again for a failed one): only one DEFERRED
    after its quick pass is owed again.
    """
    current = evaluator.current_version()
    of_game = GameAnalysis.objects.filter(game=OuterRef("pk"))
    games = (
        Game.objects.filter(status=Game.Status.FINISHED)
        .filter(Exists(of_game.exclude(version=current)))
        .exclude(
            Exists(of_game.filter(version=current).exclude(status=GameAnalysis.Status.DEFERRED))
        )
        .order_by(F("ended_at").desc(nulls_last=True), "-pk")
    )
    if quick_only:
        quick = of_game.filter(version=evaluator.quick_version(), status=GameAnalysis.Status.DONE)
        games = games.filter(Exists(quick))
    return list(games.values_list("pk", flat=True)[:limit])
