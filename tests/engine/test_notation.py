"""Play notation: format_play writes gnubg's style, parse_play reads it back."""

import doctest

import pytest

import games.engine.dice
import games.engine.notation
import games.engine.position
from games.engine import (
    IllegalMove,
    InvalidInput,
    Position,
    format_play,
    legal_plays,
    parse_play,
)

from .helpers import board


@pytest.mark.parametrize(
    "module", [games.engine.notation, games.engine.position, games.engine.dice]
)
def test_the_docstring_examples_hold(module):
    result = doctest.testmod(module)
    assert result.attempted > 0, f"{module.__name__} has no examples to check"
    assert result.failed == 0


@pytest.mark.parametrize(
    ("position", "play", "text"),
    [
        (Position.initial(), (), ""),
        (Position.initial(), ((24, 18), (13, 10)), "24/18 13/10"),
        (Position.initial(), ((13, 10), (24, 18)), "24/18 13/10"),
        (Position.initial(), ((6, 2), (6, 2), (6, 2), (6, 2)), "6/2(4)"),
        (Position.initial(), ((13, 9), (13, 9), (24, 20), (24, 20)), "24/20(2) 13/9(2)"),
        (board({13: 1}, {10: 1}), ((13, 10), (10, 5)), "13/10*/5"),
        (board({13: 1}, {5: 1}), ((13, 10), (10, 5)), "13/5*"),
        (board({"bar": 1, 6: 2}, {22: 1}), ((25, 22), (6, 1)), "bar/22* 6/1"),
        (board({6: 1, 5: 1}), ((6, 0), (5, 0)), "6/off 5/off"),
        (board({19: 1}), ((19, 13), (13, 7), (7, 1)), "19/1"),
    ],
)
def test_format_play(position, play, text):
    assert format_play(position, play) == text


def test_parse_play_reads_what_format_play_writes_for_every_opening_roll():
    start = Position.initial()
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            for play in legal_plays(start, (d1, d2)):
                text = format_play(start, play)
                assert start.apply(parse_play(start, (d1, d2), text)) == start.apply(play)


def test_parse_play_accepts_split_routes_and_tells_hits_apart():
    start = Position.initial()
    assert parse_play(start, (6, 5), "24/18 18/13") == parse_play(start, (6, 5), "24/13")
    position = board({13: 1}, {10: 1})
    assert position.apply(parse_play(position, (5, 3), "13/10*/5")).them[25] == 1
    assert position.apply(parse_play(position, (5, 3), "13/5")).them[25] == 0


@pytest.mark.parametrize(
    ("text", "code", "kind"),
    [
        ("13-10", "bad_notation", InvalidInput),
        ("24/20", "illegal_play", IllegalMove),
        ("", "incomplete_play", IllegalMove),
    ],
)
def test_parse_play_rejects(text, code, kind):
    with pytest.raises(kind) as error:
        parse_play(Position.initial(), (5, 3), text)
    assert error.value.code == code
