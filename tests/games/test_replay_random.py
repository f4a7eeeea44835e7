"""Random matches through the services: every path of the cube, resigning and sessions.

Each step picks one of the actions the state allows the seat on turn (or, now
and then, a resignation by either side). After every match: the Turn log
replays to the stored state (autouse check), each game's turns are numbered
1..n without a gap, every roll of every finished game comes from its revealed
seed, and the room's versions only grew.
"""

import random

import pytest

from games import selectors, services
from games.engine import ROLLS, Format, MatchRules, MatchState, Phase, legal_plays
from games.lib.errors import ServiceError
from games.models import Match
from tests.helpers import Persona, current_match

RULES = [
    MatchRules(),
    MatchRules(format=Format.MATCH, length=3),
    MatchRules(format=Format.MATCH, length=5),
    MatchRules(format=Format.SESSION, beavers=True),
    MatchRules(format=Format.SESSION, auto_doubles=True, max_auto_doubles=2, jacoby=True),
]


def random_action(rng, state, side, kind=None):
    allowed = sorted(state.allowed_actions(side) - {"forfeit"})
    if kind is None and rng.random() < 0.003:
        return "forfeit", {}
    if state.phase is Phase.GAME_OVER:
        return ("stop" if rng.random() < 0.3 else "next_game"), {}
    kind = kind or rng.choice(allowed)
    if kind == "resign_offer" and rng.random() < 0.8:
        kind = next(k for k in allowed if k != "resign_offer")  # resign now and then only
    if kind == "play":
        plays = legal_plays(state.position_for(side), state.dice)
        return "play", {"play": [list(step) for step in rng.choice(plays)]}
    if kind == "resign_offer":
        return kind, {"value": rng.choice((1, 2, 3))}
    if kind == "cond_answer":
        answers = ["take", "drop", None] + (["beaver"] if state.rules.beavers else [])
        return kind, {"answer": rng.choice(answers)}
    if kind == "cond_plays":
        mine = state.position_for(side)
        rolls = rng.sample(ROLLS, rng.randint(0, 5))
        plays = [(roll, legal_plays(mine, roll)) for roll in rolls]
        return kind, {
            "plays": [
                {"dice": list(roll), "play": [list(step) for step in rng.choice(options)]}
                for roll, options in plays
                if options
            ]
        }
    return kind, {}


@pytest.mark.parametrize("seed", range(10))
def test_random_matches_keep_their_story_straight(db, clock, dice, seed):
    rng = random.Random(seed)
    rules = RULES[seed % len(RULES)]
    alice = Persona("alice", seat=services.room_create(rules=rules, nickname="alice"))
    bob = Persona("bob", seat=services.room_join(room=alice.seat.room, nickname="bob"))
    room = alice.seat.room
    seats = {1: alice.seat, 2: bob.seat}
    versions = []
    for _ in range(3000):
        match = current_match(room)
        versions.append(match.version)
        if match.status == Match.Status.FINISHED:
            break
        state = MatchState.from_json(match.state)
        if state.phase is Phase.GAME_OVER:
            side = rng.choice((0, 1))
        else:
            side = state.turn
        # Now and then the waiting player writes ahead what the table plays for them.
        notes = sorted(state.allowed_actions(1 - side) & {"cond_answer", "cond_plays"})
        kind = None
        if notes and rng.random() < 0.3:
            side, kind = 1 - side, rng.choice(notes)
        seat = seats[match.seat_number_of(side)]
        kind, arguments = random_action(rng, state, side, kind)
        try:
            service = services.ACTION_SERVICES[kind]
            service(seat=seat, version=match.version, **arguments)
        except ServiceError as error:  # the only refusal expected: a 64 cube
            assert error.code == "cube_max", error
    match = current_match(room)
    assert match.status == Match.Status.FINISHED
    assert versions == sorted(versions)
    for game in match.games.all():
        numbers = list(game.turns.values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1)) == list(range(1, game.turn_count + 1))
        assert game.revealed and selectors.verify_game_dice(game)
