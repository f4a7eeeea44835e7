"""Empresario's deeper look at close plays: bgsage's own values, only where they can matter."""

from __future__ import annotations

from dataclasses import replace

import pytest

from games.bots import BotContext, deep, get_bot, sage
from games.bots.deep import Rollout, Stage
from games.engine import Position, legal_plays

from .positions import self_play_sample

MATCH = BotContext(cube_in_play=True, match_length=5, score=(2, 3))
MONEY = BotContext()


@pytest.fixture(autouse=True)
def no_recent_moves(monkeypatch):
    """Each test starts with no evaluation timed in earlier moves (``expected_evaluation``)."""
    monkeypatch.setattr(deep, "_evaluation", 0.0)


def close_spot(context: BotContext, level: str) -> tuple[Position, tuple[int, int]]:
    """The first seeded position whose two best plays are within 0.05 at ``level``."""
    for position, dice in self_play_sample(200, 31):
        ranked = sage.rank_plays(position, dice, level, context)
        distinct = {c.after for c in ranked}
        if len(distinct) >= 3 and ranked[0].equity - ranked[1].equity < 0.05:
            if ranked[0].after != ranked[1].after:
                return position, dice
    raise AssertionError("no close position in the sample")


def test_a_cubeful_stage_gives_the_close_plays_bgsages_own_cubeful_3ply_values():
    position, dice = close_spot(MATCH, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", MATCH)
    deeper = deep.deepen(position, ranked, MATCH, [Stage(3, 4, 0.16)])
    # bgsage's cubeful 3-ply search values every play with the same tree.
    away_me, away_them = MATCH.away()
    reference = sage.analyzer("3ply", True).checker_play(
        sage.to_board(position), dice[0], dice[1], cube_value=1, cube_owner="centered",
        away1=away_me, away2=away_them,
    )  # fmt: skip
    by_board = {tuple(move.board): move.equity for move in reference.moves}
    looked = [c for c in deeper if abs(c.equity - by_board[tuple(sage.to_board(c.after))]) < 1e-6]
    assert len({c.after for c in looked}) >= 2
    assert deeper[0] in looked


def test_a_cubeless_stage_gives_bgsages_own_cubeless_3ply_values():
    position, dice = close_spot(MONEY, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", MONEY)
    deeper = deep.deepen(position, ranked, MONEY, [Stage(3, 3, 0.16)])
    reference = sage.analyzer("3ply", False).checker_play(sage.to_board(position), *dice)
    searched = {tuple(m.board): m.equity for m in reference.moves if m.eval_level == "3-ply"}
    front = deeper[0]
    assert front.equity == pytest.approx(searched[tuple(sage.to_board(front.after))], abs=1e-6)


def test_deepening_keeps_every_legal_play_once_and_the_best_first():
    position, dice = close_spot(MATCH, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", MATCH)
    deeper = deep.deepen(position, ranked, MATCH, [Stage(3, 4, 0.16), Stage(4, 2, 0.06)])
    assert sorted(c.play for c in deeper) == sorted(legal_plays(position, dice))
    front = [c for c in deeper if c.after in {d.after for d in deeper[:2]}]
    assert all(deeper[0].equity >= c.equity for c in front)


def test_a_clear_decision_is_not_searched_again():
    position, dice = close_spot(MATCH, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", MATCH)
    # A window narrower than the gap between the two best leaves one play: nothing to compare.
    gap = ranked[0].equity - next(c.equity for c in ranked if c.after != ranked[0].after)
    narrow = Stage(3, 4, gap / 2)
    assert deep.deepen(position, ranked, MATCH, [narrow]) == ranked


def test_in_a_partida_simple_the_deeper_value_is_the_winning_chance():
    single = BotContext(match_length=1)
    position, dice = close_spot(single, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", single)
    deeper = deep.deepen(position, ranked, single, [Stage(3, 3, 0.5)])
    assert all(c.equity == pytest.approx(2 * c.win - 1) for c in deeper)


def test_a_rollout_stage_gives_bgsages_own_truncated_rollout_values_every_time():
    position, dice = close_spot(MATCH, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", MATCH)
    rolled = deep.deepen(position, ranked, MATCH, [Rollout(2, 0.5)])
    away_me, away_them = MATCH.away()
    reference = sage.analyzer("truncated1", True).checker_play(
        sage.to_board(position), dice[0], dice[1], cube_value=1, cube_owner="centered",
        away1=away_me, away2=away_them,
    )  # fmt: skip
    by_board = {tuple(m.board): m.equity for m in reference.moves if m.eval_level == "Rollout"}
    for candidate in rolled[:2]:
        assert candidate.equity == pytest.approx(by_board[tuple(sage.to_board(candidate.after))])
    # One seed: the same dice for every play and every call, so a move never depends on luck.
    assert deep.deepen(position, ranked, MATCH, [Rollout(2, 0.5)])[:2] == rolled[:2]


@pytest.mark.parametrize("owner", ["me", "them"])
def test_a_rollout_sees_the_cube_from_the_movers_side(owner):
    held = replace(MATCH, cube_value=2, cube_owner=owner, match_length=7, score=(2, 4))
    swapped = replace(held, cube_owner="them" if owner == "me" else "me")
    rollout, other, tree = [], [], []
    for position, dice in self_play_sample(40, 31)[::8]:
        best = sage.rank_plays(position, dice, "2ply", held)[:1]
        tree.append(deep._cubeful(position, best, 3, held)[0].equity)
        rollout.append(deep._rolled_out(position, best, Rollout(1, 1.0), held)[0].equity)
        other.append(deep._rolled_out(position, best, Rollout(1, 1.0), swapped)[0].equity)
    # The tree (checked against bgsage's own search above) and the rollout agree
    # on who holds the cube; the owner swapped is far off.
    near = sum(abs(r - t) for r, t in zip(rollout, tree, strict=True)) / len(tree)
    far = sum(abs(o - t) for o, t in zip(other, tree, strict=True)) / len(tree)
    assert near < 0.1 < far


def test_a_rollout_in_a_partida_simple_is_the_winning_chance():
    single = BotContext(match_length=1)
    position, dice = close_spot(single, "2ply")
    ranked = sage.rank_plays(position, dice, "2ply", single)
    rolled = deep.deepen(position, ranked, single, [Rollout(3, 0.5)])
    assert all(c.equity == pytest.approx(2 * c.win - 1) for c in rolled)


def test_empresario_plays_a_legal_play_in_every_kind_of_game_and_builds_each_search_once():
    bot = get_bot("empresario")
    spots = self_play_sample(6, 5)
    for context in (MATCH, MONEY, BotContext(match_length=1)):
        for position, dice in spots:
            assert bot.choose_play(position, dice, context) in legal_plays(position, dice)
    built = deep.build_count
    for position, dice in spots:
        bot.choose_play(position, dice, MATCH)
    assert deep.build_count == built


def test_empresario_rolls_out_a_close_cube_and_decides_a_clear_one_at_3_ply():
    held = BotContext(cube_value=2, cube_owner="me", cube_in_play=True, match_length=5)
    close = Position.from_position_id("DYcywRFnuQaARA")  # redoubling gives away 0.021 at 3-ply
    clear = Position.from_position_id("AwAAUAAAAAAAAA")  # a last-roll redouble by 0.39
    bot = get_bot("empresario")
    assert bot._verdict(close, held, take=False).eval_level == "Rollout"
    assert bot._verdict(clear, held, take=False).eval_level == "3-ply"
    assert bot.should_double(clear, held)


SEARCH = (Stage(3, 6, 0.16), Rollout(3, 0.06))


@pytest.fixture(scope="module")
def rollout_spot() -> tuple[Position, tuple[int, int], list]:
    """A seeded close spot where the rollout reorders what cubeful 3-ply found."""
    for position, dice in self_play_sample(200, 31):
        ranked = sage.rank_plays(position, dice, "2ply", MATCH)
        if len({c.after for c in ranked}) < 3 or ranked[0].equity - ranked[1].equity > 0.05:
            continue
        staged = deep.deepen(position, ranked, MATCH, SEARCH[:1])
        if deep.deepen(position, ranked, MATCH, SEARCH)[0].after != staged[0].after:
            return position, dice, ranked
    raise AssertionError("no spot in the sample where the rollout changes the choice")


def test_a_stage_the_deadline_cuts_short_is_dropped_and_the_last_finished_one_plays(
    monkeypatch, rollout_spot
):
    position, dice, ranked = rollout_spot
    finished = deep.deepen(position, ranked, MATCH, SEARCH[:1])
    now = [0.0]
    rolled_out = deep._rolled_out

    def late(*args, **kwargs):  # the budget runs out as the rollout begins
        now[0] = 10.0
        return rolled_out(*args, **kwargs)

    monkeypatch.setattr(deep, "_rolled_out", late)
    cut = deep.deepen(position, ranked, MATCH, SEARCH, deadline=5.0, now=lambda: now[0])
    assert [c.after for c in cut] == [c.after for c in finished]
    assert [c.equity for c in cut] == [c.equity for c in finished]
    # With the time there, the same search goes on to the rollout.
    now[0] = 0.0
    monkeypatch.setattr(deep, "_rolled_out", rolled_out)
    full = deep.deepen(position, ranked, MATCH, SEARCH, deadline=5.0, now=lambda: now[0])
    assert full[0].after != finished[0].after


def test_a_deadline_already_passed_leaves_the_first_pass_as_it_was(rollout_spot):
    position, dice, ranked = rollout_spot
    assert deep.deepen(position, ranked, MATCH, SEARCH, deadline=0.0, now=lambda: 1.0) == ranked


def test_empresario_given_a_tiny_budget_plays_a_legal_play_within_it_and_a_small_margin():
    import time

    bot = get_bot("empresario")
    spots = self_play_sample(12, 7)
    for context in (MATCH, BotContext(match_length=1)):
        for position, dice in spots:
            bot.choose_play(position, dice, context)  # the strategies are built: not timed
            started = time.monotonic()
            play = bot.choose_play(position, dice, context, deadline=started + 0.02)
            took = time.monotonic() - started
            assert play in legal_plays(position, dice)
            # The first pass (≤ 0.6 s measured) and at most one evaluation past the budget.
            assert took < 0.02 + 1.5, (position.position_id(), dice, took)


def test_an_evaluation_that_would_end_past_the_deadline_is_not_begun(rollout_spot):
    position, dice, ranked = rollout_spot
    rollout = SEARCH[1]
    close: list = []
    for candidate in ranked:
        if ranked[0].equity - candidate.equity > rollout.window or len(close) == rollout.top:
            break
        if all(candidate.after != other.after for other in close):
            close.append(candidate)
    assert len(close) >= 2
    ticks = iter(range(1000))

    def clock() -> float:  # every evaluation takes one second
        return float(next(ticks))

    # The last candidate starts at len(close) + 1 s and would end a second later.
    late = deep.deepen(position, ranked, MATCH, [rollout], deadline=len(close) + 1.5, now=clock)
    assert late == ranked
    ticks = iter(range(1000))
    on_time = deep.deepen(position, ranked, MATCH, [rollout], deadline=len(close) + 2.5, now=clock)
    assert on_time == deep.deepen(position, ranked, MATCH, [rollout])


def test_a_moves_first_evaluation_is_judged_by_the_longest_of_recent_moves(
    monkeypatch, rollout_spot
):
    position, dice, ranked = rollout_spot
    # Recent moves' longest evaluation took 2 s: with 1.5 s left none begins.
    monkeypatch.setattr(deep, "_evaluation", 2.0)
    assert deep.deepen(position, ranked, MATCH, SEARCH, deadline=1.5, now=lambda: 0.0) == ranked
    # With none timed yet the same time is enough for the whole search.
    monkeypatch.setattr(deep, "_evaluation", 0.0)
    searched = deep.deepen(position, ranked, MATCH, SEARCH, deadline=1.5, now=lambda: 0.0)
    assert searched == deep.deepen(position, ranked, MATCH, SEARCH)


def test_the_longest_evaluation_of_a_move_feeds_the_expectation_for_the_next(rollout_spot):
    position, dice, ranked = rollout_spot
    ticks = iter(range(1000))

    def clock() -> float:  # every evaluation takes one second
        return float(next(ticks))

    deep.deepen(position, ranked, MATCH, SEARCH, deadline=1000.0, now=clock)
    assert deep.expected_evaluation() == pytest.approx(deep.EVALUATION_WEIGHT * 1.0)
    # Without a deadline nothing is timed, and the expectation stays.
    deep.deepen(position, ranked, MATCH, SEARCH)
    assert deep.expected_evaluation() == pytest.approx(deep.EVALUATION_WEIGHT * 1.0)
