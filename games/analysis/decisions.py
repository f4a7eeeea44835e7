"""The decisions of a match, read off its recorded actions with the engine. Pure.

A decision is a moment where a player chose: a checker play, a cube action
(doubling, or rolling when doubling was possible) or the answer to a double.
Each one carries what the evaluator needs: the position from the deciding
side, the dice, the choice made and the match context (cube and score).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from games.bots.context import BotContext
from games.bots.runner import context_for
from games.engine import Action, ActionKind, MatchRules, MatchState, Phase, Play, Position

# Rolling when the cube could have been turned: the one decision that is no
# action of its own. Every other decision is named by the action taken.
NO_DOUBLE: Final = "no_double"
DecisionKind: TypeAlias = ActionKind | Literal["no_double"]
CUBE_KINDS: tuple[DecisionKind, ...] = (
    NO_DOUBLE,
    ActionKind.DOUBLE,
    ActionKind.TAKE,
    ActionKind.DROP,
    ActionKind.BEAVER,
)


@dataclass(frozen=True, slots=True)
class Decision:
    """One choice of one player.

    ``index`` is the action's place in the match's list of actions (the caller
    maps it back to its Turn row). For an answer to a double, ``position`` and
    ``context`` are the taker's, with the cube as it was before the double.
    """

    index: int
    side: int
    kind: DecisionKind
    position: Position
    context: BotContext
    dice: tuple[int, int] | None = None
    play: Play | None = None

    @property
    def is_cube(self) -> bool:
        return self.kind in CUBE_KINDS


def match_decisions(
    rules: MatchRules, actions: Iterable[Action], wanted: Iterable[int] | None = None
) -> list[Decision]:
    """The decisions among ``actions`` (a whole match, in order), those at ``wanted`` indices.

    The match is replayed from its start, so the score, the cube and the
    Crawford game are exactly as they were at each decision.
    """
    keep = None if wanted is None else set(wanted)
    return [d for d in _decisions(rules, actions) if keep is None or d.index in keep]


def _decisions(rules: MatchRules, actions: Iterable[Action]) -> Iterator[Decision]:
    state = MatchState.new(rules)
    for index, action in enumerate(actions):
        decision = _decision(index, state, action)
        if decision is not None:
            yield decision
        state = state.apply(action)


def _decision(index: int, state: MatchState, action: Action) -> Decision | None:
    side, kind = action.side, action.kind
    cube_kind: DecisionKind
    if (
        state.phase is Phase.ROLL
        and kind in (ActionKind.ROLL, ActionKind.DOUBLE)
        and state.may_double(side)
    ):
        # Rolling when the cube could have been turned is a cube decision too.
        cube_kind = ActionKind.DOUBLE if kind == ActionKind.DOUBLE else NO_DOUBLE
        return Decision(index, side, cube_kind, state.position_for(side), context_for(state, side))
    if (
        state.phase is Phase.DOUBLED
        and isinstance(kind, ActionKind)
        and kind in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER)
        and not state.beaver_pending
    ):
        # The answer to a beaver (the doubler's) is not rated: bgsage rates
        # the double and the take, and the beaver as a take.
        return Decision(index, side, kind, state.position_for(side), context_for(state, side))
    if state.phase is Phase.MOVE and kind == ActionKind.PLAY and state.dice is not None:
        return Decision(
            index,
            side,
            ActionKind.PLAY,
            state.position_for(side),
            context_for(state, side),
            dice=state.dice,
            play=tuple(action.play or ()),
        )
    return None
