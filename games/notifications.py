"""Correspondence email: your turn, the daily digest, the opponent joined, the
game ended, the absence reminder and "you may close by absence".

Who is mailed, at which address and in which language is always
accounts.recipients.recipient_for_seat; the message goes through
accounts.emails.send_templated_mail with a one-click unsubscribe link.

Each email is sent at most once. A function first *claims* it in a short
transaction (a bookkeeping field set to the turn it is about, or a SentEmail
row with a unique key in state "sending"), commits, then sends. When the
server refuses or cannot be reached, the claim is released so the task's
retry (games.tasks, spread over hours) sends it. When the whole message went
out and only the server's answer was lost (games.smtp.ReplyLost), the claim
is kept and the mail becomes a dead letter for a person to check: sending it
again could deliver it twice, and most often the server did accept it.

The one duplicate we accept: a worker killed while a SentEmail key is
"sending" (mid-conversation with the server). Its message comes back to
another worker after the broker's visibility timeout, longer than any task may
run, so the claim is stale by then; that worker takes it over and sends. The
alternative, treating a stale "sending" as sent, loses every mail whose worker
died before reaching the server, which is the far more likely moment to die.
(A turn or sweep email claimed by a field has no "sending" state: a worker
killed mid-send loses it, and the 24-hour reminder still comes.)

No row lock is held while talking to the mail server. Every function re-reads
and re-checks: the ids it gets are all it trusts.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse

from accounts.emails import send_templated_mail
from accounts.models import Notify
from accounts.recipients import Recipient, recipient_for_seat
from accounts.services import normalize_email
from games import clock, deadlines, lobby, outbox, selectors
from games.engine.match import Format, MatchRules, MatchState
from games.models import Match, Room, Seat, SentEmail
from games.smtp import ReplyLost

# "Es tu turno" waits this long (games.deadlines; a test shortens it here).
YOUR_TURN_PAUSE = deadlines.TURN_EMAIL_PAUSE


class Uncertain(Exception):
    """The server may have delivered it: not retried. `release` undoes the claim,
    for the admin's "send again" (release_claim)."""

    def __init__(self, release: dict, error: BaseException):
        super().__init__(f"the server's answer was lost: {error}")
        self.release = release


def stale_claim_after() -> timedelta:
    """A "sending" claim older than this belongs to a worker that died: a dead
    worker's task comes back after the broker's visibility timeout, which is
    longer than any task may run (its hard time limit)."""
    return timedelta(seconds=settings.CELERY_VISIBILITY_TIMEOUT)


# --- links and small questions ------------------------------------------------------


def board_link(seat: Seat) -> str:
    """The absolute link back to the board: the private seat link for a guest;
    for an account holder the seat's own address, which opens the seat when
    they are logged in and otherwise the log-in page that comes back to it."""
    room = seat.room
    if seat.user_id is None:
        path = reverse("games:seat_link", args=[room.slug, seat.mail_token()])
    else:
        path = reverse("games:my_seat", args=[room.slug])
    return settings.SITE_URL + path


def is_on_the_board(seat: Seat, now: datetime) -> bool:
    """The person looked at this board in the last two minutes: they already know."""
    return deadlines.on_the_board(seat.last_seen_at, now)


def _opponent(seat: Seat) -> Seat | None:
    return Seat.objects.filter(room_id=seat.room_id).exclude(pk=seat.pk).first()


def _game_line(seat: Seat, match: Match) -> dict:
    opponent = _opponent(seat)
    return {
        "opponent": opponent.nickname if opponent else "",
        "link": board_link(seat),
        "since": match.turn_started_at,
        # The opponent's words since this player last moved (none when muted).
        "messages": lobby.messages_for_email(seat, match),
    }


def _send(recipient: Recipient, template_name: str, context: dict) -> None:
    send_templated_mail(
        to=recipient.email,
        template_name=template_name,
        context=context,
        language=recipient.language,
        unsubscribe_url=recipient.unsubscribe_url,
    )


def _claim_key(key: str) -> bool:
    """Insert the SentEmail key as "sending"; False when another run holds it
    or sent it. A "sending" claim of a dead worker is taken over (see above)."""
    now = clock.now()
    try:
        with transaction.atomic():
            SentEmail.objects.create(key=key, sent_at=now, state=SentEmail.State.SENDING)
    except IntegrityError:
        taken_over = SentEmail.objects.filter(
            key=key, state=SentEmail.State.SENDING, sent_at__lt=now - stale_claim_after()
        ).update(sent_at=now)
        return taken_over == 1
    return True


def _release_key(key: str) -> None:
    SentEmail.objects.filter(key=key).delete()


def _send_once(key: str, recipient: Recipient, template_name: str, context: dict) -> int:
    """Send under a SentEmail key: 1 when this call sent it, 0 when it was already sent."""
    if not _claim_key(key):
        return 0
    try:
        _send(recipient, template_name, context)
    except ReplyLost as error:
        SentEmail.objects.filter(key=key).update(state=SentEmail.State.UNCERTAIN)
        raise Uncertain({"key": key}, error) from error
    except BaseException:
        _release_key(key)
        raise
    SentEmail.objects.filter(key=key).update(state=SentEmail.State.SENT, sent_at=clock.now())
    return 1


# --- "Es tu turno" ------------------------------------------------------------------


@dataclass
class _TurnClaim:
    seat: Seat
    match: Match
    previous: datetime | None  # the seat's turn_notified_at before the claim


def send_your_turn(*, match_id: int, version: int) -> int:
    """Tell the person on turn, and list every other game waiting for their address.

    Nothing when the match moved past `version`, the seat on turn is the computer
    or wants no mail for every turn. Returns 1 when a message went out.
    """
    match = (
        Match.objects.select_related("turn_seat__room", "turn_seat__user")
        .filter(pk=match_id, version=version, status=Match.Status.PLAYING)
        .first()
    )
    if match is None or match.turn_seat is None or match.turn_seat.is_bot:
        return 0
    recipient = recipient_for_seat(match.turn_seat)
    if recipient is None or recipient.notify != Notify.EVERY_TURN:
        return 0
    seat = match.turn_seat
    if is_on_the_board(seat, clock.now()):
        # They are looking now, but may leave before playing: look again when
        # the quiet period ends (the follow-up sweep publishes it then). The
        # turn passing meanwhile makes that run a no-op.
        outbox.defer(
            "games.tasks.turn_email",
            match_id,
            version,
            until=deadlines.quiet_ends(seat.last_seen_at),
        )
        return 0
    claims = _claim_waiting_turns(recipient)
    if not claims:
        return 0
    games = [_game_line(claim.seat, claim.match) for claim in claims]
    try:
        _send(recipient, "your_turn", {"games": games, "first": games[0]})
    except ReplyLost as error:
        release = {"turns": [_claim_json(claim) for claim in claims]}
        raise Uncertain(release, error) from error
    except BaseException:
        _release_turns(claims)
        raise
    return 1


def _waiting_matches(email: str):
    """Playing matches whose seat on turn belongs to this address (account or guest)."""
    belongs = Q(turn_seat__user__isnull=True, turn_seat__email__iexact=email) | Q(
        turn_seat__user__email__iexact=email
    )
    return Match.objects.filter(belongs, status=Match.Status.PLAYING, turn_seat__isnull=False)


def _claim_waiting_turns(recipient: Recipient) -> list[_TurnClaim]:
    """Mark as told every turn of this address not told yet; return what was marked.

    The seat rows stay locked until commit, so of two workers mailing the same
    address at once, the second finds the turns already marked.
    """
    now = clock.now()
    address = normalize_email(recipient.email)
    with transaction.atomic():
        seat_ids = list(_waiting_matches(address).values_list("turn_seat_id", flat=True))
        seats = (
            Seat.objects.select_for_update(of=("self",))
            .select_related("room", "user")
            .filter(pk__in=seat_ids)
            .order_by("pk")  # one lock order for every worker
        )
        matches = {
            m.turn_seat_id: m
            for m in Match.objects.select_related("room").filter(
                turn_seat_id__in=seat_ids, status=Match.Status.PLAYING
            )
        }
        claims = []
        for seat in seats:
            match = matches.get(seat.pk)
            if match is None or seat.is_bot or seat.turn_notified_at == match.turn_started_at:
                continue
            if is_on_the_board(seat, now):
                continue
            mine = recipient_for_seat(seat)
            if mine is None or normalize_email(mine.email) != address:
                continue
            if mine.notify != Notify.EVERY_TURN:
                continue
            claims.append(_TurnClaim(seat, match, seat.turn_notified_at))
            Seat.objects.filter(pk=seat.pk).update(turn_notified_at=match.turn_started_at)
    claims.sort(key=lambda claim: claim.match.turn_started_at)
    return claims


def _release_turns(claims: list[_TurnClaim]) -> None:
    for claim in claims:
        _release_turn(claim.seat.pk, claim.match.turn_started_at, claim.previous)


def _release_turn(seat_id: int, started, previous) -> None:
    Seat.objects.filter(pk=seat_id, turn_notified_at=started).update(turn_notified_at=previous)


def _claim_json(claim: _TurnClaim) -> list:
    return [claim.seat.pk, _iso(claim.match.turn_started_at), _iso(claim.previous)]


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def release_claim(release: dict) -> None:
    """Undo the claim of an "uncertain" mail (Uncertain.release), so that its
    task sends it again: the admin's "send again", after a person checked."""
    if "key" in release:
        SentEmail.objects.filter(key=release["key"]).delete()
    for seat_id, started, previous in release.get("turns", []):
        _release_turn(seat_id, _parse(started), _parse(previous))
    if "field" in release:
        _release_turn_field(release["match"], release["field"], _parse(release["started"]))


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


# --- the daily digest -----------------------------------------------------------------


def send_daily_digests(*, batch: int = 200) -> int:
    """One message a day to each address that chose the digest, listing its waiting games.

    Walks the playing matches with someone on turn (match_turn_active_idx) in
    pages of `batch`; the key "digest:<day>:<address>" sends each address one
    digest a day, however many workers or runs. Returns how many were sent.
    """
    now = clock.now()
    day = now.date().isoformat()
    sent, after = 0, 0
    while True:
        page = list(digest_page(after=after)[:batch])
        for match in page:
            seat = match.turn_seat
            if seat is None or seat.is_bot:
                continue
            recipient = recipient_for_seat(seat)
            if recipient is None or recipient.notify != Notify.DAILY:
                continue
            sent += _send_digest(recipient, day)
        if len(page) < batch:
            return sent
        after = page[-1].pk


def digest_page(*, after: int):
    """Playing matches with someone on turn, by id from `after` on (keyset pages)."""
    return (
        Match.objects.filter(
            status=Match.Status.PLAYING, turn_started_at__isnull=False, pk__gt=after
        )
        .select_related("turn_seat__room", "turn_seat__user")
        .order_by("pk")
    )


def _send_digest(recipient: Recipient, day: str) -> int:
    address = normalize_email(recipient.email)
    key = f"digest:{day}:{address}"
    if SentEmail.objects.filter(key=key).exists():
        return 0  # the common case when one address waits in several games
    lines = []
    for match in _waiting_matches(address).select_related("room", "turn_seat__room"):
        seat = match.turn_seat
        mine = recipient_for_seat(seat)
        if not seat.is_bot and mine and normalize_email(mine.email) == address:
            lines.append((match, seat))
    if not lines:
        return 0
    lines.sort(key=lambda line: line[0].turn_started_at)
    games = [_game_line(seat, match) for match, seat in lines]
    sent = _send_once(key, recipient, "daily_digest", {"games": games, "now": clock.now()})
    if sent:
        Seat.objects.filter(pk__in=[seat.pk for _, seat in lines]).update(
            digest_sent_at=clock.now()
        )
    return sent


# --- the opponent joined, the game ended ------------------------------------------------


def send_opponent_joined(*, room_id: int) -> int:
    """Tell the host that someone sat down at their table (once per room)."""
    room = Room.objects.filter(pk=room_id).first()
    if room is None or room.bot:
        return 0
    seats = {seat.number: seat for seat in Seat.objects.filter(room=room).select_related("user")}
    host, guest = seats.get(1), seats.get(2)
    if host is None or guest is None:
        return 0
    host.room = room
    recipient = recipient_for_seat(host)
    if recipient is None or is_on_the_board(host, clock.now()):
        return 0
    match = selectors.current_match(room)
    your_turn = match is not None and match.turn_seat_id == host.pk
    context = {"opponent": guest.nickname, "link": board_link(host), "your_turn": your_turn}
    sent = _send_once(f"joined:{room.pk}", recipient, "opponent_joined", context)
    if sent and your_turn:
        # This message said it is their turn: no separate "Es tu turno" for it.
        Seat.objects.filter(pk=host.pk).update(turn_notified_at=match.turn_started_at)
    return sent


def send_match_ended(*, match_id: int) -> int:
    """Tell each player how the match (or partida, or session) ended, once each.

    Not someone who is on the board right now: they saw it happen.
    """
    match = Match.objects.select_related("room").filter(pk=match_id).first()
    if match is None or match.status != Match.Status.FINISHED:
        return 0
    room = match.room
    state = MatchState.from_json(match.state)
    reason = "expired" if room.status == Room.Status.EXPIRED else (state.end_reason or "won")
    now = clock.now()
    sent = 0
    for seat in Seat.objects.filter(room=room).select_related("user"):
        seat.room = room
        if seat.is_bot or is_on_the_board(seat, now):
            continue
        recipient = recipient_for_seat(seat)
        if recipient is None:
            continue
        side = match.side_of(seat)
        opponent = _opponent(seat)
        context = {
            "reason": reason,
            "won": match.winner_side == side,
            "lost": match.winner_side is not None and match.winner_side != side,
            "opponent": opponent.nickname if opponent else "",
            "score": list(state.score) if side == 0 else list(reversed(state.score)),
            "show_score": MatchRules.from_json(room.rules).format is not Format.SINGLE,
            "link": board_link(seat),
        }
        sent += _send_once(f"ended:{match.pk}:{seat.number}", recipient, "match_ended", context)
    return sent


# --- the absence deadline (beat sweeps) -------------------------------------------------


def send_absence_reminders(*, batch: int = 100) -> int:
    """Remind each player on turn, 24 h before the absence deadline, once per turn."""
    return sum(_remind(match_id) for match_id in selectors.reminder_due(limit=batch))


def _remind(match_id: int) -> int:
    started = _claim_turn_field(match_id, "reminder_sent_for", reminder=True)
    if started is None:
        return 0
    match = Match.objects.select_related("turn_seat__room", "turn_seat__user").get(pk=match_id)
    seat = match.turn_seat
    recipient = recipient_for_seat(seat) if seat is not None else None
    if recipient is None:
        return 0
    opponent = _opponent(seat)
    context = {
        "opponent": opponent.nickname if opponent else "",
        # The claimed turn's deadline (the match may have moved on since).
        "deadline": deadlines.TurnClock(started).due_at,
        "link": board_link(seat),
    }
    return _send_claimed(
        match_id, "reminder_sent_for", started, recipient, "absence_reminder", context
    )


def absence_claimable_matches():
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
    return list(absence_claimable_matches().values_list("pk", flat=True)[:limit])


def send_absence_claimable(*, batch: int = 100) -> int:
    """Tell each waiting player who kept waiting that 48 h passed: they may close now."""
    return sum(_tell_claimable(match_id) for match_id in absence_claimable_due(limit=batch))


def _tell_claimable(match_id: int) -> int:
    started = _claim_turn_field(match_id, "absence_notice_sent_for", reminder=False)
    if started is None:
        return 0
    match = Match.objects.select_related("room").get(pk=match_id)
    absent = Seat.objects.get(pk=match.turn_seat_id)
    waiting = Seat.objects.select_related("room", "user").get(
        room_id=match.room_id, number=3 - absent.number
    )
    recipient = recipient_for_seat(waiting)
    if recipient is None:
        return 0
    context = {"opponent": absent.nickname, "since": started, "link": board_link(waiting)}
    return _send_claimed(
        match_id, "absence_notice_sent_for", started, recipient, "absence_claimable", context
    )


def _claim_turn_field(match_id: int, field: str, *, reminder: bool) -> datetime | None:
    """Lock the match (skipping it when another worker holds it), check that the
    email is due for this turn, and set `field` to the turn. Returns the turn's
    start, or None when there is nothing to send."""
    now = clock.now()
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("room")
            .filter(pk=match_id, status=Match.Status.PLAYING)
            .first()
        )
        if match is None or match.turn_seat_id is None:
            return None
        started = match.turn_started_at
        if getattr(match, field) == started:
            return None
        turn = deadlines.TurnClock.of(match, against_bot=bool(match.room.bot))
        if reminder:
            due = turn.reminder_due(now)
        else:
            due = turn.claimable(now) and turn.waived
        if not due:
            return None
        Match.objects.filter(pk=match.pk).update(**{field: started})
        return started


def _release_turn_field(match_id: int, field: str, started: datetime) -> None:
    Match.objects.filter(pk=match_id, **{field: started}).update(**{field: None})


def _send_claimed(match_id, field, started, recipient, template_name, context) -> int:
    """Send an email claimed with _claim_turn_field; on failure free the claim for the retry."""
    try:
        _send(recipient, template_name, context)
    except ReplyLost as error:
        release = {"match": match_id, "field": field, "started": _iso(started)}
        raise Uncertain(release, error) from error
    except BaseException:
        _release_turn_field(match_id, field, started)
        raise
    return 1
