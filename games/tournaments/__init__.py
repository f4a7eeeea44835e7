"""Tournaments' rules, pure Python like the engine: no Django, no I/O.

- knockout: the bracket of 4 to 64 players, seeded by rating, byes in the
  first round when the field is not a power of two, where a winner goes next,
  and the whole bracket rebuilt from the results so far;
- league: groups of 4 to 8, every pairing once (round robin), and the
  standings with their tie-break: match wins, then points difference, then
  head to head.

The services (games.services.tournaments) store the matches and call these
to know which match opens next; a tournament's state is always rebuilt here
from its matches' results.
"""

from games.tournaments.knockout import (
    KNOCKOUT_MAX,
    KNOCKOUT_MIN,
    Bracket,
    Slot,
    bracket_size,
    knockout,
    round_count,
    seed_order,
)
from games.tournaments.league import (
    GROUP_MAX,
    GROUP_MIN,
    Result,
    Standing,
    groups,
    round_robin,
    standings,
)

__all__ = [
    "GROUP_MAX",
    "GROUP_MIN",
    "KNOCKOUT_MAX",
    "KNOCKOUT_MIN",
    "Bracket",
    "Result",
    "Slot",
    "Standing",
    "bracket_size",
    "groups",
    "knockout",
    "round_count",
    "round_robin",
    "seed_order",
    "standings",
]
