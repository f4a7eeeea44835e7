"""Ratings, read: which matches are rated, the recompute, the profile and the leaderboard.

Which matches are rated (docs/RATINGS.md): those between two players who
are each an account or a computer player, in a room not marked unrated at
creation, won by someone (by bearing off, resigning, a dropped cube or
absence alike). A match to N counts N points, a partida simple one point
(FIBS's single game); a sesión libre and an expired room count for no one
(FIBS does not rate unlimited matches either). Guests are not rated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import F, Min, Q

from accounts import fibs
from accounts.models import Rating, RatingChange
from games.bots import BOT_NAMES
from games.engine import Format, MatchRules
from games.models import Match, Room, Seat
from games.selectors import review

# How many players the leaderboard lists.
LEADERBOARD_SIZE = 100

# Who a rating belongs to: ("user", id) or ("bot", name).
PlayerKey = tuple[str, int | str]


def rated_length(rules: MatchRules) -> int | None:
    """The points a match with these rules counts as; None when it is never rated.

    >>> rated_length(MatchRules(format=Format.MATCH, length=7))
    7
    >>> rated_length(MatchRules()), rated_length(MatchRules(format=Format.SESSION))
    (1, None)
    """
    if rules.format is Format.MATCH:
        return rules.length
    if rules.format is Format.SINGLE:
        return 1
    return None


def player_key(seat: Seat) -> PlayerKey | None:
    """Whose rating a seat plays for: its account, its computer player, or nobody (a guest)."""
    if seat.is_bot:
        return ("bot", seat.room.bot)
    if seat.user_id is not None:
        return ("user", seat.user_id)
    return None


def rated_length_of(match: Match, seats: dict[int, Seat]) -> int | None:
    """The points a match that has just ended is rated as, or None: not rated."""
    room = match.room
    if not room.rated or room.status == Room.Status.EXPIRED:
        return None
    if match.status != Match.Status.FINISHED or match.winner_side is None:
        return None
    keys = {player_key(seat) for seat in seats.values()}
    if None in keys or len(keys) != 2:
        return None  # a guest, or one player in both seats
    return rated_length(MatchRules.from_json(room.rules))


# --- the same arithmetic from the records: the recompute -----------------------


@dataclass(frozen=True)
class Replayed:
    """One match rated again from its record: who won, who lost, and what it did."""

    match_id: int
    winner: PlayerKey
    loser: PlayerKey
    length: int
    outcome: fibs.Outcome


def rated_matches() -> Iterator[tuple[Match, PlayerKey, PlayerKey]]:
    """Every match the service rated, in the order it rated them, with its winner and loser.

    The order is the history's own sequence (the first RatingChange id of each
    match): the service writes those rows while it holds both players' Rating
    locks, so two matches sharing a player are numbered in the order they were
    applied, even when they ended in the same instant. That is the end order
    otherwise; a match whose rows are missing comes last, by its end.
    """
    rows = (
        Match.objects.filter(rated_length__isnull=False, winner_side__isnull=False)
        .annotate(rated_seq=Min("rating_changes__id"))
        .select_related("room")
        .prefetch_related("room__seats")
        .order_by(F("rated_seq").asc(nulls_last=True), "ended_at", "pk")
    )
    for match in rows.iterator(chunk_size=500):
        seats = {seat.number: seat for seat in match.room.seats.all()}
        for seat in seats.values():
            seat.room = match.room  # is_bot reads the room; no query per seat
        side = match.winner_side
        assert side is not None  # filtered above
        winner = player_key(seats[match.seat_number_of(side)])
        loser = player_key(seats[match.seat_number_of(1 - side)])
        if winner is None or loser is None:
            continue  # an account deleted since: its seat is a guest's now
        yield match, winner, loser


def replay(
    records: Iterable[tuple[Match, PlayerKey, PlayerKey]],
) -> tuple[dict[PlayerKey, fibs.Standing], list[Replayed]]:
    """Everybody's standing after rating the matches again in order, from 1500."""
    standings: dict[PlayerKey, fibs.Standing] = {}
    done = []
    for match, winner, loser in records:
        length = match.rated_length
        assert length is not None
        outcome = fibs.rate(
            standings.get(winner, fibs.Standing()), standings.get(loser, fibs.Standing()), length
        )
        standings[winner], standings[loser] = outcome.winner, outcome.loser
        done.append(Replayed(match.pk, winner, loser, length, outcome))
    return standings, done


def stored_key(rating: Rating) -> PlayerKey:
    if rating.bot:
        return ("bot", rating.bot)
    assert rating.user_id is not None  # the check constraint: an account or a bot
    return ("user", rating.user_id)


@dataclass
class Agreement:
    """What the recompute found: how much it replayed and every difference with the stored rows."""

    matches: int = 0
    players: int = 0
    differences: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.differences


def check_stored() -> Agreement:
    """Rate every match again from its record and compare with the stored ratings and history.

    Exact comparison: the service and the replay do the same float arithmetic
    in the same order, so a correct history agrees to the last bit.
    """
    standings, done = replay(rated_matches())
    found = Agreement(matches=len(done), players=len(standings))
    stored = {stored_key(rating): rating for rating in Rating.objects.all()}
    for key, standing in standings.items():
        rating = stored.get(key)
        if rating is None:
            found.differences.append(f"{key}: no stored rating, replay gives {standing.rating!r}")
        elif (rating.rating, rating.experience) != (standing.rating, standing.experience):
            found.differences.append(
                f"{key}: stored {rating.rating!r} (experience {rating.experience}), "
                f"replay {standing.rating!r} (experience {standing.experience})"
            )
    for key, rating in stored.items():
        if key not in standings and (rating.matches or rating.experience):
            found.differences.append(f"{key}: stored {rating.matches} rated matches, replay none")
    changes = {
        (change.match_id, stored_key(change.player)): change
        for change in RatingChange.objects.select_related("player")
    }
    for row in done:
        for key, delta, after in (
            (row.winner, row.outcome.winner_delta, row.outcome.winner.rating),
            (row.loser, row.outcome.loser_delta, row.outcome.loser.rating),
        ):
            change = changes.pop((row.match_id, key), None)
            if change is None:
                found.differences.append(f"match {row.match_id}: no history row for {key}")
            elif (change.delta, change.rating_after) != (delta, after):
                found.differences.append(
                    f"match {row.match_id}, {key}: stored {change.delta!r} to "
                    f"{change.rating_after!r}, replay {delta!r} to {after!r}"
                )
    for match_id, key in changes:
        found.differences.append(
            f"match {match_id}: a history row for {key} the records do not rate"
        )
    return found


# --- the public profile and the leaderboard -----------------------------------


def public_name(user: User) -> str:
    """What others see of an account: its chosen name, else its username (never the email)."""
    profile = getattr(user, "profile", None)
    name = profile.display_name if profile is not None else ""
    return name or user.get_username()


def rating_of(user: User) -> Rating | None:
    return Rating.objects.filter(user=user).first()


def rating_history(rating: Rating | None) -> list[RatingChange]:
    """The player's rated matches, oldest first, with the opponent and the room."""
    if rating is None:
        return []
    return list(
        RatingChange.objects.filter(player=rating)
        .select_related("opponent__user__profile", "match__room")
        .order_by("created_at", "id")
    )


def format_key(rules: dict[str, Any]) -> tuple[str, int]:
    """("single", 0), ("match", N) or ("session", 0): how the record groups matches."""
    return (str(rules.get("format", "single")), int(rules.get("length", 0) or 0))


def _finished_of(user: User) -> list[tuple[Match, int]]:
    """The user's finished matches that someone won, each with the user's side."""
    seats = dict(Seat.objects.filter(user=user).values_list("room_id", "number"))
    matches = (
        Match.objects.filter(
            room_id__in=list(seats), status=Match.Status.FINISHED, winner_side__isnull=False
        )
        .select_related("room")
        .order_by("ended_at", "pk")
    )
    return [
        (match, 0 if match.side0_seat_number == seats[match.room_id] else 1) for match in matches
    ]


def record(user: User) -> list[dict[str, Any]]:
    """Won and lost by format, every finished match, rated or not: [{format, length, won, lost}]."""
    counts: dict[tuple[str, int], list[int]] = {}
    for match, side in _finished_of(user):
        row = counts.setdefault(format_key(match.room.rules), [0, 0])
        row[0 if match.winner_side == side else 1] += 1
    order = {"single": 0, "match": 1, "session": 2}
    return [
        {"format": fmt, "length": length, "won": won, "lost": lost}
        for (fmt, length), (won, lost) in sorted(
            counts.items(), key=lambda item: (order.get(item[0][0], 3), item[0][1])
        )
    ]


def head_to_head(user: User, viewer: User | AnonymousUser) -> dict[str, int] | None:
    """The viewer's finished matches against this player: {won, lost} from the viewer's side.

    None when the viewer is not signed in or looks at their own profile.
    """
    if not viewer.is_authenticated or viewer.pk == user.pk:
        return None
    rooms = Seat.objects.filter(user=viewer).values("room_id")
    theirs = dict(
        Seat.objects.filter(user=user, room_id__in=rooms).values_list("room_id", "number")
    )
    won = lost = 0
    for match in Match.objects.filter(
        room_id__in=list(theirs), status=Match.Status.FINISHED, winner_side__isnull=False
    ):
        their_side = 0 if match.side0_seat_number == theirs[match.room_id] else 1
        if match.winner_side == their_side:
            lost += 1
        else:
            won += 1
    return {"won": won, "lost": lost}


def playing_rooms(user: User) -> list[dict[str, Any]]:
    """The rooms where the player has a game running: the slug (the public link) and the rival.

    Only what a spectator may see: the room's public slug, never a seat link.
    """
    seats = (
        Seat.objects.filter(user=user, room__status=Room.Status.PLAYING)
        .select_related("room")
        .order_by("-room__last_move_at")
    )
    rooms = [seat.room for seat in seats]
    mine = {seat.room_id: seat.number for seat in seats}
    others = {
        seat.room_id: seat
        for seat in Seat.objects.filter(room__in=rooms).select_related("user__profile")
        if seat.number != mine[seat.room_id]
    }
    return [
        {
            "slug": room.slug,
            "rules": room.rules,
            "opponent": _seat_name(others.get(room.pk)),
            "opponent_username": _username(others.get(room.pk)),
            "last_move_at": room.last_move_at,
        }
        for room in rooms
    ]


def _seat_name(seat: Seat | None) -> str:
    if seat is None:
        return ""
    if seat.user is not None and not seat.room.bot:
        return public_name(seat.user)
    return seat.nickname


def _username(seat: Seat | None) -> str | None:
    return seat.user.get_username() if seat is not None and seat.user is not None else None


def profile(user: User, viewer: User | AnonymousUser) -> dict[str, Any]:
    """Everything the public profile shows, as plain data; nothing private (no email, no seat)."""
    rating = rating_of(user)
    history = rating_history(rating)
    pr, pr_games = review.average_pr(user)
    return {
        "username": user.get_username(),
        "name": public_name(user),
        "rating": rating.rating if rating else fibs.START_RATING,
        "experience": rating.experience if rating else 0,
        "rated_matches": rating.matches if rating else 0,
        "history": [
            {
                # The room's public slug and the match's number in it: no row ids.
                "room": change.match.room.slug,
                "match_number": change.match.number,
                "opponent": rating_name(change.opponent),
                "opponent_username": (
                    change.opponent.user.get_username() if change.opponent.user else None
                ),
                "won": change.won,
                "length": change.length,
                "before": change.rating_before,
                "after": change.rating_after,
                "delta": change.delta,
                "at": change.created_at,
            }
            for change in history
        ],
        "record": record(user),
        "head_to_head": head_to_head(user, viewer),
        "average_pr": pr,
        "pr_games": pr_games,
        "playing": playing_rooms(user),
    }


def rating_name(rating: Rating) -> str:
    """The name a rating shows under: the account's public name, or the computer player's."""
    if rating.user is not None:
        return public_name(rating.user)
    return rating.bot.capitalize()


def leaderboard(size: int = LEADERBOARD_SIZE) -> list[Rating]:
    """The rated players (accounts and computer players), best first, the first `size`;
    and every computer player, rated yet or not (two queries).

    The computer players are there to measure oneself against: a newcomer looks
    for them before they have played anyone, at the rating they start from.
    """
    rows = list(
        Rating.objects.filter(Q(matches__gt=0))
        .select_related("user__profile")
        .order_by("-rating", "pk")[:size]
    )
    listed = {row.pk for row in rows}
    bots = {row.bot: row for row in Rating.objects.exclude(bot="")}
    for name in BOT_NAMES:
        # Each bot's row is made with the schema; without it, the rating it starts from.
        row = bots.get(name) or Rating(bot=name)
        if row.pk is None or row.pk not in listed:
            rows.append(row)
    return sorted(rows, key=lambda row: (-row.rating, row.pk or 0))
