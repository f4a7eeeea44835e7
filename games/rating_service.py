"""Ratings: the FIBS formula applied to each finished match, in the transaction that ends it.

Which matches are rated (docs/RATINGS.md): those between two players who
are each an account or a computer player, in a room not marked unrated at
creation, won by someone (by bearing off, resigning, a dropped cube or
absence alike). A match to N counts N points, a partida simple one point; a
sesión libre and an expired room count for no one. Guests are not rated.

`match_rate` is called by the service that ends the match, inside its
transaction; `replay` is the same arithmetic from the match records alone,
for `manage.py recompute_ratings`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.db import transaction

from accounts import fibs
from accounts.models import Rating, RatingChange
from games.engine.match import Format, MatchRules
from games.models import Match, Room, Seat

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


def match_rate(*, match: Match, seats: dict[int, Seat]) -> list[RatingChange]:
    """Rate a match that has just ended: both ratings, and a history row for each.

    Must run inside the transaction that finished the match (it locks the two
    Rating rows, in id order so that two matches ending at once cannot deadlock).
    Writes Match.rated_length; returns the two RatingChange rows, or [] when
    the match is not rated.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("match_rate runs inside the transaction that ends the match")
    length = _length_of(match, seats)
    if length is None:
        return []
    winner_seat = seats[match.seat_number_of(match.winner_side)]
    loser_seat = seats[match.seat_number_of(1 - match.winner_side)]
    winner_key, loser_key = player_key(winner_seat), player_key(loser_seat)
    assert winner_key is not None and loser_key is not None  # checked by _length_of
    ids = [_rating_for(winner_key).pk, _rating_for(loser_key).pk]
    locked = {r.pk: r for r in Rating.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    winner, loser = locked[ids[0]], locked[ids[1]]
    outcome = fibs.rate(winner.standing, loser.standing, length)
    now = match.ended_at
    changes = [
        _change(winner, loser, match, True, length, outcome.winner, outcome.winner_delta, now),
        _change(loser, winner, match, False, length, outcome.loser, outcome.loser_delta, now),
    ]
    for rating, standing in ((winner, outcome.winner), (loser, outcome.loser)):
        rating.rating = standing.rating
        rating.experience = standing.experience
        rating.matches += 1
        rating.updated_at = now
        rating.save(update_fields=["rating", "experience", "matches", "updated_at"])
    RatingChange.objects.bulk_create(changes)
    match.rated_length = length
    Match.objects.filter(pk=match.pk).update(rated_length=length)
    return changes


def _length_of(match: Match, seats: dict[int, Seat]) -> int | None:
    room = match.room
    if not room.rated or room.status == Room.Status.EXPIRED:
        return None
    if match.status != Match.Status.FINISHED or match.winner_side is None:
        return None
    if any(player_key(seat) is None for seat in seats.values()) or len(seats) != 2:
        return None
    return rated_length(MatchRules.from_json(room.rules))


def _rating_for(key: PlayerKey) -> Rating:
    kind, who = key
    lookup = {"user_id": who} if kind == "user" else {"bot": who}
    # get_or_create retries the read when another transaction created it first.
    rating, _ = Rating.objects.get_or_create(**lookup)
    return rating


def _change(player, opponent, match, won, length, after, delta, now) -> RatingChange:
    return RatingChange(
        player=player,
        opponent=opponent,
        match=match,
        won=won,
        length=length,
        rating_before=player.rating,
        rating_after=after.rating,
        delta=delta,
        experience_before=player.experience,
        opponent_rating_before=opponent.rating,
        created_at=now,
    )


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
    """Every match the service rated, in the order they ended, with its winner and loser."""
    rows = (
        Match.objects.filter(rated_length__isnull=False, winner_side__isnull=False)
        .select_related("room")
        .prefetch_related("room__seats")
        .order_by("ended_at", "pk")
    )
    for match in rows.iterator(chunk_size=500):
        seats = {seat.number: seat for seat in match.room.seats.all()}
        for seat in seats.values():
            seat.room = match.room  # is_bot reads the room; no query per seat
        winner = player_key(seats[match.seat_number_of(match.winner_side)])
        loser = player_key(seats[match.seat_number_of(1 - match.winner_side)])
        if winner is None or loser is None:
            continue  # an account deleted since: its seat is a guest's now
        yield match, winner, loser


def replay(records: Iterable[tuple[Match, PlayerKey, PlayerKey]]) -> tuple[
    dict[PlayerKey, fibs.Standing], list[Replayed]
]:
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
    return ("bot", rating.bot) if rating.bot else ("user", rating.user_id)
