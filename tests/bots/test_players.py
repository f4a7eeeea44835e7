"""The four bots: legal plays always, reproducible with a seed, each with its character."""

from __future__ import annotations

import random

import pytest

from games.bots import BOT_NAMES, SINGLE_GAME, BotContext, RandomPlayer, get_bot, sage
from games.engine import BAR, Position, legal_plays

from .positions import GAMMONED, HOPELESS_FOR_TAKER, RACE_DOUBLE_TAKE, self_play_sample

MONEY_CUBE = BotContext(cube_in_play=True)
MATCH_5 = BotContext(cube_in_play=True, match_length=5, score=(2, 3))
SAMPLE = self_play_sample(240, seed=20261129)


def test_get_bot_knows_the_four_names_in_any_case():
    assert BOT_NAMES == ("domador", "chofer", "carcelero", "empresario")
    assert get_bot("EMPRESARIO").name == "Empresario"
    assert get_bot(" Chofer ").name == "Chofer"
    with pytest.raises(ValueError, match="unknown bot"):
        get_bot("gnubg")


@pytest.mark.parametrize("name", ["domador", "chofer", "carcelero"])
def test_a_light_bot_returns_a_legal_play_for_every_position(name):
    bot = get_bot(name, seed=1)
    for index, (position, dice) in enumerate(SAMPLE):
        context = (None, MONEY_CUBE, MATCH_5, SINGLE_GAME)[index % 4]
        assert bot.choose_play(position, dice, context) in legal_plays(position, dice)


def test_empresario_returns_a_legal_play_in_every_kind_of_game():
    bot = get_bot("empresario")
    for index, (position, dice) in enumerate(SAMPLE[:24]):
        context = (None, MONEY_CUBE, MATCH_5, SINGLE_GAME)[index % 4]
        assert bot.choose_play(position, dice, context) in legal_plays(position, dice)


def test_the_random_player_returns_a_legal_play():
    player = RandomPlayer(random.Random(3))
    for position, dice in SAMPLE[:50]:
        assert player.choose_play(position, dice) in legal_plays(position, dice)


def test_a_bot_with_no_legal_play_returns_the_empty_play():
    # Two checkers on the bar against a closed board: nothing enters.
    closed = Position.from_points({BAR: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3})
    assert legal_plays(closed, (6, 5)) == []
    assert get_bot("carcelero", seed=1).choose_play(closed, (6, 5)) == ()


@pytest.mark.parametrize("name", ["domador", "chofer", "carcelero"])
def test_the_same_seed_gives_the_same_plays_and_another_seed_other_ones(name):
    def plays(seed):
        bot = get_bot(name, random.Random(seed))
        return [bot.choose_play(position, dice) for position, dice in SAMPLE[:80]]

    assert plays(7) == plays(7)
    assert plays(7) != plays(8)


def test_empresario_plays_the_same_every_time():
    first, second = get_bot("empresario", seed=1), get_bot("empresario", seed=2)
    for position, dice in SAMPLE[:5]:
        assert first.choose_play(position, dice) == second.choose_play(position, dice)


def _share(name, position, dice, wanted, seeds=30):
    """How many of ``seeds`` differently seeded copies of the bot choose a play in ``wanted``."""
    return sum(
        get_bot(name, seed=seed).choose_play(position, dice) in wanted for seed in range(seeds)
    )


def test_chofer_runs_his_back_checkers_where_carcelero_mostly_stays():
    # 6-6 with two checkers on the opponent's 5 point: bgsage prefers to build the
    # home board (13/7 12/6 9/3 8/2); running both back checkers 20/14(2) is Chofer's idea.
    position = Position.from_position_id("s3luAADUVlHAGA")
    assert position.me[20] == 2
    runs = {play for play in legal_plays(position, (6, 6)) if position.apply(play).me[20] == 0}
    assert _share("chofer", position, (6, 6), runs) >= 22
    assert _share("carcelero", position, (6, 6), runs) <= 15


def test_carcelero_hits_twice_and_closes_points_where_chofer_runs():
    # 6-6 from the opening: bgsage runs 24/18(2) and makes the 7 point with a hit; Carcelero
    # would rather put two checkers on the bar and make a home point.
    position = Position.from_position_id("sM/BQSBwZ+QBMA")
    plays = legal_plays(position, (6, 6))
    jailing = {play for play in plays if position.apply(play).them[BAR] == 2}
    assert jailing
    assert _share("carcelero", position, (6, 6), jailing) >= 20
    assert _share("chofer", position, (6, 6), jailing) <= 10


def test_empresario_drops_a_hopeless_double():
    # The taker sees the position from their own side: the doubler is the opponent.
    assert not get_bot("empresario").should_take(HOPELESS_FOR_TAKER.flip(), MONEY_CUBE)


def test_empresario_takes_a_clear_take_and_doubles_the_same_position():
    empresario = get_bot("empresario")
    assert empresario.should_double(RACE_DOUBLE_TAKE, MONEY_CUBE)
    assert empresario.should_take(RACE_DOUBLE_TAKE.flip(), MONEY_CUBE)


def test_empresario_does_not_double_the_opening_position_for_money():
    assert not get_bot("empresario").should_double(Position.initial(), MONEY_CUBE)


def test_empresario_doubles_at_once_after_crawford_when_trailing():
    # 3-away against 1-away, post-Crawford: the trailer doubles the first chance it gets.
    post_crawford = BotContext(cube_in_play=True, match_length=5, score=(2, 4))
    assert get_bot("empresario").should_double(Position.initial(), post_crawford)


def test_no_bot_doubles_in_the_crawford_game():
    crawford = BotContext(cube_in_play=False, match_length=5, score=(2, 4), crawford=True)
    for name in BOT_NAMES:
        for seed in range(5):
            assert not get_bot(name, seed=seed).should_double(RACE_DOUBLE_TAKE, crawford)


def test_no_bot_doubles_a_dead_cube_or_a_cube_it_does_not_own():
    leader = BotContext(cube_in_play=True, match_length=5, score=(4, 2))  # 1-away, post-Crawford
    theirs = BotContext(cube_value=2, cube_owner="them", cube_in_play=True)
    for name in BOT_NAMES:
        for seed in range(5):
            bot = get_bot(name, seed=seed)
            assert not bot.should_double(HOPELESS_FOR_TAKER, leader)
            assert not bot.should_double(RACE_DOUBLE_TAKE, theirs)


def test_empresario_beavers_a_double_from_the_player_behind_in_a_race():
    beavers = BotContext(cube_in_play=True, beavers=True)
    # The doubler trails 98-91: the taker (our bot) sees RACE_DOUBLE_TAKE from its own side.
    empresario = get_bot("empresario")
    assert empresario.should_beaver(RACE_DOUBLE_TAKE, beavers)
    assert not empresario.should_beaver(RACE_DOUBLE_TAKE, MONEY_CUBE)  # beavers are off


def test_a_bot_that_was_beavered_plays_on_while_it_is_the_favourite():
    after_beaver = BotContext(cube_value=2, cube_in_play=True, beavers=True)
    assert get_bot("empresario").should_accept_beaver(RACE_DOUBLE_TAKE, after_beaver)


def test_bots_refuse_a_single_resignation_when_a_gammon_is_near_certain():
    # The bot's own side is GAMMONED seen from the other player.
    for name in BOT_NAMES:
        bot = get_bot(name, seed=1)
        assert not bot.accept_resign(GAMMONED.flip(), 1, MONEY_CUBE)
        assert bot.accept_resign(GAMMONED.flip(), 3, MONEY_CUBE)


def test_under_jacoby_with_a_centred_cube_a_single_resignation_is_all_a_gammon_is_worth():
    jacoby = BotContext(cube_in_play=True, jacoby=True)
    for name in BOT_NAMES:
        assert get_bot(name, seed=1).accept_resign(GAMMONED.flip(), 1, jacoby)
    # Once the cube was turned, the gammon counts again and a single is refused.
    turned = BotContext(cube_value=2, cube_owner="me", cube_in_play=True, jacoby=True)
    assert not get_bot("empresario").accept_resign(GAMMONED.flip(), 1, turned)


def test_bots_accept_a_resignation_of_a_game_they_are_sure_to_win():
    lost = Position.from_points({6: 5, 5: 5, 4: 5}, {1: 2, 2: 2, 3: 2})  # the resigner's side
    for name in BOT_NAMES:
        assert get_bot(name, seed=1).accept_resign(lost.flip(), 1, MONEY_CUBE)
        assert get_bot(name, seed=1).accept_resign(lost.flip(), 1, SINGLE_GAME)


def test_every_bot_accepts_a_rematch():
    assert all(get_bot(name).accept_rematch() for name in BOT_NAMES)


def test_the_networks_are_loaded_once_per_process():
    position, dice = SAMPLE[3]
    for name in BOT_NAMES:
        get_bot(name, seed=1).choose_play(position, dice)
    built = sage.build_count
    loaded = dict(sage._analyzers)
    for name in BOT_NAMES:
        for seed in range(3):
            get_bot(name, seed=seed).choose_play(position, dice)
    assert sage.build_count == built
    assert all(sage.analyzer(*key) is found for key, found in loaded.items())
    assert sage.build_count == len(sage._analyzers)


def test_bgsage_reaches_exactly_the_positions_of_our_legal_plays():
    # Pins the board conversion (bars included): every legal play is found among
    # bgsage's candidates, so no play falls back to being judged on its own.
    from bgsage import possible_moves

    for position, dice in SAMPLE:
        ours = {tuple(sage.to_board(position.apply(play))) for play in legal_plays(position, dice)}
        theirs = {tuple(board) for board in possible_moves(sage.to_board(position), *dice)}
        assert ours == theirs, repr(position)


def test_a_position_with_checkers_on_both_bars_converts_with_positive_bar_counts():
    position = Position.from_points({BAR: 1, 13: 14}, {BAR: 2, 6: 13})
    board = sage.to_board(position)
    assert (board[25], board[0], board[13], board[19]) == (1, 2, 14, -13)
