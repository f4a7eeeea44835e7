"""League groups, round robin pairings and the standings' tie-break."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.tournaments import Result, groups, round_robin, standings


def test_nine_players_make_two_groups_dealt_back_and_forth():
    assert groups(9) == [[1, 4, 5, 8, 9], [2, 3, 6, 7]]


@pytest.mark.parametrize("players", [4, 8])
def test_four_to_eight_players_make_one_group(players):
    assert groups(players) == [list(range(1, players + 1))]


def test_a_league_needs_four_players():
    with pytest.raises(ValueError):
        groups(3)


@given(st.integers(4, 200), st.integers(4, 8))
def test_every_group_has_four_to_eight_players_and_every_seed_once(players, largest):
    try:
        dealt = groups(players, largest=largest)
    except ValueError:
        # Only when no groups of 4 to `largest` can hold the field (5 in groups of 4).
        count = -(-players // largest)
        assert largest < 8 and players < 4 * count
        return
    assert all(4 <= len(group) <= largest for group in dealt)
    assert sorted(itertools.chain(*dealt)) == list(range(1, players + 1))


def test_four_players_play_three_rounds_of_two_matches():
    assert round_robin("abcd") == [
        [("a", "d"), ("b", "c")],
        [("a", "c"), ("d", "b")],
        [("a", "b"), ("c", "d")],
    ]


@given(st.integers(2, 8))
def test_every_player_plays_each_other_once_and_once_a_round_at_most(count):
    players = list(range(count))
    rounds = round_robin(players)
    pairs = [frozenset(pair) for one in rounds for pair in one]
    assert sorted(map(sorted, pairs)) == sorted(
        map(sorted, map(frozenset, itertools.combinations(players, 2)))
    )
    for one in rounds:
        seated = [p for pair in one for p in pair]
        assert len(seated) == len(set(seated))


def test_standings_order_by_match_wins_first():
    results = [
        Result("a", "b", "a", 5, 0),
        Result("a", "c", "c", 4, 5),
        Result("c", "b", "c", 5, 1),
    ]
    table = standings(["a", "b", "c"], results)
    assert [(row.player, row.wins, row.difference) for row in table] == [
        ("c", 2, 5),
        ("a", 1, 4),
        ("b", 0, -9),
    ]
    assert [row.place for row in table] == [1, 2, 3]


def test_level_on_wins_the_points_difference_decides():
    results = [
        Result("a", "b", "a", 5, 4),
        Result("b", "c", "b", 5, 0),
        Result("c", "a", "c", 5, 3),
    ]
    table = standings(["a", "b", "c"], results)
    assert [(row.player, row.difference) for row in table] == [("b", 4), ("a", -1), ("c", -3)]
    assert not any(row.by_head_to_head for row in table)


def test_level_on_wins_and_difference_head_to_head_decides():
    results = [
        Result("a", "b", "b", 3, 5),  # b beat a
        Result("a", "c", "a", 5, 3),
        Result("b", "d", "d", 3, 5),
        Result("c", "d", "c", 5, 3),
        Result("a", "d", "a", 5, 3),
        Result("b", "c", "b", 5, 3),
    ]
    table = standings(["a", "b", "c", "d"], results)
    # a and b: two wins, +2 each; b won their match although a is seeded higher.
    assert [(row.player, row.wins, row.difference) for row in table[:2]] == [
        ("b", 2, 2),
        ("a", 2, 2),
    ]
    assert table[0].by_head_to_head and table[1].by_head_to_head


def test_still_level_after_head_to_head_the_seed_decides():
    results = [
        Result("a", "b", "a", 1, 0),
        Result("b", "c", "b", 1, 0),
        Result("c", "a", "c", 1, 0),
    ]
    assert [row.player for row in standings(["b", "a", "c"], results)] == ["b", "a", "c"]


def test_a_result_names_one_of_its_players_as_winner():
    with pytest.raises(ValueError):
        Result("a", "b", "c")
    with pytest.raises(ValueError):
        standings(["a", "b"], [Result("a", "z", "a")])


@given(st.integers(4, 8), st.randoms(use_true_random=False))
def test_a_full_group_plays_n_times_n_minus_1_over_2_and_wins_add_up(count, rng):
    players = list(range(count))
    results = []
    for one in round_robin(players):
        for a, b in one:
            winner = rng.choice((a, b))
            loser_points = rng.randint(0, 4)
            points = (5, loser_points) if winner == a else (loser_points, 5)
            results.append(Result(a, b, winner, *points))
    table = standings(players, results)
    assert len(results) == count * (count - 1) // 2
    assert sum(row.wins for row in table) == len(results)
    assert all(row.played == count - 1 for row in table)
    assert sum(row.difference for row in table) == 0
    keys = [(row.wins, row.difference) for row in table]
    assert keys == sorted(keys, reverse=True)
