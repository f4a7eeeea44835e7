"""A backgammon position, always seen from the player on roll.

Points are numbered 24..1 from the side of whoever the array belongs to:
``me[p]`` counts my checkers on my point ``p``, ``them[k]`` counts the
opponent's checkers on *their* point ``k`` (which is my point ``25 - k``).
Index 0 holds the checkers borne off and index 25 the checkers on the bar.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum

from .errors import IllegalMove, InvalidInput

BAR = 25
OFF = 0
CHECKERS_PER_SIDE = 15
HOME = range(1, 7)

Step = tuple[int, int]
Play = tuple[Step, ...]

_INITIAL_SIDE = (0,) + (0,) * 5 + (5, 0, 3) + (0,) * 4 + (5,) + (0,) * 10 + (2, 0)
_B64_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class WinKind(IntEnum):
    """How a game was won; the value is the points it is worth before the cube."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True, slots=True)
class Outcome:
    winner_is_me: bool
    kind: WinKind


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable position from the point of view of the player on roll."""

    me: tuple[int, ...]
    them: tuple[int, ...]

    def __post_init__(self) -> None:
        _validate(self.me, "me")
        _validate(self.them, "them")
        for point in range(1, 25):
            if self.me[point] and self.them[25 - point]:
                raise ValueError(
                    f"point {point} holds checkers of both sides "
                    f"({self.me[point]} mine, {self.them[25 - point]} theirs)"
                )
        if self.me[OFF] == CHECKERS_PER_SIDE and self.them[OFF] == CHECKERS_PER_SIDE:
            raise ValueError("both sides have borne off all their checkers")

    @classmethod
    def _unchecked(cls, me: tuple[int, ...], them: tuple[int, ...]) -> Position:
        """Build a position the engine itself derived, skipping validation."""
        position = object.__new__(cls)
        object.__setattr__(position, "me", me)
        object.__setattr__(position, "them", them)
        return position

    @classmethod
    def initial(cls) -> Position:
        return cls._unchecked(_INITIAL_SIDE, _INITIAL_SIDE)

    @classmethod
    def from_points(cls, me: dict[int, int], them: dict[int, int]) -> Position:
        """Build a position from ``{point: checkers}`` maps; the rest are borne off.

        Both maps use the owner's own numbering (25 = bar), as in the arrays.

        >>> Position.from_points({6: 15}, {6: 15}).pips()
        (90, 90)
        """
        return cls(_side_from_points(me, "me"), _side_from_points(them, "them"))

    @classmethod
    def from_position_id(cls, pid: str) -> Position:
        """Decode GNU Backgammon's 14-character Position ID.

        >>> Position.from_position_id("4HPwATDgc/ABMA") == Position.initial()
        True
        """
        if not isinstance(pid, str) or len(pid) != 14:
            raise ValueError(f"a Position ID has 14 characters, got {pid!r}")
        raw = pid.encode("ascii", "replace")
        if not set(raw) <= _B64_ALPHABET:
            raise ValueError(f"a Position ID uses only A-Z a-z 0-9 + /, got {pid!r}")
        try:
            key = base64.b64decode(raw + b"==", validate=True)
        except binascii.Error as exc:  # pragma: no cover - the alphabet check catches it
            raise ValueError(f"not a Position ID: {pid!r}") from exc
        bits = int.from_bytes(key, "little")
        # The key lists the player not on roll first, then the player on roll,
        # each as 25 groups (points 1..24, then the bar): a run of 1s per checker
        # closed by a 0, the lowest bit first.
        sides: list[list[int]] = []
        pos = 0
        for _side in range(2):
            counts = [0] * 26
            for index in range(1, 26):
                while pos < 80 and bits >> pos & 1:
                    counts[index] += 1
                    pos += 1
                if pos >= 80:
                    raise ValueError(f"Position ID {pid!r} is cut short: too many checkers")
                pos += 1
            on_board = sum(counts)
            if on_board > CHECKERS_PER_SIDE:
                raise ValueError(
                    f"Position ID {pid!r} puts {on_board} checkers of one side on the board; "
                    f"the most is {CHECKERS_PER_SIDE}"
                )
            counts[OFF] = CHECKERS_PER_SIDE - on_board
            sides.append(counts)
        if bits >> pos:
            raise ValueError(f"Position ID {pid!r} has stray bits after the last point")
        them, me = sides
        return cls(tuple(me), tuple(them))

    def position_id(self) -> str:
        """GNU Backgammon's Position ID of this position.

        >>> Position.initial().position_id()
        '4HPwATDgc/ABMA'
        """
        bits = 0
        pos = 0
        for side in (self.them, self.me):
            for index in range(1, 26):
                count = side[index]
                bits |= ((1 << count) - 1) << pos
                pos += count + 1
        return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"

    def flip(self) -> Position:
        """The same position seen by the other player."""
        return Position._unchecked(self.them, self.me)

    def pips(self) -> tuple[int, int]:
        """Pip counts (mine, theirs); a checker on the bar counts 25."""
        return _pips(self.me), _pips(self.them)

    def is_bearing_off(self) -> bool:
        """True when all my checkers still in play are in my home board."""
        return not any(self.me[7:26])

    def is_mutual_closeout(self) -> bool:
        """True when both sides have a checker on the bar against a closed home board.

        Neither side can ever move again, whatever the dice: each roll passes
        and leaves the position as it was.

        >>> closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 25: 1}
        >>> Position.from_points(closed, closed).is_mutual_closeout()
        True
        """
        return (
            self.me[BAR] > 0
            and self.them[BAR] > 0
            and all(self.me[point] >= 2 for point in HOME)
            and all(self.them[point] >= 2 for point in HOME)
        )

    def apply(self, play: Play) -> Position:
        """Play single-die steps in order and return the position, still from my side.

        Checks each step on its own (a checker is there, the landing point is
        open, bar first, bearing off only from home). Whether the steps fit
        the dice is the business of ``legal_plays`` and ``check_play``.
        """
        me = list(self.me)
        them = list(self.them)
        for step in play:
            src, dst = _checked_step(step)
            if not me[src]:
                where = "on the bar" if src == BAR else f"on point {src}"
                raise IllegalMove("no_checker", f"there is no checker of yours {where}")
            if me[BAR] and src != BAR:
                raise IllegalMove(
                    "bar_first", "a checker on the bar must enter before any other checker moves"
                )
            if dst == OFF:
                if any(me[7:26]):
                    raise IllegalMove(
                        "bear_off_not_home",
                        "checkers can only be borne off once all of them are in the home board",
                    )
            else:
                theirs = them[25 - dst]
                if theirs >= 2:
                    raise IllegalMove(
                        "point_closed",
                        f"point {dst} is closed: the opponent has {theirs} checkers there",
                    )
                if theirs == 1:
                    them[25 - dst] = 0
                    them[BAR] += 1
            me[src] -= 1
            me[dst] += 1
        return Position._unchecked(tuple(me), tuple(them))

    def outcome(self) -> Outcome | None:
        """The result once one side has borne off all 15, else None."""
        if self.me[OFF] == CHECKERS_PER_SIDE:
            return Outcome(True, _win_kind(self.them))
        if self.them[OFF] == CHECKERS_PER_SIDE:
            return Outcome(False, _win_kind(self.me))
        return None

    def is_game_over(self) -> bool:
        return self.me[OFF] == CHECKERS_PER_SIDE or self.them[OFF] == CHECKERS_PER_SIDE


def _win_kind(loser: tuple[int, ...]) -> WinKind:
    if loser[OFF]:
        return WinKind.SINGLE
    # The winner's home board is the loser's 19..24.
    if loser[BAR] or any(loser[19:25]):
        return WinKind.BACKGAMMON
    return WinKind.GAMMON


def _pips(side: tuple[int, ...]) -> int:
    return sum(point * side[point] for point in range(1, 26))


def _checked_step(step: tuple[int, ...]) -> Step:
    try:
        src, dst = step
    except (TypeError, ValueError):
        raise InvalidInput("bad_step", f"a step is a pair (from, to), got {step!r}") from None
    if not (isinstance(src, int) and isinstance(dst, int)):
        raise InvalidInput("bad_step", f"a step is a pair of point numbers, got {step!r}")
    if not (1 <= src <= BAR and OFF <= dst <= 24):
        raise InvalidInput("bad_step", f"no such step: from {src} to {dst}")
    if src <= dst:
        raise IllegalMove("wrong_direction", f"checkers move towards point 1, not {src} to {dst}")
    if dst != OFF and src - dst > 6:
        raise IllegalMove("too_far", f"one step moves one die's worth (1 to 6), not {src} to {dst}")
    if src == BAR and dst < 19:
        raise IllegalMove("too_far", "a checker on the bar enters on points 24 to 19")
    if dst == OFF and src > 6:
        raise IllegalMove("bear_off_not_home", f"point {src} is outside the home board")
    return src, dst


def _validate(side: object, name: str) -> None:
    if not isinstance(side, tuple) or len(side) != 26:
        raise ValueError(f"{name} must be a tuple of 26 counts (off, points 1-24, bar)")
    for count in side:
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} holds {count!r}; counts are whole numbers from 0")
    total = sum(side)
    if total != CHECKERS_PER_SIDE:
        raise ValueError(
            f"{name} has {total} checkers counting those borne off; "
            f"each side has {CHECKERS_PER_SIDE}"
        )


def _side_from_points(points: dict[int, int], name: str) -> tuple[int, ...]:
    side = [0] * 26
    for point, count in points.items():
        if not 1 <= point <= BAR:
            raise ValueError(f"{name}: no point {point}; use 1-24 and 25 for the bar")
        side[point] = count
    on_board = sum(side)
    if on_board > CHECKERS_PER_SIDE:
        raise ValueError(f"{name} has {on_board} checkers on the board; the most is 15")
    side[OFF] = CHECKERS_PER_SIDE - on_board
    return tuple(side)
