"""Replaying a match's Turn rows rebuilds its stored state exactly.

(The autouse check in conftest.py does this after every test of this package;
these tests pin the helper itself, and that it notices a changed history.)
"""

import pytest

from games import selectors, services
from games.engine import Format, IllegalAction, MatchRules, MatchState
from games.models import Turn
from tests.helpers import Persona, current_match, play_out


def two_players(rules):
    alice = Persona("alice", seat=services.room_create(rules=rules, nickname="alice"))
    bob = Persona("bob", seat=services.room_join(room=alice.seat.room, nickname="bob"))
    return alice, bob


@pytest.mark.parametrize(
    "rules",
    [
        MatchRules(),
        MatchRules(format=Format.MATCH, length=3),
        MatchRules(format=Format.SESSION, auto_doubles=True, beavers=True, jacoby=True),
    ],
    ids=["partida-simple", "match-to-3", "session"],
)
def test_a_whole_match_replays_to_its_stored_state(db, clock, dice, rules):
    alice, bob = two_players(rules)
    match = play_out(alice.seat.room, alice, bob)
    replayed = selectors.replay_match(match)
    assert replayed.to_json() == match.state
    assert replayed == MatchState.from_json(match.state)


def test_the_replay_spans_rematches_separately(db, clock, dice):
    alice, bob = two_players(MatchRules())
    first = play_out(alice.seat.room, alice, bob)
    services.rematch_offer(seat=alice.seat)
    second = services.rematch_accept(seat=bob.seat)
    assert selectors.replay_match(first).to_json() == first.state
    assert selectors.replay_match(second).to_json() == second.state
    assert selectors.replay_match(second).game_number == 1


def test_a_changed_turn_no_longer_replays(room, alice, bob):
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    match = current_match(room)
    play = Turn.objects.get(kind="play")
    play.steps = [[13, 10], [6, 5]]
    play.save()
    assert selectors.replay_match(match).to_json() != match.state
    play.steps = [[24, 20], [6, 5]]  # not a legal 3-1 at all
    play.save()
    with pytest.raises(IllegalAction):
        selectors.replay_match(match)
    play.steps = [[8, 5], [6, 5]]
    play.save()  # put history back so the autouse replay check passes


def test_each_turn_keeps_the_positions_around_it(room, alice, bob):
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    turns = list(Turn.objects.order_by("number"))
    opening, play = turns[0], turns[1]
    assert opening.position_before == "4HPwATDgc/ABMA"  # the starting position
    assert play.position_before == opening.position_after
    assert play.position_after != play.position_before
    assert all(turn.created_at for turn in turns)
