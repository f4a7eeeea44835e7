"""GNU Backgammon's Match ID, shown next to the Position ID.

The match key is a string of bits, packed lowest bit first into 9 bytes and
written as 12 characters of base64 (GNU Backgammon manual, "A technical
description of the Match ID"). Bit ranges, counting from 0:

====== ===== ==========================================================
bits   width meaning
====== ===== ==========================================================
0-3    4     log2 of the cube value
4-5    2     cube owner: 0, 1, or 3 when centred
6      1     the player on roll (who rolled or is about to roll)
7      1     Crawford game
8-10   3     game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
11     1     the player who must decide now (the taker while doubled)
12     1     a double is offered
13-14  2     resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17  3     die 1 (the higher die; 0 when not rolled)
18-20  3     die 2
21-35  15    match length (0 for money play)
36-50  15    score of player 0
51-65  15    score of player 1
66     1     1 when the Jacoby rule is *off* (money play)
====== ===== ==========================================================

Sides 0 and 1 are GNU Backgammon's players 0 and 1. The Position ID that goes
with a Match ID is seen from the player on roll: ``gnubg_id`` gives both.

>>> from games.engine import Format, MatchRules, MatchState
>>> match_id(MatchState.new(MatchRules(Format.MATCH, 7)))
'MAHgAAAAAAAE'
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from .enums import Ending, Format, Phase
from .match import MatchState

__all__ = ["MatchIdFields", "decode_match_id", "encode_match_id", "gnubg_id", "match_id"]

_FIELDS = (
    # (name, first bit, width)
    ("cube_log", 0, 4),
    ("cube_owner", 4, 2),
    ("on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resign", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("not_jacoby", 66, 1),
)

GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)
_ENDINGS = {
    Ending.BEAROFF: GAME_OVER,
    Ending.RESIGN: GAME_RESIGNED,
    Ending.FORFEIT: GAME_RESIGNED,
    Ending.DROP: GAME_DROPPED,
}


@dataclass(frozen=True)
class MatchIdFields:
    """The decoded contents of a Match ID, in GNU Backgammon's terms."""

    cube_value: int
    cube_owner: int | None  # None when centred
    on_roll: int
    crawford: bool
    game_state: int
    turn: int
    doubled: bool
    resign: int
    dice: tuple[int, int]  # (0, 0) when not rolled
    length: int
    score: tuple[int, int]
    jacoby: bool


def encode_match_id(fields: MatchIdFields) -> str:
    values = {
        "cube_log": fields.cube_value.bit_length() - 1,
        "cube_owner": 3 if fields.cube_owner is None else fields.cube_owner,
        "on_roll": fields.on_roll,
        "crawford": int(fields.crawford),
        "game_state": fields.game_state,
        "turn": fields.turn,
        "doubled": int(fields.doubled),
        "resign": fields.resign,
        "die1": max(fields.dice),
        "die2": min(fields.dice),
        "length": fields.length,
        "score0": fields.score[0],
        "score1": fields.score[1],
        "not_jacoby": int(not fields.jacoby),
    }
    key = 0
    for name, first, width in _FIELDS:
        value = values[name]
        if not 0 <= value < 1 << width:
            raise ValueError(f"{name} = {value} does not fit in {width} bits")
        key |= value << first
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def decode_match_id(mid: str) -> MatchIdFields:
    """Read a Match ID; ValueError when it is not one.

    >>> decode_match_id("MAHgAAAAAAAE").length
    7
    """
    if not isinstance(mid, str) or len(mid) != 12:
        raise ValueError(f"a Match ID has 12 characters, got {mid!r}")
    try:
        raw = base64.b64decode(mid.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"a Match ID uses only A-Z a-z 0-9 + /, got {mid!r}") from None
    key = int.from_bytes(raw, "little")
    bits = {name: key >> first & ((1 << width) - 1) for name, first, width in _FIELDS}
    if bits["die1"] > 6 or bits["die2"] > 6:
        raise ValueError(f"Match ID {mid!r} holds a die above 6")
    owner = bits["cube_owner"]
    return MatchIdFields(
        cube_value=1 << bits["cube_log"],
        cube_owner=owner if owner in (0, 1) else None,
        on_roll=bits["on_roll"],
        crawford=bool(bits["crawford"]),
        game_state=bits["game_state"],
        turn=bits["turn"],
        doubled=bool(bits["doubled"]),
        resign=bits["resign"],
        dice=(bits["die1"], bits["die2"]),
        length=bits["length"],
        score=(bits["score0"], bits["score1"]),
        jacoby=not bits["not_jacoby"],
    )


def match_fields(state: MatchState) -> MatchIdFields:
    """The Match ID contents for a state of our match."""
    rules = state.rules
    if state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER) and state.games:
        game_state = _ENDINGS[state.games[-1].ending]
    else:
        game_state = GAME_PLAYING
    # Partida simple is a one-point match to GNU Backgammon; sesión libre is money play.
    length = {Format.SINGLE: 1, Format.MATCH: rules.length, Format.SESSION: 0}[rules.format]
    return MatchIdFields(
        cube_value=state.cube_value,
        cube_owner=state.cube_owner,
        on_roll=state.on_roll,
        crawford=state.crawford_game,
        game_state=game_state,
        turn=state.turn,
        doubled=state.phase is Phase.DOUBLED,
        resign=state.resign_value or 0 if state.phase is Phase.RESIGN_OFFERED else 0,
        # A resignation offered after rolling keeps the dice on the table.
        dice=state.dice or (0, 0),
        length=length,
        score=(min(state.score[0], 0x7FFF), min(state.score[1], 0x7FFF)),
        # Off outside a sesión libre, as GNU Backgammon writes it for a match.
        jacoby=rules.jacoby,
    )


def match_id(state: MatchState) -> str:
    return encode_match_id(match_fields(state))


def gnubg_id(state: MatchState) -> str:
    """``PositionID:MatchID``, the pair GNU Backgammon pastes in one go."""
    return f"{state.position_for(state.on_roll).position_id()}:{match_id(state)}"
