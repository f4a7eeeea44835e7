"""A bot with no time left: what it plays, and what it no longer spends.

The clocks here are the tests' own (``Bot(clock=...)``), as in test_deep's
deadline tests: nothing is timed on the machine's clock.
"""

from __future__ import annotations

import random

import pytest

from games.bots import CHARACTERS, BotContext, get_bot, players, sage
from games.bots.players import CHEAPEST, Bot
from games.engine import legal_plays

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
