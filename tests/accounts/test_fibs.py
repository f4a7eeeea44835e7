"""The FIBS rating formula, with numbers worked by hand (no Django, no database).

The cases pick ratings that make 10^(D·√n/2000) a whole power of ten, or
equal ratings (P = 1/2), so each expected change is a fraction one can check
on paper.
"""

import math

import pytest

from accounts.fibs import (
    START_RATING,
    Standing,
    experience_weight,
    match_value,
    rate,
    upset_probability,
)

VETERAN = 1000  # experience well past 400: K = 1


def test_everybody_starts_at_1500_with_no_experience():
    assert Standing() == Standing(rating=1500.0, experience=0)
    assert START_RATING == 1500.0


def test_two_veterans_at_the_same_rating_move_two_points_in_a_1_point_match():
    # D = 0: P_upset = 1/(10^0 + 1) = 1/2; change = 4·1·√1·1/2 = 2.
    after = rate(Standing(1500, VETERAN), Standing(1500, VETERAN), 1)
    assert after.winner_delta == 2.0
    assert after.loser_delta == -2.0
    assert after.winner == Standing(1502.0, VETERAN + 1)
    assert after.loser == Standing(1498.0, VETERAN + 1)


def test_the_match_length_multiplies_the_stake_by_its_square_root():
    # A 9-point match at equal ratings: 4·√9·1/2 = 6.
    after = rate(Standing(1700, VETERAN), Standing(1700, VETERAN), 9)
    assert after.winner_delta == 6.0
    assert after.loser_delta == -6.0
    assert match_value(9) == 12.0
    assert match_value(25) == 20.0


def test_the_favourite_who_wins_gains_little():
    # n = 4, D = 1000: D·√n/2000 = 1, P_upset = 1/(10 + 1) = 1/11.
    # The favourite wins, so P = 1/11 and the change is 4·√4·1/11 = 8/11.
    after = rate(Standing(2000, VETERAN), Standing(1000, VETERAN), 4)
    assert after.winner_delta == pytest.approx(8 / 11, abs=1e-12)
    assert after.loser_delta == pytest.approx(-8 / 11, abs=1e-12)
    assert after.winner.rating == pytest.approx(2000 + 8 / 11, abs=1e-9)


def test_the_underdog_who_wins_gains_the_favourites_chance():
    # Same match, the underdog wins: P = 1 - 1/11 = 10/11, change 8·10/11 = 80/11.
    after = rate(Standing(1000, VETERAN), Standing(2000, VETERAN), 4)
    assert after.winner_delta == pytest.approx(80 / 11, abs=1e-12)
    assert after.loser.rating == pytest.approx(2000 - 80 / 11, abs=1e-9)


def test_the_upset_probability_falls_with_the_difference_and_the_length():
    # 1/(10^(200·1/2000) + 1) = 1/(10^0.1 + 1) = 0.442688...
    assert upset_probability(200, 1) == pytest.approx(1 / (10**0.1 + 1), abs=1e-15)
    assert round(upset_probability(200, 1), 6) == 0.442688
    # D = 2000/3 in a 9-point match: exponent 1, 1/11 again.
    assert upset_probability(2000 / 3, 9) == pytest.approx(1 / 11, abs=1e-12)
    assert upset_probability(-200, 1) == upset_probability(200, 1)
    assert upset_probability(300, 7) < upset_probability(300, 3) < upset_probability(100, 3)


def test_a_new_player_moves_five_times_as_fast_and_it_fades_by_400():
    assert experience_weight(0) == 5.0
    assert experience_weight(100) == 4.0
    assert experience_weight(250) == 2.5
    assert experience_weight(399) == pytest.approx(1.01)
    assert experience_weight(400) == 1.0
    assert experience_weight(5000) == 1.0


def test_each_player_is_weighted_by_their_own_experience_only():
    # Equal ratings, 1 point: stake 2. The newcomer (150: K = 3.5) wins 7,
    # the veteran (K = 1) loses 2: the sum is not zero while one is new.
    after = rate(Standing(1500, 150), Standing(1500, VETERAN), 1)
    assert after.winner_delta == 7.0
    assert after.loser_delta == -2.0
    after = rate(Standing(1500, VETERAN), Standing(1500, 0), 1)
    assert after.winner_delta == 2.0
    assert after.loser_delta == -10.0


def test_two_newcomers_in_a_5_point_match():
    # 4·√5·1/2·5 = 10·√5 = 22.36068 each way.
    after = rate(Standing(), Standing(), 5)
    assert after.winner_delta == pytest.approx(10 * math.sqrt(5), abs=1e-12)
    assert round(after.winner.rating, 2) == 1522.36
    assert round(after.loser.rating, 2) == 1477.64
    assert after.winner.experience == after.loser.experience == 5


def test_the_weight_uses_the_experience_before_the_match():
    # 395 before a 7-point match: K = 5 - 3.95 = 1.05, not 1.
    after = rate(Standing(1500, 395), Standing(1500, VETERAN), 7)
    assert after.winner_delta == pytest.approx(1.05 * 4 * math.sqrt(7) / 2, abs=1e-12)
    assert after.winner.experience == 402


def test_a_replayed_sequence_gives_the_same_numbers_bit_for_bit():
    def season():
        a, b = Standing(), Standing()
        for length, a_wins in [(1, True), (5, False), (3, True), (7, True), (1, False)]:
            if a_wins:
                result = rate(a, b, length)
                a, b = result.winner, result.loser
            else:
                result = rate(b, a, length)
                b, a = result.winner, result.loser
        return a, b

    assert season() == season()


@pytest.mark.parametrize("length", [0, -3, 1.5, True, "5"])
def test_a_match_without_a_length_of_one_or_more_is_refused(length):
    with pytest.raises(ValueError):
        rate(Standing(), Standing(), length)


def test_negative_experience_is_refused():
    with pytest.raises(ValueError):
        experience_weight(-1)


def test_the_formula_and_the_allowance_import_no_django():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys, accounts.fibs, accounts.vacation;"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The SVG drawing is pure too (its package is not: it is read as text).
    assert "django" not in (root / "games" / "web" / "sparkline.py").read_text()
