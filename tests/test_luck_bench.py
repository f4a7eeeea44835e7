"""The luck benchmark's reading of GNU Backgammon's statistics, on output gnubg 1.07 printed.

The two files are what ``show statistics match`` printed for the first game of
bench/analysis.py's seed-1000 match (carcelero against chofer), analysed by
gnubg at 0-ply: one as a match to 5, one as money play.
"""

from pathlib import Path

import pytest

from bench.luck import GnubgLuck, parse_statistics

DATA = Path(__file__).parent / "data"


def test_it_reads_both_players_luck_in_a_match_as_emg_and_mwc():
    first, second = parse_statistics((DATA / "gnubg-statistics-match.txt").read_text())
    assert first == GnubgLuck(
        emg=-0.183, units=pytest.approx(-0.05606), marks=(0, 0, 2, 0),
        actual=pytest.approx(-0.1479), adjusted=pytest.approx(-0.046),
    )  # fmt: skip
    assert second == GnubgLuck(
        emg=0.759, units=pytest.approx(0.04589), marks=(0, 1, 0, 0),
        actual=pytest.approx(0.1479), adjusted=pytest.approx(0.046),
    )  # fmt: skip


def test_it_reads_money_play_in_points():
    first, second = parse_statistics((DATA / "gnubg-statistics-money.txt").read_text())
    assert (first.emg, first.units, first.marks) == (0.482, 0.881, (1, 1, 3, 0))
    assert (second.emg, second.units, second.marks) == (0.324, -0.384, (0, 1, 0, 1))
    assert (first.actual, first.adjusted, second.actual) == (2.0, 0.734, -2.0)


def test_output_without_statistics_is_an_error_not_zero_luck():
    text = (DATA / "gnubg-statistics-match.txt").read_text()
    with pytest.raises(ValueError, match="no luck total"):
        parse_statistics(text.replace("Luck total", "Luck sum"))
    with pytest.raises(ValueError, match="marks"):
        parse_statistics(text.replace("Rolls marked lucky", "Rolls lucky"))
