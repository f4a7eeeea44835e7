"""The FIBS rating formula, as FIBS and DailyGammon use it. Pure Python: no Django.

From FIBS's own help ("help formula", quoted in the rec.games.backgammon
archive, bkgm.com/rgb/rgb.cgi?view+1093, and explained in Kevin Bastian's
"The FIBS Rating System", bkgm.com/articles/McCool/ratings.html):

- Two players rated r1 and r2 finish an n-point match. D = |r1 - r2|.
- The underdog (the lower rating) wins with probability
  P_upset = 1 / (10^(D·√n / 2000) + 1).
- P = 1 - P_upset when the underdog wins, P = P_upset when the favourite wins:
  an upset moves the ratings more than the expected result.
- Each player's change is 4·K·√n·P, added for the winner and taken from the
  loser, where K = max(1, 5 - experience/100) is that player's own weight.
- Experience is the sum of the lengths of the matches a player has finished
  (rated ones); everybody starts at 1500 with experience 0. From 400 on, K is 1
  and a match moves both ratings by the same amount.

The experience in K is the one before the match, as FIBS's help gives it
(MacFIBS's glossary adds the match's own length first: Mesa follows FIBS).
Equal ratings make P = 1/2, so an experienced player's 1-point match is worth
exactly 2 points, as Bastian's article says.

Mesa's formats (docs/RATINGS.md): a match to N is rated as N points; a
partida simple (one game, no cube) as a 1-point match; a sesión libre is not
rated (FIBS does not rate unlimited matches either).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START_RATING = 1500.0
START_EXPERIENCE = 0
# Below this experience the player's own changes are multiplied by K > 1.
FULL_EXPERIENCE = 400


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating and experience at one moment."""

    rating: float = START_RATING
    experience: int = START_EXPERIENCE


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one finished match does to its two players: their standings after it."""

    winner: Standing
    loser: Standing
    winner_delta: float
    loser_delta: float


def upset_probability(difference: float, length: int) -> float:
    """The chance that the lower-rated player wins an n-point match.

    >>> upset_probability(0, 5)
    0.5
    >>> round(upset_probability(200, 1), 4)
    0.4427
    """
    _check_length(length)
    return 1 / (10 ** (abs(difference) * math.sqrt(length) / 2000) + 1)


def experience_weight(experience: int) -> float:
    """K: how much faster a new player's rating moves (5 at 0, 1 from 400 on).

    >>> experience_weight(0), experience_weight(150), experience_weight(400), experience_weight(900)
    (5.0, 3.5, 1.0, 1.0)
    """
    if experience < 0:
        raise ValueError("experience is never negative")
    return max(1.0, 5 - experience / 100)


def match_value(length: int) -> float:
    """4·√n: what an n-point match puts at stake before the probabilities."""
    _check_length(length)
    return 4 * math.sqrt(length)


def rate(winner: Standing, loser: Standing, length: int) -> Outcome:
    """The standings of both players after `winner` beat `loser` in an n-point match.

    >>> after = rate(Standing(1500, 400), Standing(1500, 400), 1)
    >>> after.winner, after.loser
    (Standing(rating=1502.0, experience=401), Standing(rating=1498.0, experience=401))
    """
    p_upset = upset_probability(winner.rating - loser.rating, length)
    underdog_won = winner.rating < loser.rating
    # The surprise of the result: an upset is worth the favourite's chance.
    p = 1 - p_upset if underdog_won else p_upset
    stake = match_value(length) * p
    gain = stake * experience_weight(winner.experience)
    loss = stake * experience_weight(loser.experience)
    return Outcome(
        winner=Standing(winner.rating + gain, winner.experience + length),
        loser=Standing(loser.rating - loss, loser.experience + length),
        winner_delta=gain,
        loser_delta=-loss,
    )


def _check_length(length: int) -> None:
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise ValueError(f"a rated match has a length of 1 or more points, got {length!r}")
