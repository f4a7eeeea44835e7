"""The at-most-once claims: each email is claimed before it is sent, once.

A function first *claims* its email in a short transaction, then commits,
then sends. Three kinds of claim, one protocol and one way back:

- a SentEmail row with a unique key in state "sending" (the digest, the
  opponent joined, the match ended): claim_key;
- each waiting turn of an address marked as told (Seat.turn_notified_at set
  to the turn's start, "Es tu turno"): claim_waiting_turns;
- a bookkeeping field of the match set to what it is about: the deadline for
  the absence reminder, the turn for "you may close by absence":
  claim_turn_field.

send_claimed sends under the claims. When the server refuses or cannot be
reached, the claims are released (release) so the task's retry (games.tasks,
spread over hours) sends it.

When the whole message went out and only the server's answer was lost
(games.mail.smtp.ReplyLost), the server most likely has it, but may not: at
least once is the honest promise, with at most one duplicate. The first time
an email's answer is lost, a "lost:" SentEmail row records it and the claims
are released (Resend, a delivery error for games.tasks: the task's retry, or
the next sweep, sends it once more). The second time, the "lost:" row is
there already: the claims are kept and the mail becomes a dead letter for a
person to check, never sent again by itself. So one email reaches the server
at most twice by a lost answer, whichever task or sweep resends it. A dead
letter's claims travel with it in one shape, {"claims": [Claim.to_json(),
...]}, and release_claim undoes them for the admin's "send again".

The other duplicate we accept: a worker killed while a SentEmail key is
"sending" (mid-conversation with the server). A "sending" claim is a lease of
stale_claim_after(): the send under it ends by settings.MAIL_SEND_SECONDS
from the claim (games.mail.smtp: nothing goes out past that, and no wait for
the server lasts beyond it), so a claim older than the lease is a dead
worker's. A copy of the task that finds the claim held looks again when the
lease ends (Busy.until), and takes it over and sends. The alternative,
treating a stale "sending" as sent, loses every mail whose worker died
before reaching the server, which is the far more likely moment to die.
"Es tu turno", claimed by the seat's field, has a lease too: a LEASE row per
turn, written with the field and deleted when the send ends, which
take_over_turn takes over once stale. A turn "someone sat down" claimed has
its own, which travels with that email's key (claim_seat_turn). (A sweep's email claimed by a match
field has none: a worker killed mid-send loses it, and the 24-hour reminder
still comes.)

No row lock is held while talking to the mail server.
"""

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import Notify
from accounts.recipients import Recipient, recipient_for_seat
from accounts.services import normalize_email
from games.lib import clock, deadlines
from games.mail.smtp import ReplyLost, deadline
from games.models import Match, Seat, SentEmail
from games.selectors import due, vacations

KEY, SEAT, MATCH, LEASE = "sent_email", "seat", "match", "lease"


@dataclass(frozen=True)
class Claim:
    """One claim and what undoes it.

    row KEY: the SentEmail row whose key is `id`, claimed at `claimed` (its
    sent_at; undone by deleting it while it still holds that sent_at);
    row LEASE: the same, for a send whose claim is a field (a turn told): the
    row lives only while it is sent, and a stale one is taken over (see
    take_over_turn);
    row SEAT or MATCH: `field` of that row set from `previous` to `claimed`
    (undone by setting it back, if it still holds `claimed`).
    """

    row: str
    id: int | str
    field: str = ""
    claimed: datetime | None = None
    previous: datetime | None = None
    # When a KEY claim was taken, time.monotonic(): its send ends by this plus
    # MAIL_SEND_SECONDS. This worker's own; not kept in the JSON.
    taken_at: float | None = dataclasses.field(default=None, compare=False)

    def to_json(self) -> "ClaimJSON":
        return {
            "row": self.row,
            "id": self.id,
            "field": self.field,
            "claimed": _iso(self.claimed),
            "previous": _iso(self.previous),
        }

    @classmethod
    def from_json(cls, data: "ClaimJSON") -> "Claim":
        claimed, previous = _parse(data["claimed"]), _parse(data["previous"])
        return cls(data["row"], data["id"], data["field"], claimed, previous)


class ClaimJSON(TypedDict):
    """A Claim as FollowUp.release keeps it (times in ISO 8601)."""

    row: str
    id: int | str
    field: str
    claimed: str | None
    previous: str | None


class ReleaseJSON(TypedDict):
    """What undoes an uncertain mail's claims: Uncertain.release, FollowUp.release."""

    claims: list[ClaimJSON]


class Busy(Exception):
    """Another worker holds this email's key as "sending", younger than a dead
    worker's: look again at `until`, when its lease ends (the task's retry). By
    then it is sent, or its worker died and the claim is stale and taken over.
    Dropping it instead lost the email when that worker had died: a killed
    worker's task may come back at once (reject on worker lost) or by the
    outbox's re-drive. `sent`: what the call sent besides."""

    def __init__(self, key: str, sent: int = 0, until: datetime | None = None) -> None:
        super().__init__(f"{key} is being sent by another worker")
        self.key, self.sent, self.until = key, sent, until


class Resend(Exception):
    """The server's answer to a message that went out whole was lost, for the
    first time: the claims were released, so the email is owed again and is sent
    once more (a delivery error: the task's retry, or the next sweep)."""


class Uncertain(Exception):
    """The server's answer was lost a second time: not retried. `release` (the
    claims as JSON) undoes the claims, for the admin's "send again" (release_claim)."""

    def __init__(self, claims: list[Claim], error: BaseException) -> None:
        super().__init__(f"the server's answer was lost: {error}")
        self.release: ReleaseJSON = {"claims": [claim.to_json() for claim in claims]}


def stale_claim_after() -> timedelta:
    """A "sending" claim older than this belongs to a worker that died: a live
    one ended its send by MAIL_SEND_SECONDS from the claim (games.mail.smtp),
    and had EMAIL_TIMEOUT more to write "sent"."""
    return timedelta(seconds=settings.MAIL_SEND_SECONDS + (settings.EMAIL_TIMEOUT or 0))


def _send_deadline(claims: list[Claim]) -> float | None:
    """time.monotonic() by which a send under `claims` ends: MAIL_SEND_SECONDS
    after the earliest lease among them; None when none is a lease."""
    taken = [claim.taken_at for claim in claims if claim.taken_at is not None]
    return min(taken) + settings.MAIL_SEND_SECONDS if taken else None


def send_claimed(claims: list[Claim], send: Callable[[], None]) -> int:
    """Send under `claims`: 1 when sent; on failure the claims are released. When
    only the server's answer was lost: released (Resend) the first time, kept
    and the mail uncertain the second (see above). A LEASE ends either way."""
    keys = [claim.id for claim in claims if claim.row == KEY]
    leases = [claim for claim in claims if claim.row == LEASE]
    kept = [claim for claim in claims if claim.row != LEASE]
    try:
        with deadline(_send_deadline(claims)):
            send()
    except ReplyLost as error:
        if _first_loss(kept):
            release(claims)
            raise Resend(f"the server's answer was lost, sending once more: {error}") from error
        if keys:
            SentEmail.objects.filter(key__in=keys).update(state=SentEmail.State.UNCERTAIN)
        release(leases)  # kept as told: nobody takes it over for a third copy
        raise Uncertain(kept, error) from error
    except BaseException:
        release(claims)
        raise
    if keys:
        SentEmail.objects.filter(key__in=keys).update(
            state=SentEmail.State.SENT, sent_at=clock.now()
        )
    release(leases)  # sent: the field says so now
    return 1


def lost_key(claim: Claim) -> str:
    """The SentEmail key that records a lost answer to the email of `claim`."""
    if claim.row == KEY:
        return f"lost:{claim.id}"
    return f"lost:{claim.row}:{claim.id}:{claim.field}:{_iso(claim.claimed)}"


def _first_loss(claims: list[Claim]) -> bool:
    """Record the lost answer for each claim; True when none had lost one before."""
    first, now = True, clock.now()
    for claim in claims:
        try:
            with transaction.atomic():
                SentEmail.objects.create(
                    key=lost_key(claim), sent_at=now, state=SentEmail.State.UNCERTAIN
                )
        except IntegrityError:
            first = False
    return first


def release(claims: list[Claim]) -> None:
    """Undo claims, so that the email's task sends it again."""
    for claim in claims:
        if claim.row in (KEY, LEASE):
            # Only while the row is still this claim's: once its lease ran out,
            # another worker may hold the key (its own sent_at).
            mine = {"sent_at": claim.claimed} if claim.claimed is not None else {}
            SentEmail.objects.filter(key=claim.id, **mine).delete()
            continue
        model = Seat if claim.row == SEAT else Match
        model.objects.filter(pk=claim.id, **{claim.field: claim.claimed}).update(
            **{claim.field: claim.previous}
        )


def release_claim(release_json: ReleaseJSON) -> None:
    """Undo the claims of an "uncertain" mail (Uncertain.release), so that its
    task sends it again: the admin's "send again", after a person checked."""
    release([Claim.from_json(data) for data in release_json.get("claims", [])])


# --- a SentEmail key -----------------------------------------------------------------


def claim_key(key: str) -> Claim | None:
    """Insert the SentEmail key as "sending"; None when it was sent (or is
    uncertain); Busy while another worker is sending it. A "sending" claim of
    a dead worker is taken over (see above)."""
    taken_at, now = time.monotonic(), clock.now()  # the lease counts from before the claim
    try:
        with transaction.atomic():
            SentEmail.objects.create(key=key, sent_at=now, state=SentEmail.State.SENDING)
    except IntegrityError:
        taken_over = SentEmail.objects.filter(
            key=key, state=SentEmail.State.SENDING, sent_at__lt=now - stale_claim_after()
        ).update(sent_at=now)
        if taken_over == 1:
            return Claim(KEY, key, claimed=now, taken_at=taken_at)
        held = (
            SentEmail.objects.filter(key=key, state=SentEmail.State.SENDING)
            .values_list("sent_at", flat=True)
            .first()
        )
        if held is not None:
            raise Busy(key, until=held + stale_claim_after()) from None
        return None
    return Claim(KEY, key, claimed=now, taken_at=taken_at)


# --- the waiting turns of an address ("Es tu turno") ----------------------------------


@dataclass
class TurnClaim:
    seat: Seat
    match: Match
    claim: Claim
    lease: Claim  # the turn's "sending" row while the email goes out


def turn_lease_key(seat_id: int, started: datetime) -> str:
    """The SentEmail key of the lease on telling this seat of the turn begun at `started`."""
    return f"lease:turn:{seat_id}:{started.isoformat()}"


def _lease(key: str, now: datetime, taken_at: float) -> Claim:
    """Write (or take again) the lease row `key` as "sending" now."""
    SentEmail.objects.update_or_create(
        key=key, defaults={"sent_at": now, "state": SentEmail.State.SENDING}
    )
    return Claim(LEASE, key, claimed=now, taken_at=taken_at)


def claim_waiting_turns(recipient: Recipient) -> list[TurnClaim]:
    """Mark as told every turn of this address not told yet; return what was marked.

    The seat rows stay locked until commit, so of two workers mailing the same
    address at once, the second finds the turns already marked.
    """
    taken_at, now = time.monotonic(), clock.now()
    address = normalize_email(recipient.email)
    with transaction.atomic():
        seat_ids = list(due.waiting_for_address(address).values_list("turn_seat_id", flat=True))
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
        claims: list[TurnClaim] = []
        for seat in seats:
            match = matches.get(seat.pk)
            if match is None or seat.is_bot or seat.turn_notified_at == match.turn_started_at:
                continue
            if deadlines.on_the_board(seat.last_seen_at, now):
                continue
            mine = recipient_for_seat(seat)
            if mine is None or normalize_email(mine.email) != address:
                continue
            if mine.notify != Notify.EVERY_TURN:
                continue
            claim = Claim(
                SEAT, seat.pk, "turn_notified_at", match.turn_started_at, seat.turn_notified_at
            )
            # The seat's field says the turn is told; the lease, that its email
            # is going out now: a worker killed mid-send leaves it, and the
            # turn's task, coming again, takes it over (take_over_turn).
            started = match.turn_started_at or now  # set while a seat is on turn
            lease = _lease(turn_lease_key(seat.pk, started), now, taken_at)
            claims.append(TurnClaim(seat, match, claim, lease))
            Seat.objects.filter(pk=seat.pk).update(turn_notified_at=match.turn_started_at)
    # A match with a seat on turn has its turn's start (the `or` is for the type).
    claims.sort(key=lambda claim: claim.match.turn_started_at or now)
    return claims


def take_over_turn(seat: Seat, match: Match) -> TurnClaim | None:
    """The turn's email when the worker that was sending it died: its lease is
    stale. Busy while the lease is young (a live worker is sending it); None
    when nothing is owed (the turn was told, or is not this seat's)."""
    started = match.turn_started_at
    if started is None or seat.turn_notified_at != started:
        return None
    taken_at, now = time.monotonic(), clock.now()
    key = turn_lease_key(seat.pk, started)
    with transaction.atomic():
        taken = SentEmail.objects.filter(
            key=key, state=SentEmail.State.SENDING, sent_at__lt=now - stale_claim_after()
        ).update(sent_at=now)
        if taken != 1:
            held = (
                SentEmail.objects.filter(key=key, state=SentEmail.State.SENDING)
                .values_list("sent_at", flat=True)
                .first()
            )
            if held is not None:
                raise Busy(key, until=held + stale_claim_after())
            return None
    # Released to no turn told, should this send fail too: the task's retry claims it.
    claim = Claim(SEAT, seat.pk, "turn_notified_at", started, None)
    return TurnClaim(seat, match, claim, Claim(LEASE, key, claimed=now, taken_at=taken_at))


# --- a field of the match (the absence sweeps' emails) ---------------------------------


def claim_turn_field(match_id: int, field: str, *, reminder: bool) -> Claim | None:
    """Lock the match, check that the email is due, and set `field` to its key.

    The key of "you may close by absence" (absence_notice_sent_for) is the
    turn (its start); the key of the reminder (reminder_sent_for) is the
    deadline it reminds of, so a deadline a vacation moved is reminded again,
    once, and the same deadline never twice. The deadline is the one the
    turn's clock gives under the lock; a stored deadline that disagrees (it
    was moved while another transaction held the row) is written here, so the
    sweeps' queries find the match at the right time. None when there is
    nothing to send; the claim's `claimed` is the key.
    """
    now = clock.now()
    with transaction.atomic():
        match = due.lock_for_sweep(match_id)
        if match is None or match.turn_seat_id is None:
            return None
        turn = vacations.turn_clock(match)  # no reminder while the player is away
        if turn.due_at != match.absence_due_at:
            Match.objects.filter(pk=match.pk).update(absence_due_at=turn.due_at)
        if reminder:
            key, is_due = turn.due_at, turn.reminder_due(now)
        else:
            key, is_due = match.turn_started_at, turn.claimable(now) and turn.waived
        if not is_due or key is None or getattr(match, field) == key:
            return None
        Match.objects.filter(pk=match.pk).update(**{field: key})
        return Claim(MATCH, match.pk, field, key)  # released to None, not yet told


# --- the turn "someone sat down" announces -----------------------------------------


def joined_turn_key(joined_key: str, seat_id: int, started: datetime) -> str:
    """The SentEmail key of the lease on the turn an email under `joined_key` claimed
    ("someone sat down" saying "es tu turno"): not the turn email's own lease
    (turn_lease_key), so that only a takeover of `joined_key` takes it over."""
    return f"lease:{joined_key}:turn:{seat_id}:{started.isoformat()}"


def claim_seat_turn(seat_id: int, joined: Claim) -> tuple[Match | None, list[Claim]]:
    """The playing match where this seat is on turn, and its turn claimed as told.

    For an email that tells the seat it is their turn besides its own news
    ("someone sat down", sent under the KEY claim `joined`): claimed with it,
    before it is sent, so that "Es tu turno" for the same turn is not sent too
    (it finds the turn told). The claims are empty when that turn was told
    already, by a turn email or by a send of this email that went out. The
    match is None when the seat is not on turn.

    The turn's claim travels with the key's lease: a LEASE row (joined_turn_key)
    written with the same moment as `joined`, deleted when the send ends. A
    worker that died mid-send leaves both; whoever takes the key over (its
    lease ran out, so the dead worker's send is over) finds this row and takes
    the turn over with it, and its email still says "es tu turno". The turn
    email's take_over_turn never finds it (another key), so the turn is told
    by one of the two, not both and not neither.
    """
    claimed = joined.claimed
    with transaction.atomic():
        seat = Seat.objects.select_for_update().filter(pk=seat_id).first()
        match = Match.objects.filter(turn_seat_id=seat_id, status=Match.Status.PLAYING).first()
        if seat is None or match is None or match.turn_started_at is None or claimed is None:
            return None, []
        started = match.turn_started_at
        key = joined_turn_key(str(joined.id), seat.pk, started)
        lease = Claim(LEASE, key, claimed=claimed, taken_at=joined.taken_at)
        if seat.turn_notified_at == started:
            # Told. By this email's dead worker when its lease row is there: we
            # hold the key now, so that worker's send is over; the turn is ours.
            taken = SentEmail.objects.filter(key=key, state=SentEmail.State.SENDING).update(
                sent_at=claimed
            )
            if taken != 1:
                return match, []
            # Released to no turn told, should this send fail (as take_over_turn).
            return match, [Claim(SEAT, seat.pk, "turn_notified_at", started, None), lease]
        Seat.objects.filter(pk=seat.pk).update(turn_notified_at=started)
        SentEmail.objects.update_or_create(
            key=key, defaults={"sent_at": claimed, "state": SentEmail.State.SENDING}
        )
        turn = Claim(SEAT, seat.pk, "turn_notified_at", started, seat.turn_notified_at)
        return match, [turn, lease]


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
