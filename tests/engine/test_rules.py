"""One test per rule of the rule book, each with its exact position and plays.

Positions are written from the side of the player on roll ("mine"), with the
opponent's checkers placed on my point numbers; everything not listed is
borne off. The expected plays are worked out by hand from the rule.
"""

import pytest

from games.engine import BAR, IllegalMove, Position, check_play, legal_plays

from .helpers import board, plays


def test_the_starting_position_is_2_5_3_5_on_the_24_13_8_and_6_points():
    start = Position.initial()
    assert {p: n for p, n in enumerate(start.me) if n} == {24: 2, 13: 5, 8: 3, 6: 5}
    assert start.them == start.me
    assert start.pips() == (167, 167)


def test_the_opening_3_1_has_16_different_plays():
    # The 1 cannot land on 12 (their midpoint): 3 x 4 two-checker plays, 4 one-checker.
    assert plays(Position.initial(), (3, 1)) == {
        "24/23 24/21", "24/21 8/7", "24/21 6/5",
        "24/23 13/10", "13/10 8/7", "13/10 6/5",
        "24/23 8/5", "8/7 8/5", "8/5 6/5",
        "24/23 6/3", "8/7 6/3", "6/5 6/3",
        "24/20", "13/9", "8/4", "6/2",
    }  # fmt: skip


def test_a_closed_point_blocks_landing():
    # 13/8 lands on two opposing checkers: only 13/10/5 remains for the 5-3.
    position = board({13: 1}, {8: 2})
    assert plays(position, (5, 3)) == {"13/5"}
    with pytest.raises(IllegalMove) as error:
        position.apply(((13, 8),))
    assert error.value.code == "point_closed"


def test_the_intermediate_point_must_be_open_too():
    # Both stops of the one-checker 5-3 (8 and 10) are closed, so nothing moves
    # even though point 5 itself is open.
    position = board({13: 1}, {8: 2, 10: 2})
    assert legal_plays(position, (5, 3)) == []


def test_a_blot_is_hit_and_goes_to_the_bar():
    position = board({13: 1}, {10: 1})
    # Stopping on 10 hits on the way; going through 8 passes it by: two results.
    assert plays(position, (5, 3)) == {"13/10*/5", "13/5"}
    after = position.apply(((13, 10),))
    assert after.them[BAR] == 1 and after.them[25 - 10] == 0


def test_a_checker_on_the_bar_enters_before_anything_else():
    # 5 would enter on my 20, which is closed; the 3 enters on 22 and only then
    # may the 5 move, the entered checker or another one.
    position = board({"bar": 1, 6: 2}, {20: 2})
    assert plays(position, (5, 3)) == {"bar/17", "bar/22 6/1"}
    with pytest.raises(IllegalMove) as error:
        position.apply(((6, 1),))
    assert error.value.code == "bar_first"


def test_every_checker_on_the_bar_enters_before_another_moves():
    # Two on the bar, only the 3 enters: the 5 is lost, 6/1 is not allowed.
    position = board({"bar": 2, 6: 2}, {20: 2})
    assert plays(position, (5, 3)) == {"bar/22"}


def test_with_no_open_entry_the_turn_passes():
    closed = {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}
    position = board({"bar": 1, 6: 2}, closed)
    for dice in [(6, 5), (1, 1), (4, 2)]:
        assert legal_plays(position, dice) == []
        assert check_play(position, dice, ()) == position


def test_doubles_are_played_four_times():
    # Four 3s shared between two checkers: 0 to 4 of them for the back one.
    position = board({24: 1, 13: 1}, {})
    assert plays(position, (3, 3)) == {
        "13/1",
        "24/21 13/4",
        "24/18 13/7",
        "24/15 13/10",
        "24/12",
    }


def test_both_dice_are_played_when_they_can_be():
    # 24/18 is a legal 6, but after it no 2 can be played; 13/7/5 uses both dice.
    position = board({24: 1, 13: 1}, {22: 2, 16: 2, 11: 2})
    assert plays(position, (6, 2)) == {"13/5"}


def test_the_higher_die_is_played_when_only_one_fits():
    # Either die alone fits (13/7 or 13/9) but not both (3 is closed): the 6.
    position = board({13: 1}, {3: 2})
    assert plays(position, (6, 4)) == {"13/7"}
    with pytest.raises(IllegalMove) as error:
        check_play(position, (6, 4), [(13, 9)])
    assert error.value.code == "illegal_play"


def test_the_lower_die_is_played_when_the_higher_does_not_fit():
    position = board({13: 1}, {7: 2, 3: 2})
    assert plays(position, (6, 4)) == {"13/9"}


def test_with_doubles_as_many_as_possible_are_played():
    # The fourth 6 would land on 1, which is closed.
    position = board({19: 1}, {1: 2})
    assert plays(position, (6, 6)) == {"19/7"}


def test_bearing_off_with_the_exact_number():
    position = board({6: 1, 5: 1}, {24: 2})
    # 6/off 5/off, or 6/1 with the 5 and then the 6 takes the highest checker (5).
    assert plays(position, (6, 5)) == {"6/off 5/off", "6/1 5/off"}


def test_with_no_checker_on_the_dies_point_a_higher_one_moves():
    # No checker on 5 or 4 but two on 6: the dice move them, 2 cannot bear off.
    position = board({6: 2, 2: 1}, {24: 2})
    assert plays(position, (5, 4)) == {"6/2 6/1"}
    with pytest.raises(IllegalMove) as error:
        check_play(position, (5, 4), [(2, 0), (6, 1)])
    assert error.value.code == "wrong_dice"


def test_bearing_off_from_the_highest_point():
    # Dice above every checker bear off the highest one each time.
    position = board({3: 1, 2: 1}, {24: 2})
    assert plays(position, (6, 5)) == {"3/off 2/off"}


def test_bearing_off_only_with_every_checker_home():
    position = board({7: 1, 3: 1}, {24: 2})
    # 3/off only after the 7 is home; "7/off" is 7/4 then 4/off with the 6.
    assert plays(position, (6, 3)) == {"7/1 3/off", "7/off"}
    with pytest.raises(IllegalMove) as error:
        position.apply(((3, 0),))
    assert error.value.code == "bear_off_not_home"


def test_a_checker_hit_while_bearing_off_must_come_home_again():
    # Hit while bearing off: the checker enters and must travel; no bearing off
    # with the other die while it is outside the home board.
    position = board({"bar": 1, 5: 2, 3: 2}, {})
    assert plays(position, (6, 5)) == {"bar/14"}
    # Once it is home again, bearing off resumes.
    home = board({6: 1, 5: 2, 3: 2}, {})
    assert "6/off 5/off" in plays(home, (6, 5))


def test_no_checker_there_is_named():
    with pytest.raises(IllegalMove) as error:
        Position.initial().apply(((20, 15),))
    assert error.value.code == "no_checker"
    assert "point 20" in error.value.reason


def test_with_the_last_checker_both_dice_are_still_played():
    # 3/off alone ends the game with one die; 3/1*/off plays both, so it is required.
    position = board({3: 1}, {1: 1, 20: 3})
    assert plays(position, (3, 2)) == {"3/1*/off"}
