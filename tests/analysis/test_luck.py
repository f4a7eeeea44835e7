"""The luck of a roll: exact where the outcome is certain, zero on average, and each side's sum.

Positions whose every roll decides the game are exact whatever the network
(bgsage reads them from its bear-off database), so their luck is known
before any evaluation: the expected values below are worked out by hand.
"""

from dataclasses import replace

import pytest

from games.analysis import LUCKY, VERY_LUCKY, game_luck, luck_mark, roll_luck
from games.analysis.ladder import bot_game
from games.analysis.luck import OPENING_ROLLS, ROLLS
from games.bots import sage
from games.bots.runner import context_for
from games.engine import Action, ActionKind, Format, MatchRules, MatchState, Phase, Position

SINGLE = MatchRules()
MATCH_TO_5 = MatchRules(format=Format.MATCH, length=5)
SESSION = MatchRules(format=Format.SESSION)
# Two checkers left on my 6-point; the opponent bears off their last one next turn.
# Only 3-3, 4-4, 5-5 and 6-6 take both off: 4 rolls in 36 win.
LAST_ROLL = Position.from_points({6: 2}, {1: 1})


def rolling(rules: MatchRules, position: Position, side: int = 0) -> MatchState:
    """A state where ``side`` is about to roll in ``position`` (seen from ``side``)."""
    state = MatchState.new(rules)
    return replace(state, phase=Phase.ROLL, position=position, turn=side, on_roll=side)


def test_the_marks_follow_gnubgs_thresholds():
    assert (LUCKY, VERY_LUCKY) == (0.3, 0.6)
    marks = [luck_mark(x) for x in (0.7, 0.6, 0.45, 0.3, 0.29, 0, -0.29, -0.3, -0.59, -0.6)]
    assert marks == [
        "very_lucky", "very_lucky", "lucky", "lucky", "", "", "", "unlucky", "unlucky",
        "very_unlucky",
    ]  # fmt: skip


def test_a_double_that_wins_the_last_roll_is_very_lucky_by_exactly_its_odds():
    state = rolling(SINGLE, LAST_ROLL)
    before = 2 * (4 / 36) - 1  # the equity of winning 4 times in 36, a partida simple
    six_six = roll_luck(state, Action(ActionKind.ROLL, 0, (6, 6)))
    assert six_six is not None and six_six.side == 0 and six_six.dice == (6, 6)
    assert six_six.before == pytest.approx(before, abs=1e-3)
    assert six_six.luck == pytest.approx(1 - before, abs=1e-3) and six_six.mark == "very_lucky"
    two_one = roll_luck(state, Action(ActionKind.ROLL, 0, (1, 2)))
    assert two_one is not None and two_one.dice == (2, 1)
    assert two_one.luck == pytest.approx(-1 - before, abs=1e-3) and two_one.mark == ""


def test_in_a_sesion_libre_the_luck_in_points_is_times_the_cube():
    position = LAST_ROLL
    state = replace(rolling(SESSION, position), cube_value=4, cube_owner=1)
    six_six = roll_luck(state, Action(ActionKind.ROLL, 0, (6, 6)))
    assert six_six is not None
    # The opponent owns the cube at 4, a dead cube here: a win is one game of 4 points.
    assert six_six.luck == pytest.approx(1 - (2 * 4 / 36 - 1), abs=1e-3)
    assert six_six.value == pytest.approx(4 * six_six.luck)


@pytest.mark.parametrize("rules", [SINGLE, MATCH_TO_5, SESSION], ids=["single", "match", "session"])
def test_luck_is_zero_on_average_over_the_rolls(rules):
    # 13/7 8/7 after 6-1 for side 0; side 1 to roll: any middle-game position does.
    position = Position.initial().apply(((13, 7), (8, 7))).flip()
    state = rolling(rules, position, side=1)
    total = 0.0
    for dice in ROLLS:
        found = roll_luck(state, Action(ActionKind.ROLL, 1, dice))
        assert found is not None and found.side == 1
        total += found.luck * (1 if dice[0] == dice[1] else 2) / 36
    assert total == pytest.approx(0, abs=1e-9)


def test_a_rolls_equity_is_the_best_plays_among_the_engines_legal_plays():
    # Cross-check bgsage's own move list (used for speed) against the engine's legal
    # plays ranked one by one, in a match with the cube in play.
    state = rolling(MATCH_TO_5, Position.initial().apply(((24, 18), (13, 11))).flip(), side=1)
    context = context_for(state, 1)
    for dice in ((6, 4), (2, 2), (5, 1)):
        found = roll_luck(state, Action(ActionKind.ROLL, 1, dice))
        assert found is not None
        ranked = sage.rank_plays(state.position_for(1), dice, "1ply", context)
        assert found.after == pytest.approx(ranked[0].equity, abs=1e-6)


def test_the_opening_roll_belongs_to_who_starts_and_is_zero_on_average_over_both_starters():
    # At 2-0 in a match to 5 the two sides' chances differ: the mean is not simply 0.
    state = replace(MatchState.new(MATCH_TO_5), score=(2, 0), game_number=2)
    assert roll_luck(state, Action(ActionKind.ROLL, 0, (4, 4))) is None  # a tie: rolled again
    total = 0.0  # side 0's luck over the 30 ways the opening can go
    for high, low in OPENING_ROLLS:
        zero = roll_luck(state, Action(ActionKind.ROLL, 0, (high, low)))
        one = roll_luck(state, Action(ActionKind.ROLL, 0, (low, high)))  # side 1's die higher
        assert zero is not None and one is not None and (zero.side, one.side) == (0, 1)
        total += zero.luck - one.luck
    assert total == pytest.approx(0, abs=1e-9)


def test_in_an_even_game_the_opening_rolls_luck_is_the_equity_it_gives():
    found = roll_luck(MatchState.new(SINGLE), Action(ActionKind.ROLL, 0, (3, 1)))
    assert found is not None and found.side == 0
    assert found.before == pytest.approx(0, abs=1e-9) and found.luck == found.after > 0


@pytest.mark.parametrize("rules", [SINGLE, MATCH_TO_5, SESSION], ids=["single", "match", "session"])
def test_a_games_luck_counts_every_roll_once_and_its_result(rules):
    actions = bot_game(rules, ("carcelero", "chofer"), 1000)
    luck = game_luck(rules, actions, range(len(actions)))
    rolls = [a for a in actions if a.kind == ActionKind.ROLL]
    ties = [a for a in rolls[:3] if a.dice and a.dice[0] == a.dice[1]]  # opening ties come first
    assert len(luck.rolls) == len(rolls) - len(ties)
    assert [r.index for r in luck.rolls] == sorted(r.index for r in luck.rolls)
    sides = luck.summaries()
    assert sides[0].rolls + sides[1].rolls == len(luck.rolls)
    assert sides[0].luck == pytest.approx(sum(r.luck for r in luck.rolls if r.side == 0))
    assert luck.result is not None and luck.result[0] == pytest.approx(-luck.result[1])
    winner = MatchState.replay(rules, actions).games[-1].winner
    assert luck.result[winner] > 0
    if rules.format is Format.MATCH:
        assert luck.unit == "mwc" and 0 < luck.result[winner] < 0.5
    else:
        assert luck.unit == "points" and luck.result[winner] >= 1
    adjusted = sides[0].adjusted(sides[1])
    assert adjusted == pytest.approx(luck.result[0] - (sides[0].value - sides[1].value))
