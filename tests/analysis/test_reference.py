"""The analysis against references that do not come from our code.

Opening replies every backgammon book agrees on must be rated best; a forced
move can never be an error; plays every teacher calls terrible must be rated
blunders; doubling in the opening position is a blunder and the right answer
to it is a take. All at the depth the site analyses with (DEFAULT_SETTINGS),
in the three kinds of game the site plays.
"""

import pytest

from games.analysis import BLUNDER, Decision, analyse, match_decisions, summarise
from games.bots import SINGLE_GAME, BotContext
from games.engine import Action, Format, MatchRules, Position, parse_play

START = Position.initial()
MATCH_TO_5 = BotContext(cube_in_play=True, match_length=5)
SESSION = BotContext(cube_in_play=True)
CONTEXTS = {"partida simple": SINGLE_GAME, "match to 5": MATCH_TO_5, "sesión libre": SESSION}


def rate(position, dice, text, context):
    play = parse_play(position, dice, text)
    return analyse([Decision(0, 0, "play", position, context, dice, play)])[0]


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
@pytest.mark.parametrize(
    "dice, book",
    [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7"), ((6, 6), "24/18(2) 13/7(2)")],
)
def test_the_books_opening_reply_is_rated_best(dice, book, context):
    rating = rate(START, dice, book, context)
    assert rating.best == book
    assert rating.loss == 0 and rating.mark == "" and rating.counted
    assert len(rating.alternatives) == 5 and rating.alternatives[0].notation == book
    equities = [alt.equity for alt in rating.alternatives]
    assert equities == sorted(equities, reverse=True)


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
@pytest.mark.parametrize("dice, bad", [((6, 6), "13/7(2) 8/2(2)"), ((4, 4), "6/2(2) 8/4(2)")])
def test_burying_checkers_on_the_opening_roll_is_a_blunder(dice, bad, context):
    # Two checkers dead on the 2-point instead of running or making points:
    # no book plays it, and the analysis must say so loudly.
    rating = rate(START, dice, bad, context)
    if context is SINGLE_GAME and dice == (4, 4):
        assert rating.mark in ("error", "blunder")  # gammons do not count: a smaller loss
    else:
        assert rating.loss > BLUNDER and rating.mark == "blunder"


def test_a_forced_move_is_never_an_error():
    # Two checkers left on the 1-point and a 6-5: both come off, whatever the order.
    position = Position.from_points({1: 2}, {13: 15})
    for context in CONTEXTS.values():
        rating = rate(position, (6, 5), "1/off(2)", context)
        assert rating.forced and not rating.counted and rating.loss == 0 and rating.mark == ""


def test_a_roll_with_no_legal_play_is_forced_too():
    # On the bar against a closed board: the turn passes.
    position = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    rating = analyse([Decision(0, 0, "play", position, MATCH_TO_5, (6, 6), ())])[0]
    assert rating.forced and not rating.counted and rating.mark == ""


def test_doubling_the_opening_position_is_a_blunder_and_the_take_is_right():
    rules = MatchRules(format=Format.SESSION)
    actions = [
        Action("roll", 0, dice=(3, 1)),
        Action("play", 0, play=parse_play(START, (3, 1), "8/5 6/5")),
        Action("double", 1),  # side 1, before its first roll: far too early
        Action("take", 0),
    ]
    ratings = analyse(match_decisions(rules, actions))
    kinds = [(r.decision.kind, r.decision.side) for r in ratings]
    assert kinds == [("play", 0), ("double", 1), ("take", 0)]
    _, double, take = ratings
    assert double.best == "no_double" and double.mark == "blunder" and double.counted
    assert take.best == "take" and take.loss == 0
    side0, side1 = summarise(ratings)
    assert side1.cube_decisions == 1 and side1.cube_errors == 1 and side1.cube_blunders == 1
    assert side1.pr == pytest.approx(500 * double.loss)
    assert side0.pr == 0 and side0.decisions == 2 and side0.blunders == 0
