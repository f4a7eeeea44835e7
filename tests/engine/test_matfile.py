"""The .mat export, its parser, and the round trip back to the same moves."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest

from games.engine import Action, Format, MatchRules, MatchState, Phase, advance
from games.engine.matchid import gnubg_id
from games.engine.matfile import (
    MatMove,
    actions_from_mat,
    export_mat,
    mat_moves,
    parse_mat,
)

from .helpers import RandomDice, choose

THREE_POINTS = MatchRules(Format.MATCH, 3)

SCRIPTED = [
    # Game 1: side 0 opens 3-1, hits, side 1 dances on the bar, then drops a double.
    Action("roll", 0, (3, 1)),
    Action("play", 0, play=((8, 5), (6, 5))),
    Action("roll", 1, (6, 4)),
    Action("play", 1, play=((24, 18), (13, 9))),
    Action("roll", 0, (6, 1)),
    Action("play", 0, play=((13, 7), (8, 7))),
    Action("roll", 1, (5, 5), play=()),
    Action("double", 0),
    Action("drop", 1),
    # Game 2: side 1 opens; side 0 gives up a gammon before rolling.
    Action("next_game", 0),
    Action("roll", 0, (2, 6)),
    Action("play", 1, play=((24, 18), (13, 11))),
    Action("resign_offer", 0, value=2),
    Action("resign_accept", 1),
    # Game 3, the Crawford game, still being played; the opening tie is not written.
    Action("next_game", 1),
    Action("roll", 0, (4, 4)),
    Action("roll", 0, (5, 3)),
    Action("play", 0, play=((8, 3), (6, 3))),
    Action("roll", 1, (6, 6)),
    Action("play", 1, play=((24, 18), (24, 18), (13, 7), (13, 7))),
    Action("roll", 0, (4, 3)),
    Action("play", 0, play=((13, 9), (9, 6))),
]

SCRIPTED_MAT = """\
; [Site "Mesa"]
; [EventDate "2026.11.29"]
; [Variation "Backgammon"]
; [Crawford "On"]
; [CubeLimit "64"]

 3 point match

 Game 1
 Ana_Maria : 0                  Bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 61: 13/7* 8/7               55:
  3)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 Ana_Maria : 1                  Bob : 0
  1)                             62: 24/18 13/11
                                  Wins 2 points

 Game 3
 Ana_Maria : 1                  Bob : 2
  1) 53: 8/3 6/3                 66: 24/18 24/18 13/7 13/7
  2) 43: 13/9 9/6

"""


def play_random_match(rules: MatchRules, seed: int) -> tuple[MatchState, list[Action]]:
    """A whole match through random legal actions, forfeits left out (a .mat has none)."""
    rng = random.Random(seed)
    dice = RandomDice(rng)
    state = MatchState.new(rules)
    actions: list[Action] = []
    while state.phase is not Phase.MATCH_OVER:
        if state.needs_auto_roll():
            state, done = advance(state, dice)
            actions += done
            continue
        action = choose(state, rng)
        if action.kind != "forfeit":
            state = state.apply(action)
            actions.append(state.last_action)
    return state, actions


def test_the_export_writes_gnu_backgammons_columns_exactly():
    text = export_mat(THREE_POINTS, SCRIPTED, ("Ana Maria", "Bob"), played_on=date(2026, 11, 29))
    assert text == SCRIPTED_MAT


def test_the_scripted_match_parses_back_into_the_same_moves():
    record = parse_mat(SCRIPTED_MAT)
    assert (record.length, record.names) == (3, ("Ana_Maria", "Bob"))
    assert [game.score for game in record.games] == [(0, 0), (1, 0), (1, 2)]
    assert list(record.games) == mat_moves(THREE_POINTS, SCRIPTED)
    first = record.games[0].moves
    assert first[2] == MatMove(0, "roll", (6, 1), ((13, 7), (8, 7)))
    assert first[3] == MatMove(1, "roll", (5, 5), ())
    assert first[4:] == (
        MatMove(0, "double", value=2),
        MatMove(1, "drop"),
        MatMove(0, "win", value=1),
    )
    assert record.games[1].moves[-1] == MatMove(1, "win", value=2)


def test_the_parsed_record_replays_into_the_same_match():
    actions = actions_from_mat(parse_mat(SCRIPTED_MAT), THREE_POINTS)
    replayed = MatchState.replay(THREE_POINTS, actions)
    original = MatchState.replay(THREE_POINTS, SCRIPTED)
    assert (replayed.score, replayed.games) == (original.score, original.games)
    assert replayed.position_for(0) == original.position_for(0)
    assert replayed.crawford_game


@pytest.mark.parametrize(
    "rules",
    [
        MatchRules(),
        MatchRules(Format.MATCH, 5),
        MatchRules(Format.MATCH, 7),
        MatchRules(Format.SESSION, beavers=True, jacoby=True),
        MatchRules(Format.SESSION, auto_doubles=True, beavers=True),
    ],
    ids=lambda rules: f"{rules.format}-{rules.length}-{rules.auto_doubles}",
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_played_match_exports_and_parses_back_into_the_same_moves(rules, seed):
    final, actions = play_random_match(rules, seed)
    text = export_mat(rules, actions)
    record = parse_mat(text)
    assert list(record.games) == mat_moves(rules, actions)
    assert len(record.games) == len(final.games)
    if not rules.auto_doubles:
        # Without automatic doubles the games replay to the same results. (A
        # resignation comes back as the points it cost, not the kind offered:
        # in a partida simple or under Jacoby the two can differ.)
        replayed = MatchState.replay(rules, actions_from_mat(record, rules))
        assert replayed.score == final.score
        assert list(map(_result, replayed.games)) == list(map(_result, final.games))


def _result(game):
    return game.winner, game.ending, game.points, game.cube_value, game.crawford


def test_the_parser_reads_the_other_ways_of_writing_a_play():
    text = """\
# written by hand
 0 point match

 Game 1
 alice : 0     bob : 0
  1) 64: 24/18/14                 Doubles => 2
  2)  Beavers => 4
  3)                              33: 8/5(2) 6/3*(2)
  4) 62: bar/23 6/off
      Wins 4 points and the match
"""
    record = parse_mat(text)
    assert record.comments == ("written by hand",)
    assert record.games[0].moves == (
        MatMove(0, "roll", (6, 4), ((24, 18), (18, 14))),
        MatMove(1, "double", value=2),
        MatMove(0, "beaver", value=4),
        MatMove(1, "roll", (3, 3), ((8, 5), (8, 5), (6, 3), (6, 3))),
        MatMove(0, "roll", (6, 2), ((25, 23), (6, 0))),
        MatMove(0, "win", value=4),
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "; only a comment\n",
        " 5 point match\n 12: 13/11\n",
        " 5 point match\n Game 1\n  1) 52: 13/8 13/11\n",
        " 5 point match\n Game 1\n a : 0   b : 0\n  1) Castles\n",
        " 5 point match\n Game 1\n a : 0   b : 0\n  1) 52: 13/x\n",
    ],
)
def test_the_parser_refuses_what_is_not_a_mat_file(text):
    with pytest.raises(ValueError):
        parse_mat(text)


# -- against GNU Backgammon itself, where it is installed ----------------------

GNUBG = shutil.which("gnubg") or next(
    (path for path in ("/usr/games/gnubg",) if Path(path).exists()), None
)
needs_gnubg = pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")


def gnubg(commands: str) -> str:
    assert GNUBG is not None
    done = subprocess.run(
        [GNUBG, "-t", "-q", "-r"], input=commands, text=True, capture_output=True, timeout=120
    )
    return done.stdout


@needs_gnubg
@pytest.mark.parametrize(
    "rules, seed",
    [
        (MatchRules(Format.MATCH, 5), 2),
        (MatchRules(Format.MATCH, 7), 8),
        # Seeds 3 and 17 drop a beaver and play on, seed 9 takes one.
        (MatchRules(Format.SESSION, beavers=True), 3),
        (MatchRules(Format.SESSION, beavers=True), 9),
        (MatchRules(Format.SESSION, beavers=True), 17),
    ],
)
def test_gnu_backgammon_imports_the_export_with_the_same_games_and_score(rules, seed, tmp_path):
    final, actions = play_random_match(rules, seed)
    path = tmp_path / "match.mat"
    path.write_text(export_mat(rules, actions))
    out = gnubg(f"import mat {path}\nshow score\n")
    assert "WARNING" not in out and "doesn't follow" not in out
    found = re.search(r"The score \(after (\d+) games?\) is: Chapas (\d+), Neumaticos (\d+)", out)
    assert found, out
    assert tuple(map(int, found.groups())) == (len(final.games), *final.score)


@needs_gnubg
def test_gnu_backgammon_shows_our_position_and_match_ids_for_a_running_match(tmp_path):
    path = tmp_path / "running.mat"
    path.write_text(export_mat(THREE_POINTS, SCRIPTED))
    out = gnubg(f"import mat {path}\nshow board\n")
    position_id = re.findall(r"Position ID: (\S+)", out)[-1]
    match_id = re.findall(r"Match ID   : (\S+)", out)[-1]
    assert f"{position_id}:{match_id}" == gnubg_id(MatchState.replay(THREE_POINTS, SCRIPTED))
