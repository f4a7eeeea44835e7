"""The site's own action kinds: what a seat may do that the engine does not know.

The engine's kinds are games.engine.ActionKind (roll, play, double, forfeit,
stop, next_game...), and only those are Turn rows. These are the site's:
claiming the absent player's game (which leads to the engine's forfeit),
keeping waiting past the deadline, and the rematch after a match. Both enums
are StrEnums, so each member equals the name the API, the forms and the board
use for it.
"""

from enum import StrEnum


class SiteAction(StrEnum):
    CLAIM_ABSENCE = "claim_absence"  # win by absence once the deadline passed
    KEEP_WAITING = "keep_waiting"  # let this turn run past the deadline
    REMATCH_OFFER = "rematch_offer"
    REMATCH_ACCEPT = "rematch_accept"
    # Fill the next turn's written plays with the greedy bear-off (the engine's cond_plays).
    CONDITIONAL_GREEDY = "cond_greedy"
