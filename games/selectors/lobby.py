"""The read side of finding an opponent: open challenges for the lobby,
the invitations of an account, the challenges the expiry sweep owes, and the
one function that reads a player's rating. Nothing here writes.
"""

import re
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from games.engine import Format, MatchRules
from games.lib import clock
from games.lib.errors import NotFound
from games.models import ROOM_SLUG_PATTERN, Challenge
from games.selectors import ratings

# A player with no rating yet counts as a newcomer: FIBS starts everyone at 1500.
DEFAULT_RATING = 1500


def rating_for(user: User) -> int:
    """The rating the lobby compares with a challenge's range: the account's FIBS
    rating (games.selectors.ratings) to the nearest point; a newcomer without
    a rated match yet is at DEFAULT_RATING, the FIBS start."""
    rating = ratings.rating_of(user)
    return round(rating.rating) if rating is not None else DEFAULT_RATING


def rating_fits(challenge: Challenge, rating: int) -> bool:
    """Whether a player of `rating` may accept this challenge (no range: anyone)."""
    if challenge.rating_min is not None and rating < challenge.rating_min:
        return False
    return challenge.rating_max is None or rating <= challenge.rating_max


def _live(now: datetime) -> Q:
    # An open row past its deadline is expired, whether or not the sweep ran yet.
    return Q(status=Challenge.Status.OPEN, expires_at__gt=now)


def open_challenges(viewer: User | AnonymousUser | None = None) -> list[dict[str, Any]]:
    """The lobby: every open challenge (invitations are private), the newest first.

    Each line: challenge, author name, rules in words (format, length), the
    range, and for a signed-in viewer whether it is theirs and whether their
    rating fits the range (`can_accept`).
    """
    now = clock.now()
    rows = (
        Challenge.objects.filter(_live(now), invitee__isnull=True)
        .select_related("author__profile")
        .order_by("-created_at", "-pk")
    )
    account = viewer if isinstance(viewer, User) else None
    rating = rating_for(account) if account is not None else None
    lines = []
    for challenge in rows:
        mine = account is not None and challenge.author_id == account.pk
        fits = rating is not None and rating_fits(challenge, rating)
        lines.append({**challenge_line(challenge), "mine": mine, "can_accept": fits and not mine})
    return lines


def challenge_line(challenge: Challenge) -> dict[str, Any]:
    """What a page and the API say about one challenge (no private data)."""
    rules = MatchRules.from_json(challenge.rules)
    return {
        "challenge": challenge,
        "slug": challenge.slug,
        "author": player_name(challenge.author),
        "invitee": player_name(challenge.invitee) if challenge.invitee is not None else None,
        "format": str(rules.format),
        "length": rules.length if rules.format == Format.MATCH else None,
        "rules": challenge.rules,
        "rating_min": challenge.rating_min,
        "rating_max": challenge.rating_max,
        "status": challenge.status,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "room": challenge.room.slug if challenge.room_id and challenge.room else None,
    }


def challenge_json(line: dict[str, Any]) -> dict[str, Any]:
    """A challenge line as the JSON API answers it."""
    data = {key: value for key, value in line.items() if key != "challenge"}
    for key in ("created_at", "expires_at"):
        data[key] = data[key].isoformat()
    return data


def player_name(user: User) -> str:
    profile = getattr(user, "profile", None)
    return (profile.display_name if profile else "") or user.get_username()


def challenge_by_slug(slug: object) -> Challenge:
    """The challenge of this slug, or NotFound (404); a slug with characters no
    slug has (a NUL byte, which PostgreSQL cannot compare) never reaches the database."""
    if not isinstance(slug, str) or not re.fullmatch(ROOM_SLUG_PATTERN, slug):
        raise NotFound("challenge_not_found")
    challenge = (
        Challenge.objects.select_related("author__profile", "invitee__profile", "room")
        .filter(slug=slug)
        .first()
    )
    if challenge is None:
        raise NotFound("challenge_not_found")
    return challenge


def open_count(user: User) -> int:
    """The challenges and invitations this account has open now (the cap counts these)."""
    return Challenge.objects.filter(_live(clock.now()), author=user).count()


def invitations_for(user: User) -> dict[str, list[dict[str, Any]]]:
    """For "Mis partidas": the invitations this account received and sent, still open,
    and its own open challenges in the lobby."""
    now = clock.now()
    live = Challenge.objects.filter(_live(now)).select_related(
        "author__profile", "invitee__profile"
    )
    return {
        "received": [challenge_line(c) for c in live.filter(invitee=user).order_by("expires_at")],
        "sent": [
            challenge_line(c)
            for c in live.filter(author=user, invitee__isnull=False).order_by("expires_at")
        ],
        "posted": [
            challenge_line(c)
            for c in live.filter(author=user, invitee__isnull=True).order_by("expires_at")
        ],
    }


def challenges_due(*, limit: int = 500) -> QuerySet[Challenge]:
    """Open challenges past their seven days (challenge_open_idx), the oldest first."""
    return Challenge.objects.filter(
        status=Challenge.Status.OPEN, expires_at__lte=clock.now()
    ).order_by("expires_at")[:limit]
