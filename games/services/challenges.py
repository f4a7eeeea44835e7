"""Finding an opponent: open challenges in the lobby and invitations by name.

One function per action, keyword-only. Each one locks the row it changes
(select_for_update) and re-checks under the lock, so of two players who
accept the same challenge at the same instant exactly one opens a room; the
other waits on the lock, then finds it taken (409).

Accepting opens the room through the room services (games.services.rooms: room_create
and room_join), so the match starts exactly as one by link does: the opening
roll, the turn clock, "your opponent sat down" for the author and "Es tu
turno" for whoever starts.
"""

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from games.lib import clock, deadlines
from games.lib.errors import BadInput, Conflict, Forbidden, NotFound
from games.models import Challenge, Seat
from games.selectors import lobby
from games.services import outbox
from games.services.cleaning import (
    account_name,
    clean_days_per_move,
    clean_rating_range,
    clean_rules,
    storable_text,
)
from games.services.rooms import room_create, room_join

# Whoever is asking: an account, or a visitor who is not logged in.
Someone = User | AnonymousUser | None

# Open challenges and invitations one account may have waiting at once.
MAX_OPEN_CHALLENGES = 3

# Why a challenge that is no longer open cannot be accepted, declined or withdrawn.
CLOSED = {
    Challenge.Status.ACCEPTED: "challenge_taken",
    Challenge.Status.WITHDRAWN: "challenge_withdrawn",
    Challenge.Status.DECLINED: "challenge_declined",
    Challenge.Status.EXPIRED: "challenge_expired",
}


def challenge_post(
    *,
    author: Someone,
    rules: object,
    rating_min: object = None,
    rating_max: object = None,
    days_per_move: object = None,
) -> Challenge:
    """Post an open challenge to the lobby; anyone signed in whose rating fits may accept.
    `days_per_move`: the clock of the match it opens (None: the seeds' two days)."""
    match_rules = clean_rules(rules)
    low, high = clean_rating_range(rating_min, rating_max)
    days = clean_days_per_move(days_per_move)
    return _create(
        author=author, invitee=None, rules=match_rules.to_json(), low=low, high=high, days=days
    )


def invitation_send(*, author: Someone, invitee: User | None, rules: object) -> Challenge:
    """Challenge one named player; they get an email and see it in "Mis partidas"."""
    match_rules = clean_rules(rules)
    account = _account(author)
    if invitee is None or not invitee.is_active:
        raise NotFound("no_such_player")
    if invitee.pk == account.pk:
        raise BadInput("invite_yourself")
    challenge = _create(
        author=account, invitee=invitee, rules=match_rules.to_json(), low=None, high=None
    )
    outbox.schedule("games.tasks.invitation_email", challenge.pk)
    return challenge


def invitation_send_by_name(*, author: Someone, username: object, rules: object) -> Challenge:
    """invitation_send for the account called `username` (case as typed, exact name)."""
    if not isinstance(username, str) or not 1 <= len(username) <= 150:
        raise NotFound("no_such_player")
    if not storable_text(username):  # a NUL byte: PostgreSQL cannot even compare it
        raise NotFound("no_such_player")
    invitee = User.objects.filter(username=username, is_active=True).first()
    return invitation_send(author=author, invitee=invitee, rules=rules)


def challenge_withdraw(*, challenge: Challenge, user: Someone) -> Challenge:
    """The author takes back an open challenge or invitation."""
    account = _account(user)
    with transaction.atomic():
        challenge = _lock(challenge)
        if challenge.author_id != account.pk:
            raise Forbidden("not_author")
        _require_open(challenge)
        return _close(challenge, Challenge.Status.WITHDRAWN)


def invitation_decline(*, challenge: Challenge, user: Someone) -> Challenge:
    """The invitee says no to an invitation."""
    account = _account(user)
    with transaction.atomic():
        challenge = _lock(challenge)
        if challenge.invitee_id != account.pk:
            raise Forbidden("not_invitee")
        _require_open(challenge)
        return _close(challenge, Challenge.Status.DECLINED)


def challenge_accept(*, challenge: Challenge, user: Someone, language: str = "es") -> Seat:
    """Accept an open challenge (or an invitation to you): the match starts at once.

    1. lock the challenge row; a second accept waits here, then finds it taken;
    2. check it is open and not past its seven days, not your own, for you
       (an invitation) or within its rating range (an open challenge);
    3. open the room with the author at seat 1 and take seat 2, through the
       room services, in this same transaction;
    4. mark the challenge accepted, naming the room.

    Returns the accepting player's seat (its room is the new room).
    """
    account = _account(user)
    with transaction.atomic():
        challenge = _lock(challenge)
        _require_open(challenge)
        if challenge.author_id == account.pk:
            raise Conflict("own_challenge")
        if challenge.invitee_id is not None and challenge.invitee_id != account.pk:
            raise Forbidden("not_invitee")
        if challenge.invitee_id is None and not lobby.rating_fits(
            challenge, lobby.rating_for(account)
        ):
            raise Forbidden("rating_out_of_range")
        author = challenge.author
        host = room_create(
            rules=challenge.rules,
            nickname=account_name(author),
            user=author,
            language=_language_of(author),
            days_per_move=challenge.days_per_move,
        )
        # The author is not on the site now (the one accepting is): never seen at
        # this board, so the join and the turn are news to them.
        Seat.objects.filter(pk=host.pk).update(last_seen_at=None)
        seat = room_join(
            room=host.room, nickname=account_name(account), user=account, language=language
        )
        challenge.accepted_by = account
        challenge.room = host.room
        _close(challenge, Challenge.Status.ACCEPTED, extra=["accepted_by", "room"])
    return seat


def challenges_expire(*, batch: int = 500) -> int:
    """The beat sweep: every open challenge past its seven days becomes expired.

    One UPDATE whose WHERE says "still open and past due": two beats running it
    at once expire each row once (the second waits on the row lock, then finds
    it no longer open), and an accept that holds the lock wins over it.
    Returns how many this run expired.
    """
    now = clock.now()
    ids = list(lobby.challenges_due(limit=batch).values_list("pk", flat=True))
    if not ids:
        return 0
    with transaction.atomic():
        return Challenge.objects.filter(
            pk__in=ids, status=Challenge.Status.OPEN, expires_at__lte=now
        ).update(status=Challenge.Status.EXPIRED, ended_at=now)


# --- the parts ---------------------------------------------------------------------


def _account(user: Someone) -> User:
    """The account asking, or 403 login_required for a visitor who is not logged in."""
    if not isinstance(user, User) or user.pk is None:
        raise Forbidden("login_required")
    return user


def _create(
    *,
    author: Someone,
    invitee: User | None,
    rules: dict[str, Any],
    low: int | None,
    high: int | None,
    days: int = deadlines.DAYS_PER_MOVE,
) -> Challenge:
    account = _account(author)
    now = clock.now()
    with transaction.atomic():
        # One author's posts one at a time, so two at once cannot pass the cap together.
        User.objects.select_for_update().filter(pk=account.pk).first()
        if lobby.open_count(account) >= MAX_OPEN_CHALLENGES:
            raise Conflict("too_many_challenges")
        return Challenge.objects.create(
            author=account,
            invitee=invitee,
            rules=rules,
            rating_min=low,
            rating_max=high,
            days_per_move=days,
            created_at=now,
            expires_at=now + deadlines.CHALLENGE_OPEN_FOR,
        )


def _lock(challenge: Challenge) -> Challenge:
    if not isinstance(challenge, Challenge) or challenge.pk is None:
        raise NotFound("challenge_not_found")
    locked = (
        Challenge.objects.select_for_update(of=("self",))
        .select_related("author__profile")
        .filter(pk=challenge.pk)
        .first()
    )
    if locked is None:
        raise NotFound("challenge_not_found")
    return locked


def _require_open(challenge: Challenge) -> None:
    if challenge.status != Challenge.Status.OPEN:
        raise Conflict(CLOSED[Challenge.Status(challenge.status)])
    if challenge.expires_at <= clock.now():
        raise Conflict("challenge_expired", "past its seven days; the sweep has not run yet")


def _close(challenge: Challenge, status: str, extra: list[str] | None = None) -> Challenge:
    challenge.status = status
    challenge.ended_at = clock.now()
    challenge.save(update_fields=["status", "ended_at", *(extra or [])])
    return challenge


def _language_of(user: User) -> str:
    profile = getattr(user, "profile", None)
    return profile.language if profile is not None else "es"
