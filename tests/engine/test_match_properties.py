"""Seeded random matches played to the end through random legal actions.

Every state a player could see is checked: the cube, the score, the JSON
round trip; afterwards the action list is replayed in one pass and compared
with the recorded states, and the Crawford game is counted.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from dataclasses import dataclass, field

import pytest

from games.engine import (
    Action,
    ActionKind,
    Format,
    IllegalAction,
    MatchRules,
    MatchState,
    Phase,
    advance,
    roll_key,
)
from games.engine.rules import CUBE_LIMIT

from .helpers import RandomDice, choose

# 1,000 matches pass every kind of game (Crawford games, beavers, automatic
# doubles, resignations) well over a hundred times; set MESA_PROPERTY_MATCHES
# for a longer run (e.g. 10000) after touching the state machine.
MATCHES = int(os.environ.get("MESA_PROPERTY_MATCHES", "1000"))
SEED = 20261129
# Side 0 has forced plays made for it, side 1 plays them by hand.
FORCED_FOR = (0,)

RULE_CHOICES = (
    [MatchRules()] * 3
    + [MatchRules(Format.MATCH, n) for n in (1, 3, 3, 5, 7, 11)]
    + [
        MatchRules(Format.SESSION),
        MatchRules(Format.SESSION, auto_doubles=True),
        MatchRules(Format.SESSION, auto_doubles=True, max_auto_doubles=3, beavers=True),
        MatchRules(Format.SESSION, beavers=True, jacoby=True),
        MatchRules(Format.SESSION, auto_doubles=True, beavers=True, jacoby=True),
    ]
)


@dataclass
class Tally:
    matches: int = 0
    actions: int = 0
    refused: int = 0
    crawford_games: int = 0
    by_format: dict[str, int] = field(default_factory=dict)
    kinds: Counter[str] = field(default_factory=Counter)
    table_played: Counter[tuple[str, str]] = field(default_factory=Counter)


def try_refused(state: MatchState, rng: random.Random, tally: Tally) -> None:
    """Any action `allowed_actions` leaves out must be refused, and change nothing."""
    side = rng.randint(0, 1)
    kind = rng.choice(sorted(ActionKind))
    if kind in state.allowed_actions(side) or (state.phase is Phase.OPENING and kind == "roll"):
        return
    action = Action(
        kind,
        side,
        dice=(rng.randint(1, 6), rng.randint(1, 6)),
        play=((24, 18), (18, 13)) if kind == "play" else None,
        value=rng.randint(1, 3),
        reason="resign",
    )
    before = state.to_json()
    try:
        state.apply(action)
    except IllegalAction as exc:
        assert exc.code and exc.reason
        tally.refused += 1
    else:
        raise AssertionError(f"{action} was accepted in {state.phase} for side {side}")
    assert state.to_json() == before


def check_step(previous: MatchState, state: MatchState) -> None:
    cube = state.cube_value
    assert 1 <= cube <= CUBE_LIMIT and cube & (cube - 1) == 0
    if state.cube_owner is None:
        if state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
            # A centred cube moved only through automatic doubles (and a beaver
            # waiting for its answer, which the beaverer already took).
            assert cube == 2 ** (state.auto_doubles_used + state.beaver_pending)
    else:
        assert state.cube_owner in (0, 1) and cube >= 2
    if not state.rules.uses_cube or state.crawford_game:
        assert cube == 1 and state.cube_owner is None
    assert state.score[0] >= previous.score[0] and state.score[1] >= previous.score[1]
    assert sum(state.score) == sum(game.points for game in state.games)
    assert state.position == state.position_for(state.turn)
    assert state.position_for(1 - state.turn) == state.position.flip()
    restored = MatchState.from_json(json.loads(json.dumps(state.to_json())))
    assert restored == state


def check_table_action(previous: MatchState, state: MatchState) -> None:
    """What the table played for a player is what they wrote, or the only legal play."""
    last = state.last_action
    assert last is not None
    if last.reason == "forced":
        assert last.side in FORCED_FOR and previous.legal_plays() == (last.play,)
    elif last.reason == "conditional" and last.kind == "play":
        assert previous.dice is not None
        assert last.play == dict(previous.play_tables[last.side] or ())[roll_key(previous.dice)]
    elif last.reason == "conditional":
        assert previous.phase is Phase.DOUBLED and previous.cube_answers[last.side] == last.kind
    # Nothing written survives the end of a game.
    if state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
        assert state.cube_answers == (None, None) and state.play_tables == (None, None)


def expected_crawford(rules: MatchRules, state: MatchState) -> list[int]:
    """Game numbers that must be Crawford games, from the scores between games."""
    if rules.format is not Format.MATCH:
        return []
    score = [0, 0]
    match_point = rules.length - 1
    for game in state.games[:-1]:
        score[game.winner] += game.points
        if (score[0] == match_point) != (score[1] == match_point):
            return [game.number + 1]
    return []


def play_match(rules: MatchRules, rng: random.Random, tally: Tally) -> None:
    dice = RandomDice(rng)
    state = MatchState.new(rules)
    actions: list[Action] = []
    states: list[MatchState] = []
    while state.phase is not Phase.MATCH_OVER:
        previous = state
        if rng.random() < 0.1:
            try_refused(state, rng, tally)
        if state.needs_auto_roll() or state.planned_action(FORCED_FOR) is not None:
            # One table action at a time, so every intermediate state is seen.
            state, done = advance(state, dice, limit=1, forced_for=FORCED_FOR)
            assert len(done) == 1
        else:
            state = state.apply(choose(state, rng))
        assert state.last_action is not None
        actions.append(state.last_action)
        states.append(state)
        check_step(previous, state)
        check_table_action(previous, state)
        assert len(actions) < 20_000, "a match that never ends"

    # One pass over the recorded actions rebuilds every recorded state.
    replayed = MatchState.new(rules)
    for action, live in zip(actions, states, strict=True):
        replayed = replayed.apply(Action.from_json(json.loads(json.dumps(action.to_json()))))
        assert replayed == live

    crawford = [game.number for game in state.games if game.crawford]
    assert crawford == expected_crawford(rules, state)
    assert state.winner is not None or rules.format is Format.SESSION
    tally.matches += 1
    tally.actions += len(actions)
    tally.crawford_games += len(crawford)
    tally.kinds.update(action.kind for action in actions)
    tally.table_played.update(
        (str(action.kind), action.reason)
        for action in actions
        if action.reason in ("conditional", "forced")
    )
    tally.by_format[rules.format.value] = tally.by_format.get(rules.format.value, 0) + 1


@pytest.mark.slow
def test_random_matches_keep_every_invariant():
    rng = random.Random(SEED)
    tally = Tally()
    for _ in range(MATCHES):
        play_match(rng.choice(RULE_CHOICES), rng, tally)
    print(
        f"\n{tally.matches} matches, {tally.actions} actions, {tally.refused} refusals, "
        f"{tally.crawford_games} Crawford games, {tally.by_format}, {dict(tally.kinds)}"
    )
    assert tally.matches == MATCHES
    assert tally.crawford_games > 0
    assert tally.refused > MATCHES
    assert set(tally.by_format) == {"single", "match", "session"}
    assert set(tally.kinds) == set(ActionKind), "every kind of action was played"
    # The table played written answers and plays, and forced plays for side 0 only.
    played = tally.table_played
    assert played["take", "conditional"] and played["drop", "conditional"]
    assert played["beaver", "conditional"] and played["play", "conditional"]
    assert played["play", "forced"]
