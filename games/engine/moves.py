"""Legal plays for a roll: the whole turn, step by step, and checks of a submitted play.

The generator works on one mutable board and undoes each step after
exploring it, so the inner loop creates no objects except the result keys.
The opponent's closed points cannot change during my turn (a hit only
removes a lone checker), so the landing squares are worked out once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .position import BAR, OFF, IllegalMove, Play, Position, Step

__all__ = ["StepOption", "legal_plays"]


def _check_dice(dice: Sequence[int]) -> tuple[int, int]:
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise IllegalMove("wrong_dice", f"dice are a pair of numbers, got {dice!r}") from None
    if not (isinstance(d1, int) and isinstance(d2, int) and 1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise IllegalMove("wrong_dice", f"each die shows 1 to 6, got {dice!r}")
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
    them = position.them
    # [0..25] my checkers; [26 + p] becomes 1 once the blot on my point p is hit,
    # so hitting on the way (13/8*/5) and passing by (13/10/5) stay apart.
    board = bytearray(position.me) + bytearray(26)
    closed = [False] * 26
    blot = [False] * 26
    for point in range(1, 25):
        theirs = them[25 - point]
        closed[point] = theirs >= 2
        blot[point] = theirs == 1
    # open_from[die]: sources on the board whose landing point is not closed.
    open_from: list[list[int]] = [[] for _ in range(7)]
    for die in {d1, d2}:
        open_from[die] = [src for src in range(24, die, -1) if not closed[src - die]]
    outside = sum(position.me[7:26])  # my checkers outside home, bar included

    def steps(die: int, top: int) -> list[Step]:
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

    def move(src: int, dst: int) -> bool:
        """Make one step on the board; return whether it hit (needed to undo it)."""
        nonlocal outside
        board[src] -= 1
        board[dst] += 1
        if src > 6 and dst <= 6:
            outside -= 1
        if blot[dst] and not board[26 + dst]:
            board[26 + dst] = 1
            return True
        return False

    def unmove(src: int, dst: int, hit: bool) -> None:
        nonlocal outside
        board[src] += 1
        board[dst] -= 1
        if src > 6 and dst <= 6:
            outside += 1
        if hit:
            board[26 + dst] = 0

    results: dict[bytes, Play] = {}
    if d1 != d2:
        high, low = max(d1, d2), min(d1, d2)
        singles: dict[int, dict[bytes, Play]] = {high: {}, low: {}}
        for first, second in ((high, low), (low, high)):
            for s1 in steps(first, BAR):
                hit1 = move(*s1)
                follow = steps(second, BAR)
                for s2 in follow:
                    hit2 = move(*s2)
                    key = bytes(board)
                    if key not in results:
                        results[key] = (s1, s2)
                    unmove(*s2, hit2)
                if not follow and not results:
                    singles[first].setdefault(bytes(board), (s1,))
                unmove(*s1, hit1)
        # Both dice if possible; otherwise the higher one if it can be played at all.
        return results or singles[high] or singles[low]

    # Doubles: up to four steps of one die. Taking sources in non-increasing
    # order reaches every final board once per multiset of steps instead of
    # once per permutation.
    die = d1
    best = 0

    def record(path: Play) -> None:
        nonlocal best
        if len(path) > best:
            best = len(path)
            results.clear()
        key = bytes(board)
        if key not in results:
            results[key] = path

    def search(path: Play, top: int) -> None:
        options = steps(die, top)
        if not options:
            if len(path) >= best and path:
                record(path)
            return
        last = len(path) == 3
        for step in options:
            hit = move(*step)
            if last:
                record(path + (step,))
            else:
                search(path + (step,), step[0])
            unmove(*step, hit)

    search((), BAR)
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

