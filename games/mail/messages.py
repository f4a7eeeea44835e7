"""Correspondence email: your turn, the daily digest, the opponent joined, the
game ended, the absence reminder and "you may close by absence".

Who is mailed, at which address and in which language is always
accounts.recipients.recipient_for_seat; the message goes through
accounts.emails.send_templated_mail with a one-click unsubscribe link.

Each email is sent at most once, under a claim (games.mail.claims says how,
and what happens when the server refuses or its answer is lost). Every
function re-reads and re-checks: the ids it gets are all it trusts. Which
rows are due is the selectors' (games.selectors.due).
"""

from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.db.models import Q, QuerySet
from django.urls import reverse

from accounts.emails import send_templated_mail
from accounts.models import Notify
from accounts.ratelimit import recipient_mail_allowed
from accounts.recipients import Recipient, recipient_for_seat, recipient_for_user
from accounts.services import normalize_email
from games.engine import CONDITIONAL, ActionKind, Format, MatchRules, MatchState
from games.lib import clock, deadlines
from games.mail import claims
from games.mail.news import answer_sentence, turn_news, written_answer
from games.models import Challenge, Entry, Match, Room, Seat, Tournament, TournamentMatch, Turn
from games.selectors import due, lobby, talk, vacations


class NotNow(Exception):
    """The person is on the board right now: ask again at `until` (the caller
    owes the message again then)."""

    def __init__(self, until: datetime) -> None:
        super().__init__(f"on the board, not before {until.isoformat()}")
        self.until = until


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


# A built email: who gets it, the template, the template's context.
Context = dict[str, object]
Message = tuple[Recipient, str, Context]


def _game_line(seat: Seat, match: Match, time_zone: str | None = None) -> Context:
    opponent = _opponent(seat)
    return {
        "opponent": opponent.nickname if opponent else "",
        "link": board_link(seat),
        "since": match.turn_started_at,
        # What happened since the reader last acted, read from the record (mail.news).
        "news": turn_news(match, seat, zone_name=time_zone),
        # The opponent's words since this player last moved (none when muted).
        "messages": talk.messages_for_email(seat, match),
    }


def _send(recipient: Recipient, template_name: str, context: Context) -> None:
    send_templated_mail(
        to=recipient.email,
        template_name=template_name,
        context=context,
        language=recipient.language,
        unsubscribe_url=recipient.unsubscribe_url,
    )


def _send_once(key: str, recipient: Recipient, template_name: str, context: Context) -> int:
    """Send under a SentEmail key: 1 when this call sent it, 0 when it was already
    sent; claims.Busy while another worker is sending it."""
    claim = claims.claim_key(key)
    if claim is None:
        return 0
    return claims.send_claimed([claim], lambda: _send(recipient, template_name, context))


# --- "Es tu turno" ------------------------------------------------------------------


def turn_owed(match_id: int, version: int, started: datetime | None) -> QuerySet[Match]:
    """The playing match whose turn an "Es tu turno" was owed for: the turn that
    began at `started` (a turn's identity), so that nothing the waiting player
    does meanwhile (keep waiting, a word) cancels it; `version` for a message
    recorded before the turn's start travelled with it."""
    moment = Q(turn_started_at=started) if started is not None else Q(version=version)
    return Match.objects.filter(moment, pk=match_id, status=Match.Status.PLAYING)


def send_your_turn(*, match_id: int, version: int, started: datetime | None = None) -> int:
    """Tell the person on turn, and list every other game waiting for their address.

    Nothing when the turn begun at `started` is over (turn_owed), the seat on
    turn is the computer or wants no mail for every turn. Returns 1 when a message went out. NotNow
    while the person is on the board: they may leave before playing, so the
    caller looks again when the quiet period ends (the turn passing meanwhile
    makes that run a no-op).
    """
    match = (
        turn_owed(match_id, version, started)
        .select_related("turn_seat__room", "turn_seat__user")
        .first()
    )
    if match is None or match.turn_seat is None or match.turn_seat.is_bot:
        return 0
    recipient = recipient_for_seat(match.turn_seat)
    if recipient is None or recipient.notify != Notify.EVERY_TURN:
        return 0
    seat = match.turn_seat
    if seat.last_seen_at is not None and is_on_the_board(seat, clock.now()):
        raise NotNow(deadlines.quiet_ends(seat.last_seen_at))
    turns = claims.claim_waiting_turns(recipient)
    if not turns:
        # Told already: by a send that went out, or by one whose worker died
        # mid-send (its lease is stale, and this turn's email is owed still).
        taken = claims.take_over_turn(seat, match)
        if taken is None:
            return 0
        turns = [taken]
    games = [_game_line(turn.seat, turn.match, recipient.time_zone) for turn in turns]
    context: Context = {"games": games, "first": games[0]}
    held = [claim for turn in turns for claim in (turn.claim, turn.lease)]
    return claims.send_claimed(held, lambda: _send(recipient, "your_turn", context))


# --- a written answer played -------------------------------------------------------------

ANSWERS = (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER)


def send_answer_played(*, turn_id: int) -> int:
    """Tell a player that the answer they wrote ahead was played when the double came.

    Once per answer, to a person who wants mail for every turn and is not on
    the board right now (then they saw it). Returns 1 when a message went out.
    Owed only while the opponent plays on: when the turn came straight back
    to the writer, or the match ended, that email says it instead
    (games.services.table, news.written_answer).
    """
    turn = (
        Turn.objects.select_related("seat__room", "seat__user", "game__match")
        .filter(pk=turn_id, kind__in=ANSWERS, reason=CONDITIONAL)
        .first()
    )
    if turn is None or turn.seat.is_bot:
        return 0
    seat = turn.seat
    recipient = recipient_for_seat(seat)
    if recipient is None or recipient.notify != Notify.EVERY_TURN:
        return 0
    if is_on_the_board(seat, clock.now()):
        return 0
    opponent = _opponent(seat)
    context = {
        "opponent": opponent.nickname if opponent else "",
        "answer": str(turn.kind),
        # A take records the cube it took; a beaver the cube it took before redoubling.
        "value": turn.cube_value if turn.kind != ActionKind.DROP else turn.cube_value * 2,
        "link": board_link(seat),
    }
    return _send_once(f"answer:{turn.pk}", recipient, "answer_played", context)


# --- the daily digest -----------------------------------------------------------------


def send_daily_digests(*, batch: int = 200) -> int:
    """One message a day to each address that chose the digest, listing its waiting games.

    Walks the playing matches with someone on turn (match_turn_active_idx) in
    pages of `batch`; the key "digest:<day>:<address>" sends each address one
    digest a day, however many workers or runs. Returns how many were sent.
    """
    now = clock.now()
    day = now.date().isoformat()
    sent, after, busy = 0, 0, ""
    until: datetime | None = None  # when the busy key's lease ends
    # No digest to a player on vacation: their games are waiting by their choice.
    away = set(vacations.away_now().values_list("user_id", flat=True))
    while True:
        page = list(due.digest_page(after=after)[:batch])
        for match in page:
            seat = match.turn_seat
            if seat is None or seat.is_bot or seat.user_id in away:
                continue
            recipient = recipient_for_seat(seat)
            if recipient is None or recipient.notify != Notify.DAILY:
                continue
            try:
                sent += _send_digest(recipient, day)
            except claims.Busy as other:  # another run sends it: the rest first
                busy, until = other.key, other.until
        if len(page) < batch:
            break
        after = page[-1].pk
    if busy:
        raise claims.Busy(busy, sent, until)  # looked at again later
    return sent


def _send_digest(recipient: Recipient, day: str) -> int:
    address = normalize_email(recipient.email)
    key = f"digest:{day}:{address}"
    if due.email_sent(key):
        return 0  # the common case when one address waits in several games
    lines: list[tuple[Match, Seat]] = []
    for match in due.waiting_for_address(address).select_related("room", "turn_seat__room"):
        seat = match.turn_seat
        if seat is None:  # the query asks for a seat on turn
            continue
        mine = recipient_for_seat(seat)
        if not seat.is_bot and mine and normalize_email(mine.email) == address:
            lines.append((match, seat))
    if not lines:
        return 0
    # A seat on turn means a turn start (the `or` is for the type).
    now = clock.now()
    lines.sort(key=lambda line: line[0].turn_started_at or now)
    games = [_game_line(seat, match, recipient.time_zone) for match, seat in lines]
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
    if TournamentMatch.objects.filter(room=room).exists():
        return 0  # a tournament's players hear "your next match" instead
    seats = {seat.number: seat for seat in Seat.objects.filter(room=room).select_related("user")}
    host, guest = seats.get(1), seats.get(2)
    if host is None or guest is None:
        return 0
    host.room = room
    recipient = recipient_for_seat(host)
    # On the board when the guest sat down, or there since: the host knows.
    if recipient is None or deadlines.saw_it(host.last_seen_at, guest.created_at):
        return 0
    joined = claims.claim_key(f"joined:{room.pk}")
    if joined is None:
        return 0
    # When it is the host's turn this message says so, and claims that turn as
    # told with its own key, before it is sent: no separate "Es tu turno" for
    # it (marked only after sending, as before, a turn email claimed meanwhile
    # announced the same turn again). A takeover of a dead worker's key takes
    # over the turn that worker claimed, and says it too.
    on_turn, turn = claims.claim_seat_turn(host.pk, joined)
    context: Context = {
        "opponent": guest.nickname,
        "link": board_link(host),
        # Only a turn this message claims: one "Es tu turno" told already is not
        # told twice (and who starts is no news then).
        "your_turn": bool(turn),
        "told": on_turn is not None and not turn,
    }
    return claims.send_claimed(
        [joined, *turn], lambda: _send(recipient, "opponent_joined", context)
    )


def send_invitation(*, challenge_id: int) -> int:
    """Tell an invited player who challenges them and to what (once per invitation).

    Nothing when the invitation is no longer open by the time the worker runs,
    or when the invitee gets no mail. Returns 1 when this call sent it.
    """
    challenge = (
        Challenge.objects.select_related("author__profile", "invitee__profile")
        .filter(pk=challenge_id, status=Challenge.Status.OPEN, invitee__isnull=False)
        .first()
    )
    if challenge is None or challenge.invitee is None:
        return 0
    recipient = recipient_for_user(challenge.invitee)
    if recipient is None:
        return 0
    context = {
        "author": lobby.player_name(challenge.author),
        "rules": challenge.rules,
        "expires_at": challenge.expires_at,
        "link": settings.SITE_URL + reverse("games:my_rooms"),
    }
    claim = claims.claim_key(f"invitation:{challenge.pk}")
    if claim is None:
        return 0
    # Counted once claimed, so a second run of a sent one counts nothing.
    if not recipient_mail_allowed(kind="invitation", email=recipient.email):
        claims.release([claim])
        return 0  # a few a day to one player; the rest wait in "Mis partidas" (logged)
    return claims.send_claimed([claim], lambda: _send(recipient, "invitation", context))


def send_match_ended(*, match_id: int) -> int:
    """Tell each player how the match (or partida, or session) ended, once each.

    Not someone who was on the board when it ended, or came to it since: they
    saw it (deadlines.saw_it), however late the worker is.
    """
    match = Match.objects.select_related("room").filter(pk=match_id).first()
    if match is None or match.status != Match.Status.FINISHED:
        return 0
    room = match.room
    state = MatchState.from_json(match.state)
    reason = "expired" if room.status == Room.Status.EXPIRED else (state.end_reason or "won")
    now = clock.now()
    ended = match.ended_at or now
    sent, busy = 0, ""
    until: datetime | None = None  # when the busy key's lease ends
    for seat in Seat.objects.filter(room=room).select_related("user"):
        seat.room = room
        # On the board when it ended, or there since (checked now, at send time).
        if seat.is_bot or deadlines.saw_it(seat.last_seen_at, ended):
            continue
        recipient = recipient_for_seat(seat)
        if recipient is None:
            continue
        side = match.side_of(seat)
        opponent = _opponent(seat)
        # The table answered a double for this player as written, and the game ended
        # the match: this email says so (no separate one, games.services.table).
        answered = written_answer(match, side)
        context = {
            "answered": (
                answer_sentence(answered[0], opponent.nickname if opponent else "", answered[1])
                if answered
                else ""
            ),
            "reason": reason,
            "won": match.winner_side == side,
            "lost": match.winner_side is not None and match.winner_side != side,
            "opponent": opponent.nickname if opponent else "",
            "score": list(state.score) if side == 0 else list(reversed(state.score)),
            "show_score": MatchRules.from_json(room.rules).format is not Format.SINGLE,
            "days": room.days_per_move,
            "link": board_link(seat),
        }
        try:
            sent += _send_once(f"ended:{match.pk}:{seat.number}", recipient, "match_ended", context)
        except claims.Busy as other:  # the other player's first
            busy, until = other.key, other.until
    if busy:
        raise claims.Busy(busy, sent, until)
    return sent


# --- the absence deadline (beat sweeps) -------------------------------------------------


def send_absence_reminders(*, batch: int = 100) -> int:
    """Remind each player on turn, 24 h before the absence deadline, once per turn."""
    due_ids = due.reminder_due(limit=batch)
    return sum(_send_for_turn(i, "reminder_sent_for", _reminder) for i in due_ids)


def send_absence_claimable(*, batch: int = 100) -> int:
    """Tell each waiting player who kept waiting that 48 h passed: they may close now."""
    due_ids = due.absence_claimable_due(limit=batch)
    return sum(_send_for_turn(i, "absence_notice_sent_for", _claimable) for i in due_ids)


def _send_for_turn(
    match_id: int, field: str, build: Callable[[int, datetime], Message | None]
) -> int:
    """Claim the match's `field` (claims.claim_turn_field says its key), then build
    and send its email."""
    claim = claims.claim_turn_field(match_id, field, reminder=build is _reminder)
    if claim is None or claim.claimed is None:  # a field claim holds its key
        return 0
    message = build(match_id, claim.claimed)
    if message is None:
        return 0
    recipient, template_name, context = message
    return claims.send_claimed([claim], lambda: _send(recipient, template_name, context))


def _reminder(match_id: int, deadline: datetime) -> Message | None:
    match = Match.objects.select_related("turn_seat__room", "turn_seat__user").get(pk=match_id)
    seat = match.turn_seat
    if seat is None or match.absence_due_at != deadline:
        # Since the claim the turn passed or the deadline moved: the seat on turn
        # now is someone else's, or a new deadline owes its own reminder.
        return None
    recipient = recipient_for_seat(seat)
    if recipient is None:
        return None
    opponent = _opponent(seat)
    context: Context = {
        "opponent": opponent.nickname if opponent else "",
        "deadline": deadline,
        "link": board_link(seat),
    }
    return recipient, "absence_reminder", context


def _claimable(match_id: int, started: datetime) -> Message | None:
    match = Match.objects.select_related("room").get(pk=match_id)
    if match.turn_seat_id is None or match.turn_started_at != started:
        # The claimed turn is over (played, or the match ended): the seat on turn
        # now is not the absent one, and the waiting player has nothing to close.
        return None
    absent = Seat.objects.get(pk=match.turn_seat_id)
    waiting = Seat.objects.select_related("room", "user").get(
        room_id=match.room_id, number=3 - absent.number
    )
    recipient = recipient_for_seat(waiting)
    if recipient is None:
        return None
    context = {
        "opponent": absent.nickname,
        "since": started,
        "days": match.room.days_per_move,
        "link": board_link(waiting),
    }
    return recipient, "absence_claimable", context


# --- tournaments ---------------------------------------------------------------------


def send_tournament_match(*, tournament_match_id: int) -> int:
    """ "Your next match": each player of a tournament match that just opened, once
    each (the key names the match and the player). Returns how many went out."""
    row = (
        TournamentMatch.objects.select_related(
            "tournament", "room", "player_a__user__profile", "player_b__user__profile"
        )
        .filter(pk=tournament_match_id, room__isnull=False)
        .first()
    )
    if row is None or row.room is None or row.player_a is None or row.player_b is None:
        return 0
    sent = 0
    link = settings.SITE_URL + reverse("games:room", args=[row.room.slug])
    for entry, other in ((row.player_a, row.player_b), (row.player_b, row.player_a)):
        recipient = recipient_for_user(entry.user)
        if recipient is None:
            continue
        context: Context = {
            "tournament": row.tournament.name,
            "opponent": lobby.player_name(other.user),
            "length": row.length,
            "days": row.tournament.days_per_move,
            "link": link,
        }
        key = f"tournament-match:{row.pk}:{entry.pk}"
        sent += _send_once(key, recipient, "tournament_match", context)
    return sent


def send_tournament_cancelled(*, tournament_id: int) -> int:
    """A tournament that did not fill by its start: a word to each who joined, once."""
    tournament = Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.CANCELLED
    ).first()
    if tournament is None:
        return 0
    sent = 0
    link = settings.SITE_URL + reverse("games:tournaments")
    for entry in Entry.objects.filter(tournament=tournament).select_related("user__profile"):
        recipient = recipient_for_user(entry.user)
        if recipient is None:
            continue
        context: Context = {"tournament": tournament.name, "link": link}
        key = f"tournament-cancelled:{tournament.pk}:{entry.pk}"
        sent += _send_once(key, recipient, "tournament_cancelled", context)
    return sent
