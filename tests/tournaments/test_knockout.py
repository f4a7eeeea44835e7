"""The knockout bracket: seeding, byes, where winners go, and its properties."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.tournaments import KNOCKOUT_MAX, KNOCKOUT_MIN, Slot, knockout, seed_order


def test_eight_seeds_meet_in_the_usual_order():
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert knockout(8).first_round() == [(1, 8), (4, 5), (2, 7), (3, 6)]


def test_the_top_two_seeds_can_only_meet_in_the_final():
    order = seed_order(64)
    assert order.index(1) < 32 <= order.index(2)


@pytest.mark.parametrize("players", [3, 65, 0, -4])
def test_a_knockout_has_4_to_64_players(players):
    with pytest.raises(ValueError):
        knockout(players)


def test_six_players_give_byes_to_the_top_two_seeds():
    bracket = knockout(6)
    assert (bracket.size, bracket.rounds) == (8, 3)
    assert bracket.first_round() == [(1, None), (4, 5), (2, None), (3, 6)]
    assert bracket.byes() == [1, 2]
    assert bracket.slots() == [Slot(1, 1), Slot(1, 3), Slot(2, 0), Slot(2, 1), Slot(3, 0)]


def test_a_seed_with_a_bye_waits_in_the_second_round_for_the_winner():
    bracket = knockout(6)
    assert bracket.pairings({})[Slot(2, 0)] == (1, None)
    assert bracket.opened({}) == [Slot(1, 1), Slot(1, 3)]
    assert bracket.pairings({Slot(1, 1): 5})[Slot(2, 0)] == (1, 5)
    assert Slot(2, 0) in bracket.opened({Slot(1, 1): 5})


def test_the_next_match_opens_when_both_its_players_are_known_not_the_whole_round():
    bracket = knockout(8)
    winners = {Slot(1, 0): 1, Slot(1, 1): 5}
    assert bracket.opened(winners) == [Slot(1, 2), Slot(1, 3), Slot(2, 0)]


def test_a_winner_goes_to_the_next_match_on_their_side():
    assert Slot(1, 5).next() == (Slot(2, 2), 1)
    assert Slot(2, 2).next() == (Slot(3, 1), 0)


def test_a_player_cannot_win_a_match_they_did_not_play():
    bracket = knockout(8)
    with pytest.raises(ValueError):
        bracket.pairings({Slot(1, 0): 4})
    with pytest.raises(ValueError):
        bracket.pairings({Slot(2, 0): 1})  # its second player is not known yet
    with pytest.raises(ValueError):
        bracket.pairings({Slot(9, 0): 1})


def test_the_champion_is_the_winner_of_the_final():
    bracket = knockout(4)
    winners = {Slot(1, 0): 1, Slot(1, 1): 3}
    assert bracket.champion(winners) is None
    assert bracket.champion({**winners, Slot(2, 0): 3}) == 3


def test_round_names_count_back_from_the_final():
    bracket = knockout(64)
    assert [bracket.round_name(r) for r in range(1, 7)] == [
        "round",
        "round",
        "round",
        "quarterfinal",
        "semifinal",
        "final",
    ]


def _play_out(players: int, upsets: list[bool]):
    """Every opened match decided (the better seed wins unless `upsets` says), in order."""
    bracket = knockout(players)
    winners: dict[Slot, int] = {}
    opened_once: list[Slot] = []
    turn = 0
    while (opened := [s for s in bracket.opened(winners) if s not in opened_once]) or len(
        winners
    ) < len(opened_once):
        opened_once += opened
        slot = next(s for s in opened_once if s not in winners)
        a, b = bracket.pairings(winners)[slot]
        assert a is not None and b is not None
        upset = upsets[turn % len(upsets)] if upsets else False
        winners[slot] = max(a, b) if upset else min(a, b)
        turn += 1
    return bracket, winners, opened_once


@given(st.integers(KNOCKOUT_MIN, KNOCKOUT_MAX), st.lists(st.booleans(), max_size=20))
def test_a_knockout_plays_n_minus_1_matches_each_opened_once(players, upsets):
    bracket, winners, opened = _play_out(players, upsets)
    assert len(winners) == len(opened) == len(set(opened)) == players - 1
    assert sorted(opened) == sorted(bracket.slots())
    assert bracket.champion(winners) is not None


@given(st.integers(KNOCKOUT_MIN, KNOCKOUT_MAX))
def test_byes_only_in_the_first_round_and_only_for_the_top_seeds(players):
    bracket = knockout(players)
    assert sorted(bracket.byes()) == list(range(1, bracket.size - players + 1))
    pairings = bracket.pairings({})
    first = [p for s, p in pairings.items() if s.round == 1]
    assert all(None not in pairing for pairing in first)
    seeded = sorted(seed for pairing in first for seed in pairing if seed is not None)
    assert all(seed > bye for seed in seeded for bye in bracket.byes())
    assert sorted(seeded + bracket.byes()) == list(range(1, players + 1))


@given(st.integers(KNOCKOUT_MIN, KNOCKOUT_MAX), st.lists(st.booleans(), max_size=20))
def test_nobody_plays_two_matches_of_one_round(players, upsets):
    bracket, winners, _ = _play_out(players, upsets)
    pairings = bracket.pairings(winners)
    for round_ in range(1, bracket.rounds + 1):
        seeds = [s for slot, p in pairings.items() if slot.round == round_ for s in p]
        assert len(seeds) == len(set(seeds))
