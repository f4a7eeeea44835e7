"""Dice statistics beside fair dice: exact counts on rolls written out by hand."""

from fractions import Fraction

import pytest

from games.analysis.dice import TOTALS, dice_stats, seen, total_chance
from games.engine import Position


def test_fair_dice_give_each_total_its_ways_in_36_and_a_double_in_6():
    assert [total_chance(t) * 36 for t in TOTALS] == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    stats = dice_stats(seen(d) for d in [(1, 1)] * 36)
    assert stats.doubles_expected == 6
    assert stats.totals_expected()[7] == 6 and stats.totals_expected()[12] == 1
    assert stats.pips_expected == pytest.approx(36 * 49 / 6)


def test_counts_of_a_handful_of_rolls():
    rolls = [(6, 6), (3, 1), (4, 2), (2, 2), (5, 2), (6, 1), (1, 1), (4, 3)]
    stats = dice_stats(seen(d) for d in rolls)
    assert stats.rolls == 8
    assert stats.doubles == 3
    assert {t: n for t, n in stats.totals.items() if n} == {12: 1, 4: 2, 6: 1, 7: 3, 2: 1}
    assert sum(stats.totals.values()) == 8
    assert stats.pips == 24 + 4 + 6 + 8 + 7 + 7 + 4 + 7
    assert stats.bar_rolls == 0 and stats.entered == 0


def test_from_the_bar_a_roll_enters_when_either_die_finds_an_open_point():
    # On the bar against a home board with its 1- to 5-points closed: only a 6 enters.
    board = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    six = seen((6, 3), board)
    assert (six.closed, six.entered) == (5, True)
    blocked = seen((5, 4), board)
    assert (blocked.closed, blocked.entered) == (5, False)
    free = seen((5, 4), Position.initial())  # not on the bar: no entering to count
    assert free.closed is None
    stats = dice_stats([six, blocked, free])
    assert (stats.bar_rolls, stats.entered) == (2, 1)
    # Fair dice enter against five closed points 11 times in 36 (a 6 on either die).
    assert stats.entered_expected == pytest.approx(2 * float(1 - Fraction(25, 36)))
