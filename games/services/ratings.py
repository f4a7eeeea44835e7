"""Ratings: the FIBS formula applied to each finished match, in the transaction that ends it.

Which matches are rated is games.selectors.ratings' rule (docs/RATINGS.md).
`match_rate` is called by the unit of work (games.services.table) when it
saves a match that has just ended, inside that transaction; the recompute
(games.selectors.ratings.replay) does the same arithmetic from the records.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from accounts import fibs
from accounts.models import Rating, RatingChange
from games.models import Match, Seat
from games.selectors.ratings import PlayerKey, player_key, rated_length_of


def match_rate(*, match: Match, seats: dict[int, Seat]) -> list[RatingChange]:
    """Rate a match that has just ended: both ratings, and a history row for each.

    Must run inside the transaction that finished the match (it locks the two
    Rating rows, in id order so that two matches ending at once cannot deadlock).
    Writes Match.rated_length; returns the two RatingChange rows, or [] when
    the match is not rated.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("match_rate runs inside the transaction that ends the match")
    length = rated_length_of(match, seats)
    if length is None:
        return []
    side, now = match.winner_side, match.ended_at
    assert side is not None and now is not None  # checked by rated_length_of
    winner_seat = seats[match.seat_number_of(side)]
    loser_seat = seats[match.seat_number_of(1 - side)]
    winner_key, loser_key = player_key(winner_seat), player_key(loser_seat)
    assert winner_key is not None and loser_key is not None  # checked by rated_length_of
    ids = [_rating_for(winner_key).pk, _rating_for(loser_key).pk]
    locked = {r.pk: r for r in Rating.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    winner, loser = locked[ids[0]], locked[ids[1]]
    outcome = fibs.rate(winner.standing, loser.standing, length)
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


def _rating_for(key: PlayerKey) -> Rating:
    kind, who = key
    # get_or_create retries the read when another transaction created it first.
    if kind == "user":
        rating, _ = Rating.objects.get_or_create(user_id=who)
    else:
        rating, _ = Rating.objects.get_or_create(bot=who)
    return rating


def _change(
    player: Rating,
    opponent: Rating,
    match: Match,
    won: bool,
    length: int,
    after: fibs.Standing,
    delta: float,
    now: datetime,
) -> RatingChange:
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
