"""legal_steps (the click-to-move board) and check_play (a submitted play)."""

import pytest

from games.engine import IllegalMove, InvalidInput, Position, StepOption, check_play, legal_steps

from .helpers import board


def options(position, dice, taken=()):
    return {(o.src, o.dst, o.label, o.hits) for o in legal_steps(position, dice, taken)}


def test_the_opening_53_offers_single_and_combined_steps():
    assert options(Position.initial(), (5, 3)) == {
        (24, 21, "3", False),
        (24, 16, "3+5", False),  # 24/19 is closed, so the 5 cannot go first
        (13, 10, "3", False),
        (13, 8, "5", False),
        (13, 5, "5+3", False),
        (8, 5, "3", False),
        (8, 3, "5", False),
        (6, 3, "3", False),
    }


def test_after_the_first_step_only_the_other_die_is_offered():
    assert options(Position.initial(), (5, 3), [(13, 8)]) == {
        (24, 21, "3", False),
        (13, 10, "3", False),
        (8, 5, "3", False),
        (6, 3, "3", False),
    }


def test_the_turn_is_complete_when_every_die_is_used():
    assert legal_steps(Position.initial(), (5, 3), [(13, 8), (8, 5)]) == []


def test_doubles_offer_combinations_up_to_the_dice_left():
    labels = {o.label for o in legal_steps(Position.initial(), (3, 3)) if o.src == 24}
    assert labels == {"3", "3+3", "3+3+3"}  # 24/12 would land on their midpoint
    option = next(o for o in legal_steps(Position.initial(), (3, 3)) if o.dst == 15)
    assert option == StepOption(24, 15, (3, 3, 3), ((24, 21), (21, 18), (18, 15)), False)


def test_a_step_that_strands_a_die_is_not_offered():
    # 24/18 is a legal 6 by itself, but then the 2 cannot be played.
    position = board({24: 1, 13: 1}, {22: 2, 16: 2, 11: 2})
    assert options(position, (6, 2)) == {(13, 7, "6", False), (13, 5, "6+2", False)}


def test_only_the_higher_die_is_offered_when_one_fits():
    assert options(board({13: 1}, {3: 2}), (6, 4)) == {(13, 7, "6", False)}


def test_combined_steps_never_stop_on_a_closed_point():
    assert options(board({13: 1}, {8: 2}), (5, 3)) == {
        (13, 10, "3", False),
        (13, 5, "3+5", False),
    }


def test_hitting_on_the_way_and_passing_by_are_two_options():
    assert options(board({13: 1}, {10: 1}), (5, 3)) == {
        (13, 10, "3", True),
        (13, 8, "5", False),
        (13, 5, "3+5", True),
        (13, 5, "5+3", False),
    }


def test_a_checker_on_the_bar_is_the_only_one_offered():
    position = board({"bar": 1, 6: 2}, {20: 2})
    assert {o.src for o in legal_steps(position, (5, 3))} == {25}


def test_taken_steps_must_be_legal():
    with pytest.raises(IllegalMove) as error:
        legal_steps(Position.initial(), (5, 3), [(13, 7)])
    assert error.value.code == "wrong_dice"
    with pytest.raises(IllegalMove) as error:
        legal_steps(board({24: 1, 13: 1}, {22: 2, 16: 2, 11: 2}), (6, 2), [(24, 18)])
    assert error.value.code == "illegal_play"


@pytest.mark.parametrize(
    ("position", "dice", "play", "code"),
    [
        (Position.initial(), (5, 3), [(13, 8)], "incomplete_play"),
        (Position.initial(), (5, 3), [(13, 8), (13, 8)], "wrong_dice"),
        (Position.initial(), (5, 3), [(13, 8), (8, 5), (6, 3)], "wrong_dice"),
        (Position.initial(), (5, 3), [(20, 15), (8, 5)], "no_checker"),
        (Position.initial(), (6, 6), [(13, 7), (13, 7), (7, 1), (7, 1)], "point_closed"),
        (board({"bar": 1, 6: 2}), (5, 3), [(6, 1), (6, 3)], "bar_first"),
        (board({7: 1, 3: 1}), (6, 3), [(3, 0), (3, 0)], "bear_off_not_home"),
        (board({13: 1}, {3: 2}), (6, 4), [(13, 9)], "illegal_play"),
        (board({"bar": 1}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}), (1, 2), [(25, 24)],
         "point_closed"),
    ],
)  # fmt: skip
def test_check_play_names_the_broken_rule(position, dice, play, code):
    with pytest.raises(IllegalMove) as error:
        check_play(position, dice, play)
    assert error.value.code == code
    assert error.value.reason


def test_dice_that_are_not_two_faces_cannot_be_read():
    with pytest.raises(InvalidInput) as error:
        check_play(Position.initial(), (7, 3), [(13, 6), (8, 5)])
    assert error.value.code == "wrong_dice" and error.value.reason


def test_check_play_accepts_the_steps_in_the_order_sent():
    start = Position.initial()
    expected = start.apply(((13, 8), (8, 5)))
    assert check_play(start, (5, 3), [(13, 8), (8, 5)]) == expected
    # 8/5 sent before 13/8 is the same play.
    assert check_play(start, (5, 3), [(8, 5), (13, 8)]) == expected
    # Even an order the board could not take (the bar checker second) names a
    # legal play, so it is accepted.
    position = board({"bar": 1, 6: 2}, {20: 2})
    assert check_play(position, (5, 3), [(6, 1), (25, 22)]) == position.apply(((25, 22), (6, 1)))


def test_check_play_returns_the_position_after_the_play():
    after = check_play(Position.initial(), (6, 5), [(24, 18), (18, 13)])
    assert {p: n for p, n in enumerate(after.me) if n} == {24: 1, 13: 6, 8: 3, 6: 5}


@pytest.mark.parametrize("play", [None, [13, 8], [["13", 8]], [[13]], [[13, 8, 5]], [(30, 8)]])
def test_check_play_rejects_malformed_steps_as_unreadable(play):
    with pytest.raises(InvalidInput) as error:
        check_play(Position.initial(), (5, 3), play)
    assert error.value.code == "bad_step"


def test_steps_may_come_as_json_lists():
    after = check_play(Position.initial(), (5, 3), [[13, 8], [8, 5]])
    assert after == Position.initial().apply(((13, 8), (8, 5)))
    assert legal_steps(Position.initial(), (5, 3), [[13, 8]]) == legal_steps(
        Position.initial(), (5, 3), [(13, 8)]
    )
