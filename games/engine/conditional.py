"""Turns the server may play for a player: forced plays, conditional plays, greedy bear-offs.

Pure questions about a position; ``MatchState`` (``match.py``) records what
a player leaves written and ``advance`` applies it at the right moment.

- ``forced_play(position, dice)``: the one legal play of a roll, when there
  is exactly one resulting position (no choice at any step); else None.
- ``opponent_cannot_change(position)``: ``position`` is seen by the player
  who just moved, the opponent to play next. True when no move of the
  opponent can change my next turn: contact is broken (a pure race), or the
  opponent stands on the bar against my closed home board. Then a play
  chosen now for each of the 21 rolls is still legal, and reaches the same
  checkers, whatever the opponent does (``tests/engine`` checks it against
  every opponent play).
- ``greedy_bearoff_play(position, dice)`` and ``greedy_bearoff_table``: bear
  off as many checkers as the roll allows, the rest as low and as spread as
  possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from .errors import IllegalMove, InvalidInput
from .moves import check_play, legal_plays
from .position import BAR, HOME, OFF, Play, Position

__all__ = [
    "ROLLS",
    "PlayTable",
    "forced_play",
    "greedy_bearoff_play",
    "greedy_bearoff_table",
    "has_contact",
    "is_closed_out",
    "opponent_cannot_change",
    "play_table",
    "roll_key",
]

Roll = tuple[int, int]
# A conditional play table: (roll, play) pairs, rolls higher die first, sorted.
PlayTable = tuple[tuple[Roll, Play], ...]

# The 21 distinct rolls, higher die first: (1, 1), (2, 1), (2, 2) ... (6, 6).
ROLLS: tuple[Roll, ...] = tuple((high, low) for high in range(1, 7) for low in range(1, high + 1))


def roll_key(dice: Iterable[int]) -> Roll:
    """A roll as the tables key it, higher die first.

    >>> roll_key((2, 6))
    (6, 2)
    """
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidInput("wrong_dice", f"dice are a pair of numbers, got {dice!r}") from None
    for die in (d1, d2):
        if type(die) is not int or not 1 <= die <= 6:
            raise InvalidInput("wrong_dice", f"each die shows 1 to 6, got {dice!r}")
    return (max(d1, d2), min(d1, d2))


def forced_play(position: Position, dice: Iterable[int]) -> Play | None:
    """The roll's only legal play, or None when there is a choice or nothing to play.

    Different orders of the same steps reach the same position and count
    as one play. A roll with no legal play at all passes by itself, so it
    is no forced play here.

    >>> forced_play(Position.from_points({1: 1}, {6: 15}), (6, 5))
    ((1, 0),)
    >>> forced_play(Position.initial(), (6, 5)) is None
    True
    """
    found = legal_plays(position, tuple(dice))
    return found[0] if len(found) == 1 else None


def has_contact(position: Position) -> bool:
    """True while a checker of mine still has to pass one of the opponent's.

    I move from 24 towards 1 and they move the other way: contact is broken
    once my furthest-back checker (the bar counts 25) is in front of their
    furthest-back one, seen on my numbering (their bar counts 0).

    >>> has_contact(Position.initial())
    True
    >>> has_contact(Position.from_points({6: 15}, {6: 15}))
    False
    """
    my_back = max((point for point in range(1, BAR + 1) if position.me[point]), default=0)
    their_back = max((point for point in range(1, BAR + 1) if position.them[point]), default=0)
    # Their point k is my point 25 - k; no contact when my_back < 25 - their_back.
    return my_back > 0 and their_back > 0 and my_back + their_back >= 25


def is_closed_out(position: Position) -> bool:
    """True when the opponent has a checker on the bar and my home board is closed.

    >>> closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    >>> is_closed_out(Position.from_points(closed, {25: 1, 6: 14}))
    True
    """
    return position.them[BAR] > 0 and all(position.me[point] >= 2 for point in HOME)


def opponent_cannot_change(position: Position) -> bool:
    """True when my next turn does not depend on the opponent's move (see the module)."""
    if position.is_game_over():
        return False
    return not has_contact(position) or is_closed_out(position)


def play_table(position: Position, plays: Mapping[Roll, Play] | PlayTable) -> PlayTable:
    """Check a conditional play table for ``position`` (me to play) and return it sorted.

    Each roll (either order of the dice) may appear once, with a play legal
    for it here; a roll left out is asked as usual when it comes. Raises
    InvalidInput for an unreadable roll or play, IllegalMove (its own code)
    for a play the rules refuse.
    """
    items = plays.items() if isinstance(plays, Mapping) else plays
    table: dict[Roll, Play] = {}
    for raw_roll, play in items:
        roll = roll_key(raw_roll)
        if roll in table:
            raise InvalidInput("bad_table", f"the roll {roll[0]}-{roll[1]} appears twice")
        try:
            steps = tuple((src, dst) for src, dst in play)
        except (TypeError, ValueError):
            raise InvalidInput(
                "bad_step", f"a play is a list of (from, to) steps, got {play!r}"
            ) from None
        check_play(position, roll, steps)
        table[roll] = steps
    return tuple(sorted(table.items()))


def greedy_bearoff_play(position: Position, dice: Iterable[int]) -> Play:
    """The greedy bear-off play: the most checkers off, then the fewest pips, then the smoothest.

    Only while bearing off (all my checkers home, none on the bar). The
    empty play when the roll cannot be played.

    >>> greedy_bearoff_play(Position.from_points({6: 1, 1: 1}, {6: 15}), (5, 1))
    ((6, 1), (1, 0))
    >>> greedy_bearoff_play(Position.from_points({6: 2, 5: 1}, {6: 15}), (6, 5))
    ((6, 0), (5, 0))
    """
    if not position.is_bearing_off():
        raise IllegalMove("not_bearing_off", "greedy bear-off plays need all checkers at home")
    return _greedy(position, roll_key(dice))


@lru_cache(maxsize=1024)
def _greedy(position: Position, roll: Roll) -> Play:
    candidates = legal_plays(position, roll)
    if not candidates:
        return ()

    def rank(play: Play) -> tuple[int, int, int, Play]:
        after = position.apply(play)
        occupied = sum(1 for point in HOME if after.me[point])
        return (-after.me[OFF], after.pips()[0], -occupied, play)

    return min(candidates, key=rank)


def greedy_bearoff_table(position: Position) -> PlayTable:
    """The greedy bear-off play for each of the 21 rolls (``position``: me to play)."""
    if not position.is_bearing_off():
        raise IllegalMove("not_bearing_off", "greedy bear-off plays need all checkers at home")
    return tuple((roll, _greedy(position, roll)) for roll in ROLLS)
