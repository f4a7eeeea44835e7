"""The weaker bots' cube: bgsage's verdict with a bounded error, never a whim redouble."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.bots import BotContext, get_bot
from games.bots.cubebench import grade_double, grade_take, play_match
from games.engine import Position

from .positions import self_play_sample

WEAK = ("domador", "chofer", "carcelero")
CENTRED = BotContext(cube_in_play=True, match_length=5)
# The bot took a 2-cube earlier in this game and now holds it.
HELD = BotContext(cube_value=2, cube_owner="me", cube_in_play=True, match_length=5)
# bgsage (3-ply, the weak bots' cube) says: holding the 2-cube, redoubling here
# gives away 0.021.
CLOSE_REDOUBLE = Position.from_position_id("DYcywRFnuQaARA")


def test_the_error_bounds_grow_from_carcelero_down_to_domador_and_empresario_makes_none():
    bounds = [get_bot(name).character.cube_error for name in (*WEAK, "empresario")]
    assert bounds == sorted(bounds, reverse=True)
    assert bounds[-1] == 0 and bounds[0] <= 0.15


def test_no_bot_redoubles_a_cube_it_took_unless_bgsage_says_so():
    # A close call: inside every weak bot's error bound, yet still an error.
    assert 0 < grade_double(CLOSE_REDOUBLE, HELD, True, "3ply") < 0.04
    for name in WEAK:
        for seed in range(100):
            assert not get_bot(name, seed=seed).should_double(CLOSE_REDOUBLE, HELD), (name, seed)


def test_the_same_close_double_is_a_matter_of_taste_with_the_cube_in_the_middle():
    # Not a rule of never doubling: with a centred cube, a close call stays a close call.
    position = Position.from_position_id("ewcgIA+RX0egAA")  # doubling gives away 0.027
    doubles = sum(
        get_bot("chofer", seed=seed).should_double(position, CENTRED) for seed in range(100)
    )
    assert 0 < doubles < 100


@pytest.mark.parametrize("name", WEAK)
def test_a_cube_decision_never_gives_away_more_than_the_level_allows(name):
    bound = get_bot(name).character.cube_error
    positions = [position for position, _ in self_play_sample(24, 11)]
    worst = 0.0
    for index, position in enumerate(positions):
        for context in (CENTRED, HELD):
            bot = get_bot(name, seed=index)
            for _ in range(10):
                doubled = bot.should_double(position, context)
                worst = max(worst, grade_double(position, context, doubled, "3ply"))
            taker = context if context is CENTRED else HELD.flip()
            for _ in range(10):
                took = bot.should_take(position.flip(), taker)
                worst = max(worst, grade_take(position.flip(), taker, took, "3ply"))
    assert worst <= bound + 1e-9


def test_a_hopeless_double_is_dropped_and_a_clear_take_taken_by_every_weak_bot():
    hopeless = Position.from_points({1: 2, 2: 2, 3: 2}, {6: 5, 5: 5, 4: 5})
    race = Position.from_points({6: 5, 5: 3, 4: 3, 8: 2, 9: 2}, {6: 4, 5: 3, 4: 3, 9: 3, 10: 2})
    money = BotContext(cube_in_play=True)
    for name in WEAK:
        for seed in range(30):
            bot = get_bot(name, seed=seed)
            assert not bot.should_take(hopeless.flip(), money)
            assert bot.should_take(race.flip(), money)


def test_a_match_between_chofers_is_graded_decision_by_decision():
    players = [get_bot("chofer", seed=1), get_bot("chofer", seed=2)]
    record = play_match(players, length=3, seed=5)
    assert max(record.score) >= 3 and record.games >= 1
    assert record.decisions, "a match to 3 always has a cube decision"
    assert all(0 <= d.error <= 0.08 + 1e-9 for d in record.decisions)
    assert record.highest_cube <= 8


def test_botcube_reports_the_share_of_one_game_matches_the_cube_and_the_error():
    out = io.StringIO()
    call_command("botcube", "--matches", "2", "--length", "1", "--bots", "carcelero", stdout=out)
    line = out.getvalue()
    # A 1-point match has no live cube: every match is one game, the cube stays at 1.
    assert line.startswith("carcelero: 2 matches, 100.0% decided in one game")
    assert "highest cube 1" in line and "0 cube decisions" in line


def test_botcube_refuses_an_unknown_bot():
    with pytest.raises(CommandError, match="unknown bots"):
        call_command("botcube", "--bots", "nobody")


def test_a_split_run_reads_back_as_one(tmp_path):
    parts = []
    for first in (0, 1):
        path = tmp_path / f"part{first}.json"
        call_command(
            "botcube", "--matches", "1", "--length", "1", "--bots", "chofer",
            "--first", str(first), "--save", str(path), stdout=io.StringIO(),
        )  # fmt: skip
        parts.append(str(path))
    out = io.StringIO()
    call_command("botcube", "--read", *parts, stdout=out)
    assert out.getvalue().startswith("chofer: 2 matches, 100.0% decided in one game")
