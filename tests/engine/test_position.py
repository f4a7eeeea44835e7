"""Position: GNU Backgammon Position IDs, validation, flip, pips, apply and the result."""

import pytest

from games.engine import BAR, OFF, IllegalMove, InvalidInput, Outcome, Position, WinKind

from .helpers import board

INITIAL_ID = "4HPwATDgc/ABMA"


def test_the_initial_position_has_gnubgs_well_known_id():
    assert Position.initial().position_id() == INITIAL_ID
    assert Position.from_position_id(INITIAL_ID) == Position.initial()


@pytest.mark.parametrize(
    ("pid", "mine", "theirs"),
    [
        # Both sides hit off the 24-point (from bgweb's terminal board tests).
        ("4HPwAVDgc/ABUA", {6: 5, 8: 3, 13: 5, 24: 1, 25: 1}, {6: 5, 8: 3, 13: 5, 24: 1, 25: 1}),
        # A bear-off: the side on roll (X) has 6 off, the other 7.
        ("6RoAALYtAAAAAA", {1: 2, 2: 2, 3: 2, 4: 2, 5: 1}, {1: 1, 3: 1, 4: 3, 5: 1, 6: 2}),
    ],
)  # fmt: skip
def test_known_position_ids(pid, mine, theirs):
    # Both maps use their owner's numbering. gnubg's key lists the player
    # NOT on roll first (PositionKey walks anBoard[0], then anBoard[1]).
    position = Position.from_points(mine, theirs)
    assert position.position_id() == pid
    assert Position.from_position_id(pid) == position


def test_the_id_tells_the_player_on_roll_from_the_other():
    position = board({24: 1, 13: 6, 8: 3, 6: 5})
    assert position.flip().position_id() != position.position_id()
    assert Position.from_position_id(position.flip().position_id()) == position.flip()


@pytest.mark.parametrize(
    ("pid", "message"),
    [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/AB!A", "A-Z a-z 0-9"),
        ("//////////////", "cut short"),
        ("4HPwATDgc/ABMQ", "cut short"),
        ("IAAAgAAAAAAAQA", "stray bits"),  # one checker a side, then a lone 1 bit
    ],
)
def test_a_bad_position_id_is_a_clear_value_error(pid, message):
    with pytest.raises(ValueError, match=message):
        Position.from_position_id(pid)


def test_an_id_with_a_point_held_by_both_sides_is_rejected():
    me = (0,) * 6 + (1,) + (0,) * 19  # my 6-point
    them = (0,) * 19 + (1,) + (0,) * 6  # their 19-point: the same point
    bad = Position._unchecked(me, them).position_id()
    with pytest.raises(ValueError, match="both sides"):
        Position.from_position_id(bad)


@pytest.mark.parametrize(
    ("me", "them", "message"),
    [
        ((0,) * 25, Position.initial().them, "26 counts"),
        ((1,) + Position.initial().me[1:], Position.initial().them, "16 checkers"),
        ((-1, 1) + Position.initial().me[2:], Position.initial().them, "whole numbers"),
        ((14,) + (1,) + (0,) * 24, (14,) + (0,) * 23 + (1, 0), "point 1 holds checkers of both"),
        ((15,) + (0,) * 25, (15,) + (0,) * 25, "both sides have borne off"),
    ],
)
def test_positions_are_validated(me, them, message):
    with pytest.raises(ValueError, match=message):
        Position(me, them)


def test_from_points_rejects_too_many_checkers_and_unknown_points():
    with pytest.raises(ValueError, match="16 checkers"):
        Position.from_points({6: 16}, {})
    with pytest.raises(ValueError, match="no point 26"):
        Position.from_points({26: 1}, {})


def test_flip_swaps_the_sides():
    position = Position.initial().apply(((24, 18), (13, 10)))
    assert position.flip().me == position.them and position.flip().them == position.me
    assert position.flip().flip() == position


def test_pips_count_the_bar_as_25():
    assert Position.initial().pips() == (167, 167)
    assert board({"bar": 1, 6: 2}, {1: 3}).pips() == (37, 72)


def test_apply_moves_from_the_movers_side_and_hits():
    position = board({13: 2}, {10: 1, 20: 2})
    after = position.apply(((13, 10),))
    assert after.me[13] == 1 and after.me[10] == 1
    assert after.them[25 - 10] == 0 and after.them[BAR] == 1


@pytest.mark.parametrize(
    ("step", "code"),
    [
        ((13, 6), "too_far"),
        ((13, 14), "wrong_direction"),
        ((26, 20), "bad_step"),
        ((8, 0), "bear_off_not_home"),
        ((25, 18), "too_far"),
        (("13", 10), "bad_step"),
        ((13,), "bad_step"),
    ],
)
def test_apply_rejects_steps_that_are_not_single_die_moves(step, code):
    # A step that is not a pair of points cannot be read; the others break a rule.
    with pytest.raises(InvalidInput if code == "bad_step" else IllegalMove) as error:
        Position.initial().apply((step,))
    assert error.value.code == code
    assert str(error.value) == error.value.reason


def test_the_game_goes_on_while_both_sides_have_checkers():
    assert Position.initial().outcome() is None
    assert not Position.initial().is_game_over()


def test_a_single_win_when_the_loser_bore_off_a_checker():
    position = board({}, {19: 10})  # they have 5 off
    assert position.outcome() == Outcome(winner_is_me=True, kind=WinKind.SINGLE)
    assert position.flip().outcome() == Outcome(winner_is_me=False, kind=WinKind.SINGLE)


def test_a_gammon_when_the_loser_bore_off_none():
    position = board({}, {19: 15})
    assert position.outcome() == Outcome(True, WinKind.GAMMON)
    assert WinKind.GAMMON == 2


def test_a_backgammon_with_a_checker_on_the_bar():
    position = board({}, {19: 14, "bar": 1})
    assert position.outcome() == Outcome(True, WinKind.BACKGAMMON)


def test_a_backgammon_with_a_checker_in_the_winners_home_board():
    # My home board is points 1..6; a checker of theirs still there.
    position = board({}, {19: 14, 2: 1})
    assert position.outcome() == Outcome(True, WinKind.BACKGAMMON)
    assert position.flip().outcome() == Outcome(False, WinKind.BACKGAMMON)


def test_the_repr_round_trips():
    position = Position.initial().apply(((24, 18), (13, 10)))
    assert repr(position) == "Position.from_position_id('4HPwATDgc/ABMA')".replace(
        INITIAL_ID, position.position_id()
    )
    assert eval(repr(position), {"Position": Position}) == position


def test_positions_are_immutable_values():
    position = Position.initial()
    with pytest.raises(AttributeError):
        position.me = position.them
    assert {position, Position.initial()} == {position}
    assert position.me[OFF] == 0


CLOSED_HOME = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}


def test_a_mutual_closeout_needs_both_sides_on_the_bar_against_closed_boards():
    both = {**CLOSED_HOME, 25: 1}
    assert Position.from_points(both, both).is_mutual_closeout()
    # One open point in either home board lets a checker in some day.
    gap = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 7: 1, 25: 1}
    assert not Position.from_points(both, gap).is_mutual_closeout()
    assert not Position.from_points(gap, both).is_mutual_closeout()
    # Only one side on the bar: the other still plays.
    assert not Position.from_points(both, CLOSED_HOME).is_mutual_closeout()
