"""GNU Backgammon's Match ID: its bit layout, and what our states say in it."""

from __future__ import annotations

import doctest
import random
from dataclasses import replace

import pytest

import games.engine.matchid
from games.engine import Action, Format, MatchRules, MatchState, Phase, Position
from games.engine.matchid import (
    MatchIdFields,
    decode_match_id,
    encode_match_id,
    gnubg_id,
    match_id,
)

MATCH5 = MatchRules(Format.MATCH, 5)


def test_the_module_examples_hold():
    result = doctest.testmod(games.engine.matchid)
    assert result.attempted > 0 and result.failed == 0


def test_it_reads_a_match_id_written_by_another_program():
    # From the documentation of the R package "backgammon" (gnuid2xgid):
    # a 3-point match at 2-1, the Crawford game, player 1 has rolled 5-3.
    fields = decode_match_id("8IhuACAACAAE")
    assert (fields.length, fields.score, fields.crawford) == (3, (2, 1), True)
    assert (fields.on_roll, fields.turn, fields.dice) == (1, 1, (5, 3))
    assert (fields.cube_value, fields.cube_owner, fields.doubled) == (1, None, False)
    assert encode_match_id(fields) == "8IhuACAACAAE"


def test_it_writes_what_gnu_backgammon_showed_for_the_same_match():
    # GNU Backgammon 1.07 imported the scripted 3-point match of test_matfile
    # (side 1 to roll in the Crawford game at 1-2) and showed these two IDs.
    from tests.engine.test_matfile import SCRIPTED, THREE_POINTS

    state = MatchState.replay(THREE_POINTS, SCRIPTED)
    assert gnubg_id(state) == "jM/gATDg28HBAA:8AlgABAAEAAE"


def test_every_field_survives_encoding():
    rng = random.Random(7)
    for _ in range(500):
        die = rng.randint(1, 6)
        fields = MatchIdFields(
            cube_value=2 ** rng.randint(0, 15),
            cube_owner=rng.choice([None, 0, 1]),
            on_roll=rng.randint(0, 1),
            crawford=rng.random() < 0.5,
            game_state=rng.randint(0, 4),
            turn=rng.randint(0, 1),
            doubled=rng.random() < 0.5,
            resign=rng.randint(0, 3),
            dice=rng.choice([(0, 0), (max(die, 3), min(die, 3))]),
            length=rng.randint(0, 0x7FFF),
            score=(rng.randint(0, 0x7FFF), rng.randint(0, 0x7FFF)),
            jacoby=rng.random() < 0.5,
        )
        mid = encode_match_id(fields)
        assert len(mid) == 12
        assert decode_match_id(mid) == fields


@pytest.mark.parametrize("bad", ["", "MAHgAAAAAAA", "MAHgAAAAAAAA=", "MAHgAAAAAA!A", 12])
def test_it_refuses_what_is_not_a_match_id(bad):
    with pytest.raises(ValueError):
        decode_match_id(bad)


def test_a_pending_double_is_seen_from_the_doubler_with_the_taker_to_decide():
    state = MatchState.new(MATCH5)
    state = replace(state, phase=Phase.ROLL, turn=1, on_roll=1, score=(3, 1), cube_value=2)
    state = replace(state, cube_owner=1).apply(Action("double", 1))
    fields = decode_match_id(match_id(state))
    assert (fields.on_roll, fields.turn, fields.doubled) == (1, 0, True)
    assert (fields.cube_value, fields.cube_owner) == (2, 1)
    assert (fields.length, fields.score, fields.game_state) == (5, (3, 1), 1)
    position_id, mid = gnubg_id(state).split(":")
    assert Position.from_position_id(position_id) == state.position_for(1)
    assert mid == match_id(state)


def test_rolled_dice_and_an_offered_resignation_show():
    state = MatchState.new(MATCH5).apply(Action("roll", 0, (2, 6)))
    assert decode_match_id(match_id(state)).dice == (6, 2)
    state = state.apply(Action("resign_offer", 1, value=2))
    fields = decode_match_id(match_id(state))
    assert (fields.resign, fields.turn, fields.on_roll) == (2, 0, 1)
    assert fields.dice == (6, 2)


def test_the_format_sets_the_length_and_the_jacoby_bit():
    single = decode_match_id(match_id(MatchState.new(MatchRules())))
    assert (single.length, single.jacoby) == (1, False)
    money = decode_match_id(match_id(MatchState.new(MatchRules(Format.SESSION))))
    assert (money.length, money.jacoby) == (0, False)
    jacoby = MatchRules(Format.SESSION, jacoby=True)
    assert decode_match_id(match_id(MatchState.new(jacoby))).jacoby


def test_a_finished_game_says_how_it_ended():
    state = replace(MatchState.new(MATCH5), phase=Phase.ROLL).apply(Action("double", 0))
    assert decode_match_id(match_id(state.apply(Action("drop", 1)))).game_state == 4
    state = replace(MatchState.new(MATCH5), phase=Phase.ROLL)
    state = state.apply(Action("resign_offer", 0, value=1)).apply(Action("resign_accept", 1))
    assert decode_match_id(match_id(state)).game_state == 3
