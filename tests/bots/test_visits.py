"""Counting visits to the board, and what written answers and forced plays save."""

import random

from games.bots import RandomPlayer
from games.bots.visits import (
    FORCED,
    MATCH5,
    PERSON,
    TABLE,
    WRITING,
    WRITTEN,
    Entry,
    count_visits,
    measure,
    play_match,
)
from games.engine import MatchState

NONE = frozenset({WRITTEN, FORCED})
ANSWERS = frozenset({FORCED})
BOTH = frozenset()


class CubeHappy(RandomPlayer):
    """Any legal play; doubles now and then and takes half the time (no bgsage: fast)."""

    def should_double(self, position, context, *, deadline=None):
        return self.rng.random() < 0.15

    def should_take(self, position, context, *, deadline=None):
        return self.rng.random() < 0.5


def log(*entries: tuple[int, str]) -> list[Entry]:
    return [Entry(side, 1, by) for side, by in entries]


def test_a_written_take_saves_the_taker_and_the_doubler_a_visit_each():
    # Bob plays and writes a take; Alice doubles; the take; Alice rolls and plays.
    story = log((1, PERSON), (1, WRITING), (0, PERSON), (1, WRITTEN), (0, PERSON), (0, PERSON))
    # In person: bob | alice doubles | bob takes | alice rolls and plays.
    assert count_visits(story, NONE) == 4
    assert count_visits(story, ANSWERS) == 2


def test_a_turn_the_table_plays_whole_costs_no_visit():
    # Bob plays; the table rolls for Alice and her play is forced; Bob plays again.
    story = log((1, PERSON), (0, TABLE), (0, FORCED), (1, PERSON), (1, PERSON))
    assert count_visits(story, NONE) == 3
    assert count_visits(story, BOTH) == 1  # Bob never left the board


def test_written_answers_and_forced_plays_never_add_visits_in_whole_matches():
    players = [CubeHappy(random.Random(1)), CubeHappy(random.Random(2))]
    report = measure(players, MATCH5, matches=6, seed=3)
    assert report.matches == 6 and report.games >= 6
    assert report.visits["none"] >= report.visits["answers"] >= report.visits["both"]
    assert report.written_answers_played > 0 and report.forced_plays > 0
    assert report.saved_per_game("answers") > 0
    assert "saved per game" in report.summary()


def test_the_logged_match_replays_to_a_finished_match():
    players = [CubeHappy(random.Random(4)), CubeHappy(random.Random(5))]
    state, story = play_match(players, MATCH5, seed=7)
    assert state.winner is not None and max(state.score) >= 5
    assert {entry.by for entry in story} >= {PERSON, TABLE, WRITING}
    assert isinstance(state, MatchState)


def test_the_parts_of_a_measurement_add_up():
    def part(first, matches, seed):
        players = [CubeHappy(random.Random(seed)), CubeHappy(random.Random(seed + 1))]
        return measure(players, MATCH5, matches=matches, seed=5, first=first)

    one, two = part(0, 2, 10), part(2, 3, 20)
    total = part(0, 0, 0)  # an empty report
    assert total.matches == 0
    total.add(one)
    total.add(two)
    assert total.matches == 5 and total.games == one.games + two.games
    for regime in ("none", "answers", "both"):
        assert total.visits[regime] == one.visits[regime] + two.visits[regime]
    assert total.forced_plays == one.forced_plays + two.forced_plays
    assert total.answers_written == one.answers_written + two.answers_written
    assert f"{total.visits['none']} in person" in total.summary()
