"""What a match records: each action taken, with its dice, and each finished game.

Both are plain values with a JSON form; ``MatchState.replay`` rebuilds a
match from its ``Action`` list, and ``MatchState.games`` keeps the
``GameResult`` of every game played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .enums import ActionKind, Ending, EndReason
from .errors import InvalidInput
from .position import Play, Step, WinKind

__all__ = [
    "FORFEIT_REASONS",
    "Action",
    "GameResult",
    "table_from_json",
    "table_to_json",
]

_ACTION_KIND_OF = {kind.value: kind for kind in ActionKind}
FORFEIT_REASONS = (EndReason.RESIGN, EndReason.ABSENCE)


@dataclass(frozen=True)
class Action:
    """One thing that happened, recorded with everything needed to redo it.

    The opening roll is ``Action("roll", 0, dice=(die of side 0, die of side 1))``.
    A roll that leaves no legal play is recorded with ``play=()``: the turn
    passed there and then. A known ``kind`` given as a string becomes its
    ``ActionKind``; an unknown one stays as given, for ``apply`` to refuse.

    ``reason`` says why a forfeit happened, which answer a conditional answer
    records (``take``, ``drop``, ``beaver``; None clears it), and why the table
    played a take, drop, beaver or play for a player (``conditional``: the
    player wrote it ahead; ``forced``: the only legal play). ``table`` is a
    conditional play table: ``((roll, play), ...)``, rolls higher die first.
    """

    kind: ActionKind | str
    side: int
    dice: tuple[int, int] | None = None
    play: tuple[Step, ...] | None = None
    value: int | None = None
    reason: str | None = None
    table: tuple[tuple[tuple[int, int], Play], ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.kind, str) and self.kind in _ACTION_KIND_OF:
            object.__setattr__(self, "kind", _ACTION_KIND_OF[self.kind])

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": str(self.kind), "side": self.side}
        if self.dice is not None:
            data["dice"] = list(self.dice)
        if self.play is not None:
            data["play"] = [list(step) for step in self.play]
        if self.value is not None:
            data["value"] = self.value
        if self.reason is not None:
            data["reason"] = self.reason
        if self.table is not None:
            data["table"] = table_to_json(self.table)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        dice = data.get("dice")
        play = data.get("play")
        table = data.get("table")
        return cls(
            kind=data["kind"],
            side=data["side"],
            dice=None if dice is None else tuple(dice),
            play=None if play is None else tuple(tuple(step) for step in play),
            value=data.get("value"),
            reason=data.get("reason"),
            table=None if table is None else table_from_json(table),
        )


def table_to_json(table: tuple[tuple[tuple[int, int], Play], ...]) -> list[Any]:
    """A play table as JSON: ``[[high, low, [[src, dst], ...]], ...]``."""
    return [[roll[0], roll[1], [list(step) for step in play]] for roll, play in table]


def table_from_json(data: Any) -> tuple[tuple[tuple[int, int], Play], ...]:
    """Read a play table back from ``table_to_json``; a malformed one is InvalidInput."""
    try:
        return tuple(
            ((high, low), tuple((src, dst) for src, dst in play)) for high, low, play in data
        )
    except (TypeError, ValueError):
        raise InvalidInput("bad_table", "a play table is a list of [high, low, play]") from None


@dataclass(frozen=True)
class GameResult:
    """A finished game.

    ``ending`` says how (an ``Ending``: a bear-off, a dropped double, an
    accepted resignation or a forfeit). ``kind`` is what the board (or the accepted
    resignation) was worth before the cube, None for a forfeit; ``points`` is
    what the winner scored, after the cube and the Jacoby rule.
    """

    number: int
    winner: int
    ending: Ending
    kind: WinKind | None
    cube_value: int
    points: int
    crawford: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "winner": self.winner,
            "ending": str(self.ending),
            "kind": None if self.kind is None else int(self.kind),
            "cube_value": self.cube_value,
            "points": self.points,
            "crawford": self.crawford,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        kind = data["kind"]
        return cls(
            number=data["number"],
            winner=data["winner"],
            ending=Ending(data["ending"]),
            kind=None if kind is None else WinKind(kind),
            cube_value=data["cube_value"],
            points=data["points"],
            crawford=data["crawford"],
        )
