"""Legal plays for a roll: the whole turn, step by step, and checks of a submitted play.

The generator works on one mutable board and undoes each step after
exploring it, so the inner loop allocates little beyond the result keys.
The opponent's closed points cannot change during my turn (a hit only
removes a lone checker), so the landing squares are worked out once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .errors import IllegalMove, InvalidInput
from .position import BAR, OFF, Play, Position, Step, _checked_step

__all__ = ["StepOption", "check_play", "legal_plays", "legal_steps"]


def _check_dice(dice: Sequence[int]) -> tuple[int, int]:
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidInput("wrong_dice", f"dice are a pair of numbers, got {dice!r}") from None
    if not (isinstance(d1, int) and isinstance(d2, int) and 1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidInput("wrong_dice", f"each die shows 1 to 6, got {dice!r}")
    return d1, d2


def legal_plays(position: Position, dice: Sequence[int]) -> list[Play]:
    """Every legal play for the dice, one per distinct resulting position.

    Each play is a tuple of single-die steps ``(src, dst)``. A play uses as
    many dice as the position allows, the higher die when only one fits.
    Returns ``[]`` when nothing can be played.
    """
    return list(_generate(position, dice).values())


def _generate(position: Position, dice: Sequence[int]) -> dict[bytes, Play]:
    """Map each reachable final board (mine plus the blots hit) to one play reaching it."""
    d1, d2 = _check_dice(dice)
    # [0..25] my checkers; [26 + p] becomes 1 once the blot on my point p is hit,
    # so hitting on the way (13/8*/5) and passing by (13/10/5) stay apart.
    board = bytearray(position.me) + bytearray(26)
    closed, blot = _facing(position.them)
    steps = _step_finder(board, closed, {d1, d2})
    outside = sum(position.me[7:26])  # my checkers outside home, bar included
    if d1 != d2:
        return _two_dice(board, blot, steps, max(d1, d2), min(d1, d2), outside)
    return _doubles(board, blot, steps, d1, outside)


def _facing(them: Sequence[int]) -> tuple[list[bool], list[bool]]:
    """The opponent's closed points and blots, indexed by my point numbers."""
    # Their checkers on my point p are them[25 - p]: read their side backwards.
    # Index 0 (my "off") must never count as a blot or a closed point.
    facing = them[::-1]
    closed = [n >= 2 for n in facing]
    blot = [n == 1 for n in facing]
    closed[OFF] = blot[OFF] = False
    return closed, blot


_Steps = Callable[[int, int, int], list[Step]]


def _step_finder(board: bytearray, closed: list[bool], dice: set[int]) -> _Steps:
    """``steps(die, top, outside)`` on the live ``board``, for the dice of this roll."""
    # open_from[die]: sources on the board whose landing point is not closed.
    open_from: list[list[int]] = [[] for _ in range(7)]
    for die in dice:
        open_from[die] = [src for src in range(24, die, -1) if not closed[src - die]]

    def steps(die: int, top: int, outside: int) -> list[Step]:
        """Single-die steps from sources <= top, the highest source first."""
        if board[BAR]:
            if top == BAR and not closed[BAR - die]:
                return [(BAR, BAR - die)]
            return []
        found = [(src, src - die) for src in open_from[die] if src <= top and board[src]]
        if not outside:
            # Bear off with the exact die, or from the highest point when the die is larger.
            if die <= top and board[die]:
                found.append((die, OFF))
            else:
                for src in range(min(6, top, die - 1), 0, -1):
                    if board[src]:
                        if not any(board[src + 1 : 7]):
                            found.append((src, OFF))
                        break
        return found

    return steps


# In the two searches below, steps are made and undone inline (no helper
# call): this is the hot path. A hit sets the flag at 26 + dst; undoing clears it.


def _two_dice(
    board: bytearray, blot: list[bool], steps: _Steps, high: int, low: int, outside: int
) -> dict[bytes, Play]:
    """The plays of a roll of two different dice, either die first."""
    results: dict[bytes, Play] = {}
    singles: dict[int, dict[bytes, Play]] = {high: {}, low: {}}
    for first, second in ((high, low), (low, high)):
        for s1 in steps(first, BAR, outside):
            src1, dst1 = s1
            board[src1] -= 1
            board[dst1] += 1
            hit1 = blot[dst1] and not board[26 + dst1]
            if hit1:
                board[26 + dst1] = 1
            follow = steps(second, BAR, outside - 1 if src1 > 6 >= dst1 else outside)
            for s2 in follow:
                src2, dst2 = s2
                board[src2] -= 1
                board[dst2] += 1
                hit2 = blot[dst2] and not board[26 + dst2]
                if hit2:
                    board[26 + dst2] = 1
                key = bytes(board)
                if key not in results:
                    results[key] = (s1, s2)
                board[src2] += 1
                board[dst2] -= 1
                if hit2:
                    board[26 + dst2] = 0
            if not follow and not results:
                singles[first].setdefault(bytes(board), (s1,))
            board[src1] += 1
            board[dst1] -= 1
            if hit1:
                board[26 + dst1] = 0
    # Both dice if possible; otherwise the higher one if it can be played at all.
    return results or singles[high] or singles[low]


def _doubles(
    board: bytearray, blot: list[bool], steps: _Steps, die: int, outside: int
) -> dict[bytes, Play]:
    """The plays of a double: up to four steps of one die, as many as possible.

    Taking sources in non-increasing order reaches every final board once
    per multiset of steps instead of once per permutation.
    """
    results: dict[bytes, Play] = {}
    best = 0

    def search(path: Play, top: int, outside: int) -> None:
        nonlocal best
        options = steps(die, top, outside)
        if not options:
            if path and len(path) >= best:
                if len(path) > best:
                    best = len(path)
                    results.clear()
                results.setdefault(bytes(board), path)
            return
        last = len(path) == 3
        for step in options:
            src, dst = step
            board[src] -= 1
            board[dst] += 1
            hit = blot[dst] and not board[26 + dst]
            if hit:
                board[26 + dst] = 1
            if last:
                if best < 4:
                    best = 4
                    results.clear()
                results.setdefault(bytes(board), path + (step,))
            else:
                search(path + (step,), src, outside - 1 if src > 6 >= dst else outside)
            board[src] += 1
            board[dst] -= 1
            if hit:
                board[26 + dst] = 0

    search((), BAR, outside)
    return results


@dataclass(frozen=True, slots=True)
class StepOption:
    """One thing the player may do next: move one checker by one or more dice."""

    src: int
    dst: int
    dice: tuple[int, ...]
    path: tuple[Step, ...]
    hits: bool

    @property
    def label(self) -> str:
        """The board's label for this option: "5", "5+3", "3+3+3"."""
        return "+".join(str(die) for die in self.dice)


# --- Step by step: the click-to-move board and the check of a submitted play ---
#
# These work on Position values and are not tuned for speed: they run once
# per request. They take the legal final positions from legal_plays, so a
# step is offered only if some full legal play goes through it.

_State = tuple[Position, tuple[int, ...]]  # position so far, dice still unused


def _single_steps(position: Position, die: int) -> list[Step]:
    """The single-die steps the rules allow for one die, ignoring the other dice."""
    me, them = position.me, position.them
    if me[BAR]:
        return [(BAR, BAR - die)] if them[die] < 2 else []
    found = [(src, src - die) for src in range(24, die, -1) if me[src] and them[25 - src + die] < 2]
    if not any(me[7:26]):
        if me[die]:
            found.append((die, OFF))
        else:
            for src in range(min(6, die - 1), 0, -1):
                if me[src]:
                    if not any(me[src + 1 : 7]):
                        found.append((src, OFF))
                    break
    return found


def _step(position: Position, src: int, dst: int) -> tuple[Position, bool]:
    """Move one checker without re-checking the rules; return the position and whether it hit."""
    me = list(position.me)
    them = list(position.them)
    me[src] -= 1
    me[dst] += 1
    hit = dst != OFF and them[25 - dst] == 1
    if hit:
        them[25 - dst] = 0
        them[BAR] += 1
    return Position._unchecked(tuple(me), tuple(them)), hit


def _position_from_key(position: Position, key: bytes) -> Position:
    """The position a generator key stands for: my checkers, then the blots hit."""
    them = list(position.them)
    for point in range(1, 25):
        if key[26 + point]:
            them[25 - point] = 0
            them[BAR] += 1
    return Position._unchecked(tuple(key[:26]), tuple(them))


@lru_cache(maxsize=128)
def _turn(position: Position, dice: tuple[int, int]) -> _Turn:
    """One roll's targets, shared by the calls a board makes while a play is built."""
    return _Turn(position, dice)


def _without(dice: tuple[int, ...], die: int) -> tuple[int, ...]:
    rest = list(dice)
    rest.remove(die)
    return tuple(rest)


class _Turn:
    """The legal final positions of one roll, and who can still reach them."""

    def __init__(self, position: Position, dice: Sequence[int]):
        d1, d2 = _check_dice(dice)
        self.position = position
        self.dice = (d1,) * 4 if d1 == d2 else (max(d1, d2), min(d1, d2))
        found = _generate(position, (d1, d2))
        self.length = len(next(iter(found.values()))) if found else 0
        self.targets = {_position_from_key(position, key) for key in found}
        self._memo: dict[tuple[Position, tuple[int, ...], int], bool] = {}

    def can_finish(self, position: Position, dice: tuple[int, ...], steps_left: int) -> bool:
        """Whether ``steps_left`` more steps can reach one of the legal final positions."""
        if steps_left == 0:
            return position in self.targets
        key = (position, dice, steps_left)
        known = self._memo.get(key)
        if known is None:
            known = any(
                self.can_finish(_step(position, *step)[0], _without(dice, die), steps_left - 1)
                for die in set(dice)
                for step in _single_steps(position, die)
            )
            self._memo[key] = known
        return known

    def follow(self, steps: Sequence[Step]) -> list[_State]:
        """Every way (die assignment) to take ``steps`` in order that can still end legally.

        Raises IllegalMove naming the first rule a step breaks.
        """
        states: list[_State] = [(self.position, self.dice)]
        for index, step in enumerate(steps):
            src, dst = step
            # Name the broken rule first: checker there, bar, closed point, home.
            states[0][0].apply((step,))
            if index >= self.length:
                if self.length == 0:
                    raise IllegalMove("illegal_play", "no checker can move with these dice")
                raise IllegalMove(
                    "wrong_dice", f"these dice allow {self.length} steps, not {len(steps)}"
                )
            after: list[_State] = []
            for position, dice in states:
                for die in sorted(set(dice), reverse=True):
                    if (src, dst) in _single_steps(position, die):
                        after.append((_step(position, src, dst)[0], _without(dice, die)))
            if not after:
                raise IllegalMove("wrong_dice", _no_die_reason(states[0][0], src, dst))
            left = self.length - index - 1
            states = [state for state in after if self.can_finish(*state, left)]
            if not states:
                raise IllegalMove(
                    "illegal_play",
                    "this step would leave a die unplayed that could have been played"
                    if self.length > 1
                    else "when only one die can be played, it must be the higher one",
                )
        return _unique(states)


def _steps_of(play: Iterable[Iterable[int]]) -> tuple[Step, ...]:
    """Read a play as sent (lists from JSON are fine) into checked (src, dst) pairs.

    The type is what a caller should pass; what a player sent may be anything,
    hence the checks here and in ``_checked_step``.
    """
    try:
        steps = [tuple(step) for step in play]
    except TypeError:
        raise InvalidInput(
            "bad_step", f"a play is a list of (from, to) steps, got {play!r}"
        ) from None
    return tuple(_checked_step(step) for step in steps)


def _no_die_reason(position: Position, src: int, dst: int) -> str:
    if dst == OFF and any(position.me[src + 1 : 7]):
        return f"no die bears off from point {src} while a checker stands on a higher point"
    return f"no die left moves a checker from {_name(src)} to {_name(dst)}"


def _name(point: int) -> str:
    return "the bar" if point == BAR else "off" if point == OFF else f"point {point}"


def _unique(states: list[_State]) -> list[_State]:
    return list(dict.fromkeys(states))


def legal_steps(
    position: Position, dice: Sequence[int], taken: Sequence[Step] = ()
) -> list[StepOption]:
    """The options for the next move of this turn, given the steps already taken.

    Each option moves one checker by one die, or by several dice in a row
    ("5+3", "3+3+3") when every stop on the way is open. An option is
    offered only when a full legal play goes through it, so the board never
    lets a player strand a die that could have been used. ``[]`` once the
    turn is complete (or when nothing can move at all).
    """
    turn = _turn(position, _check_dice(dice))
    taken = _steps_of(taken)
    states = turn.follow(taken)
    left = turn.length - len(taken)
    options: dict[tuple[int, int, Position], StepOption] = {}

    def extend(
        start: int,
        pos: Position,
        dice: tuple[int, ...],
        spent: tuple[int, ...],
        path: tuple[Step, ...],
        hits: bool,
        steps_left: int,
    ) -> None:
        here = path[-1][1] if path else start
        for die in sorted(set(dice), reverse=True):
            for src, dst in _single_steps(pos, die):
                if src != here:
                    continue
                after, hit = _step(pos, src, dst)
                rest = _without(dice, die)
                if not turn.can_finish(after, rest, steps_left - 1):
                    continue
                option = StepOption(start, dst, spent + (die,), path + ((src, dst),), hits or hit)
                options.setdefault((start, dst, after), option)
                if dst != OFF and steps_left > 1:
                    extend(
                        start, after, rest, option.dice, option.path, option.hits, steps_left - 1
                    )

    if left:
        for pos, dice in states:
            sources = sorted(
                {src for die in set(dice) for src, _ in _single_steps(pos, die)}, reverse=True
            )
            for src in sources:
                extend(src, pos, dice, (), (), False, left)
    return sorted(options.values(), key=lambda o: (-o.src, -o.dst, len(o.dice), o.dice))


def check_play(position: Position, dice: Sequence[int], play: Sequence[Step]) -> Position:
    """Check that ``play`` is a complete legal play for the dice; return the new position.

    The steps may come in any order a player could take them. Raises
    IllegalMove with a code (``illegal_play``, ``incomplete_play``,
    ``wrong_dice``, ``no_checker``, ``point_closed``, ``bar_first``,
    ``bear_off_not_home``...) and a reason in plain words; InvalidInput
    (``bad_step``, ``wrong_dice``) when the steps or the dice cannot be read.
    """
    turn = _turn(position, _check_dice(dice))
    steps = _steps_of(play)
    try:
        states = turn.follow(steps)
    except IllegalMove as first_error:
        # The same steps in another order may work (e.g. 8/5 sent before 13/8);
        # higher sources first is a valid order whenever any order is.
        reordered = tuple(sorted(steps, reverse=True))
        if reordered == steps:
            raise
        try:
            states = turn.follow(reordered)
        except IllegalMove:
            raise first_error from None
    if len(steps) < turn.length:
        raise IllegalMove(
            "incomplete_play",
            f"this roll must be played with {turn.length} "
            f"{'step' if turn.length == 1 else 'steps'}, not {len(steps)}",
        )
    for reached, _dice in states:
        if reached in turn.targets:
            return reached
    if not steps:  # nothing could move: the turn passes with the position unchanged
        return position
    raise IllegalMove("illegal_play", "this play is not legal with these dice")  # pragma: no cover
