"""The engine's names for things: formats, phases, action kinds, how games and matches end.

All are ``StrEnum``: a member equals its string value, so the stored JSON,
the Turn rows and comparisons with plain strings read exactly as before.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ActionKind", "Ending", "EndReason", "Format", "Phase"]


class ActionKind(StrEnum):
    """What an action does; the value is what the JSON and the Turn rows store."""

    ROLL = "roll"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    PLAY = "play"
    RESIGN_OFFER = "resign_offer"
    RESIGN_ACCEPT = "resign_accept"
    RESIGN_DECLINE = "resign_decline"
    FORFEIT = "forfeit"
    NEXT_GAME = "next_game"
    STOP = "stop"
    # Written ahead by a player, applied later by the table (games.engine.conditional):
    # the answer to the opponent's possible double, the plays of the next turn.
    CONDITIONAL_ANSWER = "cond_answer"
    CONDITIONAL_PLAYS = "cond_plays"


class Ending(StrEnum):
    """How one game ended (``GameResult.ending``)."""

    BEAROFF = "bearoff"  # the winner bore off all 15
    DROP = "drop"  # a double was refused
    RESIGN = "resign"  # an offered resignation was accepted
    FORFEIT = "forfeit"  # a player gave the match up, or was absent too long


class EndReason(StrEnum):
    """Why a match ended (``MatchState.end_reason``)."""

    WON = "won"  # a game ended it: the partida simple, or the match length reached
    STOP = "stop"  # a sesión libre stopped between games
    RESIGN = "resign"  # a forfeit: the player gave the match up
    ABSENCE = "absence"  # a forfeit claimed after the player let the clock run out


class Format(StrEnum):
    SINGLE = "single"  # partida simple: one game, no cube
    MATCH = "match"  # first to `length` points, cube and Crawford rule
    SESSION = "session"  # sesión libre: game after game until a player stops


class Phase(StrEnum):
    OPENING = "opening"  # the opening roll is due (the table rolls it)
    ROLL = "roll"  # side `turn` may double or roll
    DOUBLED = "doubled"  # side `turn` must take, drop or beaver
    MOVE = "move"  # dice rolled; side `turn` must play
    RESIGN_OFFERED = "resign_offered"  # side `turn` must accept or decline a resignation
    GAME_OVER = "game_over"  # the game ended, the match did not
    MATCH_OVER = "match_over"
