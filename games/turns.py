"""A recorded Turn row back into the engine's Action: what every replay reads.

A module of its own so that games.selectors and games.analysis_service share
it without a cycle (selectors imports services, which imports the analysis).
"""

from games.engine import table_from_json
from games.engine.match import Action
from games.models import Turn


def turn_action(turn: Turn) -> Action:
    return Action(
        kind=turn.kind,
        side=turn.side,
        dice=tuple(turn.dice) if turn.dice is not None else None,
        play=tuple(tuple(step) for step in turn.steps) if turn.steps is not None else None,
        value=turn.value,
        reason=turn.reason or None,
        table=None if turn.table is None else table_from_json(turn.table),
    )
