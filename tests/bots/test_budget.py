"""A bot with no time left: what it plays, and what it no longer spends.

The clocks here are the tests' own (``Bot(clock=...)``), as in test_deep's
deadline tests: nothing is timed on the machine's clock.
"""

from __future__ import annotations

import random

import pytest

from games.bots import CHARACTERS, BotContext, get_bot, players, sage
from games.bots.players import CHEAPEST, Bot
from games.engine import Position, legal_plays

from .positions import self_play_sample

MATCH = BotContext(cube_in_play=True, match_length=5, score=(2, 3))
MONEY = BotContext()
SINGLE = BotContext(match_length=1)
WEAK = ("domador", "chofer", "carcelero")


@pytest.fixture
def levels(monkeypatch) -> list[str]:
    """The levels ``rank_plays`` is asked for, in order; a fresh first-pass estimate."""
    asked: list[str] = []
    rank = sage.rank_plays

    def recording(position, dice, level, context, force=()):
        asked.append(level)
        return rank(position, dice, level, context, force)

    monkeypatch.setattr(sage, "rank_plays", recording)
    monkeypatch.setattr(players, "_first_pass", {})
    return asked


@pytest.mark.parametrize("context", [MATCH, MONEY, SINGLE], ids=["match", "money", "single"])
def test_empresario_past_its_deadline_plays_the_cheapest_rankings_best_at_once(context, levels):
    bot = Bot(CHARACTERS["empresario"], clock=lambda: 100.0)
    for position, dice in self_play_sample(8, 11):
        del levels[:]
        play = bot.choose_play(position, dice, context, deadline=99.0)
        assert levels == [CHEAPEST]  # no first pass at its own level, no deeper stage
        assert play in legal_plays(position, dice)
        assert play == sage.rank_plays(position, dice, CHEAPEST, context)[0].play


def test_less_time_than_the_first_pass_is_expected_to_take_is_no_time(levels):
    bot = Bot(CHARACTERS["empresario"], clock=lambda: 100.0)
    position, dice = self_play_sample(1, 12)[0]
    cost = players.first_pass_cost("2ply")
    assert cost == players.FIRST_PASS_PRIOR
    bot.choose_play(position, dice, MATCH, deadline=100.0 + cost * 0.9)
    assert levels == [CHEAPEST]
    del levels[:]
    bot.choose_play(position, dice, MATCH, deadline=100.0 + cost * 1.1)
    assert levels[0] == "2ply"  # time enough: its first pass (and the search) ran


def test_the_expected_cost_follows_the_first_passes_measured_on_the_bots_clock(monkeypatch, levels):
    now = [0.0]
    rank = sage.rank_plays

    def slow(position, dice, level, context, force=()):  # a first pass takes 2 s here
        if level != CHEAPEST:
            now[0] += 2.0
        return rank(position, dice, level, context, force)

    monkeypatch.setattr(sage, "rank_plays", slow)
    bot = Bot(CHARACTERS["empresario"], clock=lambda: now[0])
    position, dice = self_play_sample(1, 12)[0]
    prior = players.FIRST_PASS_PRIOR
    bot.choose_play(position, dice, MONEY, deadline=now[0] + 100.0)
    learnt = players.first_pass_cost("3ply")
    assert learnt == pytest.approx(prior + players.FIRST_PASS_WEIGHT * (2.0 - prior))
    assert players.first_pass_cost("2ply") == prior  # each level its own
    # Now a second left is less than the expected cost: the cheapest ranking plays.
    before = now[0]
    play = bot.choose_play(position, dice, MONEY, deadline=now[0] + 0.9 * learnt)
    assert now[0] == before
    assert play == rank(position, dice, CHEAPEST, MONEY)[0].play


@pytest.mark.parametrize("name", WEAK)
def test_the_weak_bots_rank_at_1_ply_anyway_and_play_the_same_past_a_deadline(name, levels):
    for context in (MATCH, MONEY):
        for position, dice in self_play_sample(6, 13):
            del levels[:]
            late = Bot(CHARACTERS[name], random.Random(5), clock=lambda: 100.0)
            unbounded = get_bot(name, seed=5)
            played = late.choose_play(position, dice, context, deadline=0.0)
            assert levels == [CHEAPEST]
            assert played == unbounded.choose_play(position, dice, context)


# Empresario holds the cube at 5 points: redoubling gives away 0.021 at 3-ply,
# close enough (under 0.04) for its rollout (test_deep's close cube).
HELD = BotContext(cube_value=2, cube_owner="me", cube_in_play=True, match_length=5)
CLOSE_CUBE = "DYcywRFnuQaARA"


@pytest.fixture
def rollout_expected(monkeypatch):
    """Set what a cube rollout is expected to take, for this test only."""

    def expect(seconds: float) -> None:
        monkeypatch.setattr(sage, "_cube_rollout", seconds)

    return expect


def test_a_cube_rollout_with_no_time_left_is_not_begun_and_the_3_ply_verdict_stands(monkeypatch):
    close = Position.from_position_id(CLOSE_CUBE)
    begun: list[str] = []
    until = sage.cube_decision_until

    def recording(position, level, context, deadline, now):
        begun.append(level)
        return until(position, level, context, deadline, now)

    monkeypatch.setattr(sage, "cube_decision_until", recording)
    bot = Bot(CHARACTERS["empresario"], clock=lambda: 100.0)
    late = bot._verdict(close, HELD, take=False, deadline=99.0)
    assert begun == ["truncated1"]  # asked, and given up before it started
    shallow = sage.cube_decision(close, "3ply", HELD)
    assert late.eval_level == "3-ply"
    assert (late.equity_nd, late.equity_dt, late.equity_dp) == (
        shallow.equity_nd,
        shallow.equity_dt,
        shallow.equity_dp,
    )
    assert bot.should_double(close, HELD, deadline=99.0) == shallow.should_double


def test_a_cube_rollout_expected_to_end_past_the_deadline_is_not_begun(rollout_expected):
    close = Position.from_position_id(CLOSE_CUBE)
    rollout_expected(2.0)
    bot = Bot(CHARACTERS["empresario"], clock=lambda: 100.0)
    assert bot._verdict(close, HELD, take=False, deadline=101.5).eval_level == "3-ply"
    assert sage.expected_cube_rollout() == 2.0  # nothing ran, nothing learnt
    whole = bot._verdict(close, HELD, take=False, deadline=102.5)
    assert whole.eval_level == "Rollout"
    unbounded = bot._verdict(close, HELD, take=False)
    assert (whole.equity_nd, whole.equity_dt, whole.equity_dp) == (
        unbounded.equity_nd,
        unbounded.equity_dt,
        unbounded.equity_dp,
    )
    # It took no time on this clock: the expectation moves a fifth of the way to 0.
    assert sage.expected_cube_rollout() == pytest.approx(2.0 - sage.ROLLOUT_WEIGHT * 2.0)


def test_with_threads_a_cube_rollout_the_deadline_reaches_is_cancelled(
    monkeypatch, rollout_expected
):
    # The bots worker runs one thread a search; with more, bgsage reports each
    # batch of trials and can stop there: a 2-thread analyzer, built as sage does.
    from bgsage import create_analyzer

    monkeypatch.setenv("BGBOT_MULTIPLY_THREADS", "2")
    threaded = create_analyzer("truncated1", cubeful=True)
    monkeypatch.setitem(sage._analyzers, ("truncated1", True), threaded)
    rollout_expected(0.0)
    close = Position.from_position_id(CLOSE_CUBE)
    reads = [0]

    def clock() -> float:  # each reading a second later: the rollout's first report ends it
        reads[0] += 1
        return float(reads[0])

    bot = Bot(CHARACTERS["empresario"], clock=clock)
    # Read once before the rollout starts (1 < 1.5), once at its first batch (2): cancelled.
    cut = bot._verdict(close, HELD, take=False, deadline=1.5)
    assert cut.eval_level == "3-ply"
    assert reads[0] < 72 // 8  # cancelled after the first report, not run to the end
    # The analyzer is ready again: with time, the rollout runs to its end.
    reads[0] = 0
    whole = bot._verdict(close, HELD, take=False, deadline=1e9)
    assert whole.eval_level == "Rollout"
    assert reads[0] >= 72 // 8  # every batch of trials was reported
    again = threaded.cube_action(sage.to_board(close), **sage._cube_args(HELD), beaver=HELD.beavers)
    assert (whole.equity_nd, whole.equity_dt, whole.equity_dp) == (
        again.equity_nd,
        again.equity_dt,
        again.equity_dp,
    )
