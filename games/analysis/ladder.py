"""The analysis measured on the project's own bots, and games for the bench. Pure.

``bot_prs`` lets each bot choose at the same fixed positions (decisions with
a real choice from seeded self-play) and rates the choices with the same
evaluator and depth the site's analysis uses: the PRs must order the bots
as their strength does (Domador > Chofer > Carcelero > Empresario).
``bot_game`` plays one game of a match between two bots, as the site
records it (a list of engine actions), for timing a whole game's analysis.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.bots import BOT_NAMES, CUBELESS_MONEY, get_bot
from games.bots.runner import next_action
from games.engine import (
    Action,
    ActionKind,
    MatchRules,
    MatchState,
    Phase,
    Position,
    SeededDice,
    advance,
    legal_plays,
)

from .evaluate import DEFAULT_SETTINGS, Settings, rank

SAMPLE_SEED = 20261201


def sample_positions(count: int, seed: int = SAMPLE_SEED) -> list[tuple[Position, tuple[int, int]]]:
    """``count`` positions with dice and more than one distinct play, from seeded self-play.

    The games are played by a seeded random choice among the three plays
    that leave the fewest blots (with a bonus for hitting), so they look like
    real games without depending on any bot under test or on bgsage.
    """
    rng = random.Random(seed)
    sample: list[tuple[Position, tuple[int, int]]] = []
    position = Position.initial()
    while len(sample) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(position, dice)
        results = {position.apply(play) for play in plays}
        if len(results) > 1 and rng.random() < 0.3:
            sample.append((position, dice))
        if plays:
            # Prefer plays that hit or make points, like a person: the fewest blots.
            plays = sorted(plays, key=lambda p: _blots(position.apply(p)))[:3]
            position = position.apply(rng.choice(plays))
        position = Position.initial() if position.outcome() else position.flip()
    return sample


def _blots(position: Position) -> int:
    return sum(1 for point in range(1, 25) if position.me[point] == 1) - position.them[25]


@dataclass
class BotRating:
    name: str
    decisions: int
    total_loss: float

    @property
    def pr(self) -> float:
        return 500 * self.total_loss / self.decisions if self.decisions else 0.0


def bot_prs(
    count: int = 200, seed: int = SAMPLE_SEED, settings: Settings = DEFAULT_SETTINGS
) -> list[BotRating]:
    """Each bot's PR on the same ``count`` cubeless money decisions, weakest bot first."""
    bots = [get_bot(name, random.Random(f"{seed}:{name}")) for name in BOT_NAMES]
    ratings = [BotRating(bot.name, 0, 0.0) for bot in bots]
    for position, dice in sample_positions(count, seed):
        chosen = [bot.choose_play(position, dice, CUBELESS_MONEY) for bot in bots]
        # One search serves the four bots: each one's play is searched fully.
        ranked = rank(position, dice, CUBELESS_MONEY, chosen, settings)
        equity = {candidate.after: candidate.equity for candidate in ranked}
        best = ranked[0].equity
        for rating, play in zip(ratings, chosen, strict=True):
            rating.decisions += 1
            rating.total_loss += max(0.0, best - equity[position.apply(play)])
    return ratings


def bot_game(rules: MatchRules, names: tuple[str, str], seed: int) -> list[Action]:
    """The actions of the first game of a match between two bots, as the site stores them."""
    dice = SeededDice(f"mesa-bench:{seed}".encode())
    bots = [get_bot(name, random.Random(f"{seed}:{side}")) for side, name in enumerate(names)]
    state, actions = advance(MatchState.new(rules), dice)
    while state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
        side = state.turn
        action = next_action(bots[side], state, side)
        if action is None:
            raise RuntimeError(f"no action for side {side} in {state.phase}")
        if action.kind == ActionKind.ROLL:
            action = Action(ActionKind.ROLL, side, dice=dice.roll())
        state = state.apply(action)
        assert state.last_action is not None
        actions.append(state.last_action)
        state, automatic = advance(state, dice)
        actions.extend(automatic)
    return actions
