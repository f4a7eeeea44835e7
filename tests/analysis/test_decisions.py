"""Which moments of a recorded game are decisions, read off the actions with the engine."""

from games.analysis import CUBE_KINDS, match_decisions
from games.analysis.ladder import bot_game
from games.engine import Format, MatchRules, MatchState


def test_a_partida_simple_has_checker_plays_only():
    rules = MatchRules()
    actions = bot_game(rules, ("chofer", "carcelero"), seed=3)
    decisions = match_decisions(rules, actions)
    plays = [a for a in actions if a.kind == "play"]
    assert [d.kind for d in decisions] == ["play"] * len(plays)
    assert [d.play for d in decisions] == [tuple(a.play) for a in plays]
    assert all(d.context.match_length == 1 for d in decisions)  # the evaluator's 1-point match


def test_in_a_match_every_roll_that_could_have_been_a_double_is_a_cube_decision():
    rules = MatchRules(format=Format.MATCH, length=5)
    actions = bot_game(rules, ("domador", "chofer"), seed=17)
    decisions = match_decisions(rules, actions)
    state = MatchState.new(rules)
    expected = []
    for index, action in enumerate(actions):
        if action.kind == "roll" and state.may_double(action.side):
            expected.append((index, "no_double"))
        elif action.kind in ("double", "take", "drop", "play"):
            expected.append((index, action.kind))
        state = state.apply(action)
    assert [(d.index, d.kind) for d in decisions] == expected
    assert any(d.kind in CUBE_KINDS for d in decisions)
    # Seen from the decider: the score is theirs first.
    assert all(d.context.away() == (5, 5) for d in decisions)


def test_wanted_picks_the_decisions_of_one_game():
    rules = MatchRules()
    actions = bot_game(rules, ("chofer", "carcelero"), seed=3)
    every = match_decisions(rules, actions)
    some = match_decisions(rules, actions, wanted=[d.index for d in every[:5]])
    assert some == every[:5]
