"""One test per rule of the match state machine, each in the exact situation it is about."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from games.engine import Action, Format, MatchRules, MatchState, Phase, Position, WinKind, advance

from .helpers import ScriptedDice, at, refused, unreadable

SINGLE = MatchRules()
MATCH5 = MatchRules(Format.MATCH, 5)
SESSION = MatchRules(Format.SESSION)

# Side on roll bears off its last checker with any roll; the other side has
# borne off nothing, and nothing of theirs stands in the winner's home board.
LAST_CHECKER = Position.from_points({1: 1}, {13: 15})
# The same, with one of theirs still in the winner's home board (their 20 = my 5).
LAST_CHECKER_BACKGAMMON = Position.from_points({1: 1}, {13: 14, 20: 1})
# The same, but the loser has already borne one checker off.
LAST_CHECKER_SINGLE = Position.from_points({1: 1}, {13: 14})
# Side on roll has a checker on the bar against a closed home board.
CLOSED_OUT = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
# Both sides have a checker on the bar against the other's closed home board.
MUTUAL_CLOSEOUT = Position.from_points(
    {25: 1, 13: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2},
    {25: 1, 13: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2},
)


def bear_off_last(state: MatchState) -> MatchState:
    """Side on turn rolls 2-1 and bears off the last checker."""
    side = state.turn
    state = state.apply(Action("roll", side, (2, 1)))
    return state.apply(Action("play", side, play=state.legal_plays()[0]))


# -- rules --------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"format": Format.MATCH, "length": 0},
        {"format": Format.MATCH, "length": 26},
        {"format": Format.SINGLE, "length": 3},
        {"format": Format.MATCH, "length": 5, "auto_doubles": True},
        {"format": Format.MATCH, "length": 5, "beavers": True},
        {"format": Format.MATCH, "length": 5, "jacoby": True},
        {"format": Format.SINGLE, "jacoby": True},
        {"format": Format.SESSION, "auto_doubles": True, "max_auto_doubles": 0},
        {"format": Format.SESSION, "max_auto_doubles": 7},
        {"format": "chess"},
        {"format": Format.MATCH, "length": "5"},
    ],
)
def test_rules_refuse_what_the_formats_do_not_offer(kwargs):
    with pytest.raises(ValueError):
        MatchRules(**kwargs)


def test_rules_round_trip_through_json_and_accept_the_format_as_text():
    rules = MatchRules("session", auto_doubles=True, max_auto_doubles=2, beavers=True, jacoby=True)
    assert rules.format is Format.SESSION
    assert MatchRules.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    assert MatchRules.from_json({"format": "match", "length": 25}).length == 25


# -- opening ------------------------------------------------------------


def test_the_higher_opening_die_starts_and_plays_both_numbers():
    state = MatchState.new(MATCH5).apply(Action("roll", 0, (2, 5)))
    assert (state.phase, state.turn, state.on_roll, state.dice) == (Phase.MOVE, 1, 1, (2, 5))
    state = MatchState.new(MATCH5).apply(Action("roll", 0, (6, 1)))
    assert (state.turn, state.dice) == (0, (6, 1))


def test_a_tied_opening_rolls_again_without_touching_the_cube():
    state = MatchState.new(SESSION).apply(Action("roll", 0, (4, 4)))
    assert state.phase is Phase.OPENING
    assert (state.cube_value, state.auto_doubles_used) == (1, 0)
    assert state.needs_auto_roll()


def test_the_opening_roll_is_the_tables_recorded_as_side_0():
    assert refused(MatchState.new(SINGLE), Action("roll", 1, (3, 1))).code == "not_your_turn"
    assert "roll" not in MatchState.new(SINGLE).allowed_actions(0)


def test_advance_rolls_the_opening_until_the_dice_differ():
    state, actions = advance(MatchState.new(SINGLE), ScriptedDice((3, 3), (1, 1), (5, 2)))
    assert actions == [
        Action("roll", 0, (3, 3)),
        Action("roll", 0, (1, 1)),
        Action("roll", 0, (5, 2)),
    ]
    assert (state.phase, state.turn) == (Phase.MOVE, 0)
    assert MatchState.replay(SINGLE, actions) == state


# -- automatic doubles ---------------------------------------------------


def test_an_automatic_double_doubles_the_centred_cube_at_most_once_by_default():
    rules = MatchRules(Format.SESSION, auto_doubles=True)
    state, actions = advance(MatchState.new(rules), ScriptedDice((2, 2), (6, 6), (4, 1)))
    assert len(actions) == 3
    assert (state.cube_value, state.cube_owner, state.auto_doubles_used) == (2, None, 1)


def test_a_room_may_allow_more_automatic_doubles_and_the_cube_stays_centred():
    rules = MatchRules(Format.SESSION, auto_doubles=True, max_auto_doubles=3)
    dice = ScriptedDice((2, 2), (6, 6), (3, 3), (5, 5), (1, 4))
    state, _ = advance(MatchState.new(rules), dice)
    assert (state.cube_value, state.cube_owner, state.auto_doubles_used) == (8, None, 3)
    assert state.turn == 1
    # The next game starts from a plain cube again.
    state = replace(state, phase=Phase.GAME_OVER).apply(Action("next_game", 0))
    assert (state.cube_value, state.auto_doubles_used) == (1, 0)


def test_after_an_automatic_double_either_player_may_still_double():
    rules = MatchRules(Format.SESSION, auto_doubles=True)
    state = MatchState.new(rules).apply(Action("roll", 0, (5, 5)))
    state = at(rules, side=1, cube_value=state.cube_value, auto_doubles_used=1)
    assert state.may_double(1)
    state = state.apply(Action("double", 1)).apply(Action("take", 0))
    assert (state.cube_value, state.cube_owner) == (4, 0)


# -- doubling -----------------------------------------------------------


def test_doubling_after_rolling_is_refused():
    state = at(MATCH5).apply(Action("roll", 0, (6, 5)))
    assert refused(state, Action("double", 0)).code == "already_rolled"


def test_partida_simple_has_no_cube_and_the_table_rolls():
    state = at(SINGLE)
    assert refused(state, Action("double", 0)).code == "no_cube"
    assert not state.may_double(0)
    assert state.needs_auto_roll()


def test_only_the_owner_of_the_cube_may_redouble():
    state = at(MATCH5, side=0, cube_value=2, cube_owner=1)
    assert refused(state, Action("double", 0)).code == "cannot_double"
    assert state.needs_auto_roll()  # la mesa tira por ti
    state = at(MATCH5, side=1, cube_value=2, cube_owner=1)
    assert state.may_double(1) and not state.needs_auto_roll()


def test_the_cube_stops_at_64():
    state = at(SESSION, cube_value=64, cube_owner=0)
    assert refused(state, Action("double", 0)).code == "cube_max"
    assert at(SESSION, cube_value=32, cube_owner=0).may_double(0)


def test_a_taken_double_belongs_to_the_taker_and_the_doubler_rolls_without_the_cube():
    state = at(MATCH5).apply(Action("double", 0))
    assert (state.phase, state.turn, state.on_roll) == (Phase.DOUBLED, 1, 0)
    assert state.allowed_actions(1) == {"take", "drop", "forfeit"}
    state = state.apply(Action("take", 1))
    assert (state.cube_value, state.cube_owner) == (2, 1)
    assert (state.phase, state.turn) == (Phase.ROLL, 0)
    assert not state.may_double(0) and state.needs_auto_roll()


def test_a_dropped_redouble_scores_the_value_before_the_double():
    state = at(MATCH5, side=1, cube_value=4, cube_owner=1, position=LAST_CHECKER)
    state = state.apply(Action("double", 1)).apply(Action("drop", 0))
    assert state.score == (0, 4)
    assert state.games[-1].ending == "drop"
    assert (state.games[-1].points, state.games[-1].cube_value) == (4, 4)
    assert state.phase is Phase.GAME_OVER


def test_taking_or_dropping_with_nothing_offered_is_refused():
    state = at(MATCH5)
    for kind in ("take", "drop", "beaver"):
        assert refused(state, Action(kind, 1)).code == "nothing_offered"
    for kind in ("resign_accept", "resign_decline"):
        assert refused(state, Action(kind, 1)).code == "nothing_offered"


def test_acting_out_of_turn_is_refused():
    state = at(MATCH5, side=0)
    assert refused(state, Action("double", 1)).code == "not_your_turn"
    assert refused(state, Action("roll", 1, (3, 2))).code == "not_your_turn"
    state = state.apply(Action("double", 0))
    assert refused(state, Action("take", 0)).code == "not_your_turn"
    state = at(MATCH5).apply(Action("roll", 0, (3, 1)))
    assert refused(state, Action("play", 1, play=((8, 5), (6, 5)))).code == "not_your_turn"


# -- beavers ------------------------------------------------------------


BEAVERS = MatchRules(Format.SESSION, beavers=True)


def test_a_beaver_keeps_the_cube_with_the_taker_at_four_times():
    state = at(BEAVERS).apply(Action("double", 0)).apply(Action("beaver", 1))
    # The doubler now answers the beaver.
    assert (state.phase, state.turn, state.on_roll, state.cube_value) == (Phase.DOUBLED, 0, 0, 2)
    assert "beaver" not in state.allowed_actions(0)
    state = state.apply(Action("take", 0))
    assert (state.cube_value, state.cube_owner) == (4, 1)
    assert (state.phase, state.turn) == (Phase.ROLL, 0)
    assert not state.may_double(0)


def test_a_dropped_beaver_scores_the_doubled_cube_for_the_beaverer():
    state = at(BEAVERS).apply(Action("double", 0)).apply(Action("beaver", 1))
    state = state.apply(Action("drop", 0))
    assert state.score == (0, 2)
    assert state.games[-1].winner == 1


def test_a_beaver_needs_the_room_option_and_is_never_beavered_back():
    state = at(SESSION).apply(Action("double", 0))
    assert refused(state, Action("beaver", 1)).code == "beaver_not_allowed"
    state = at(BEAVERS).apply(Action("double", 0)).apply(Action("beaver", 1))
    assert refused(state, Action("beaver", 0)).code == "beaver_not_allowed"
    # A beaver of a double to 64 would take the cube to 128.
    state = at(BEAVERS, cube_value=32, cube_owner=0).apply(Action("double", 0))
    assert refused(state, Action("beaver", 1)).code == "beaver_not_allowed"


# -- Crawford -----------------------------------------------------------


def test_the_first_game_after_a_side_reaches_match_point_is_played_without_the_cube():
    state = at(MATCH5, position=LAST_CHECKER_SINGLE, cube_value=2, cube_owner=1, score=(2, 1))
    state = bear_off_last(state)  # a single game at 2: side 0 reaches 4 of 5
    assert state.score == (4, 1) and not state.crawford_game
    state = state.apply(Action("next_game", 1))
    assert state.crawford_game and not state.post_crawford
    state = state.apply(Action("roll", 0, (3, 1)))
    state = replace(state, phase=Phase.ROLL, dice=None)
    assert refused(state, Action("double", state.turn)).code == "crawford"
    assert state.needs_auto_roll()


def test_after_the_crawford_game_the_trailer_may_double_again():
    state = at(MATCH5, side=1, position=LAST_CHECKER, crawford_game=True, score=(4, 1))
    state = bear_off_last(state)  # side 1 wins the Crawford game: 4-2
    assert state.games[-1].crawford and state.post_crawford
    state = state.apply(Action("next_game", 0))
    assert not state.crawford_game
    state = at(MATCH5, side=1, score=state.score, post_crawford=True)
    assert state.may_double(1)
    assert state.apply(Action("double", 1)).phase is Phase.DOUBLED


def test_a_one_point_match_has_no_crawford_game():
    state = MatchState.new(MatchRules(Format.MATCH, 1))
    assert not state.crawford_game


# -- Jacoby -------------------------------------------------------------


def test_jacoby_counts_a_gammon_single_while_the_cube_is_centred():
    rules = MatchRules(Format.SESSION, jacoby=True)
    state = bear_off_last(at(rules, position=LAST_CHECKER))
    assert state.games[-1].kind is WinKind.GAMMON
    assert state.score == (1, 0)


def test_jacoby_lets_a_gammon_count_once_the_cube_was_turned():
    rules = MatchRules(Format.SESSION, jacoby=True)
    state = bear_off_last(at(rules, position=LAST_CHECKER, cube_value=2, cube_owner=1))
    assert state.score == (4, 0)


def test_an_automatic_double_does_not_turn_the_cube_for_jacoby():
    rules = MatchRules(Format.SESSION, auto_doubles=True, jacoby=True)
    state = at(rules, position=LAST_CHECKER, cube_value=2, auto_doubles_used=1)
    assert bear_off_last(state).score == (2, 0)


def test_without_jacoby_and_in_a_match_a_gammon_counts_double():
    assert bear_off_last(at(SESSION, position=LAST_CHECKER)).score == (2, 0)
    assert bear_off_last(at(MATCH5, position=LAST_CHECKER)).score == (2, 0)
    assert bear_off_last(at(MATCH5, position=LAST_CHECKER_BACKGAMMON)).score == (3, 0)
    assert bear_off_last(at(MATCH5, position=LAST_CHECKER_SINGLE)).score == (1, 0)


# -- resigning ----------------------------------------------------------


@pytest.mark.parametrize("value, points", [(1, 4), (2, 8), (3, 12)])
def test_an_accepted_resignation_scores_its_value_times_the_cube(value, points):
    state = at(SESSION, side=1, cube_value=4, cube_owner=1)
    state = state.apply(Action("resign_offer", 1, value=value))
    assert (state.phase, state.turn, state.resign_value) == (Phase.RESIGN_OFFERED, 0, value)
    state = state.apply(Action("resign_accept", 0))
    assert state.score == (points, 0)
    assert (state.games[-1].ending, state.games[-1].kind) == ("resign", WinKind(value))


def test_a_declined_resignation_plays_on_where_it_stopped():
    state = at(MATCH5).apply(Action("roll", 0, (6, 4)))
    offered = state.apply(Action("resign_offer", 0, value=2))
    back = offered.apply(Action("resign_decline", 1))
    assert back == replace(state, resign_declined=True, last_action=Action("resign_decline", 1))
    assert (back.phase, back.dice) == (Phase.MOVE, (6, 4))


def test_a_declined_resignation_is_offered_again_only_on_the_next_turn():
    state = at(MATCH5).apply(Action("resign_offer", 0, value=1))
    state = state.apply(Action("resign_decline", 1))
    assert "resign_offer" not in state.allowed_actions(0)
    assert refused(state, Action("resign_offer", 0, value=2)).code == "wrong_phase"
    state = state.apply(Action("roll", 0, (6, 4)))
    assert refused(state, Action("resign_offer", 0, value=3)).code == "wrong_phase"
    state = state.apply(Action("play", 0, play=((24, 18), (18, 14))))
    # The opponent's turn is their own: they may offer.
    assert "resign_offer" in state.allowed_actions(1)
    state = state.apply(Action("roll", 1, (3, 1)))
    state = state.apply(Action("play", 1, play=((8, 5), (6, 5))))
    assert "resign_offer" in state.allowed_actions(0)
    state = state.apply(Action("resign_offer", 0, value=1))
    assert (state.phase, state.turn) == (Phase.RESIGN_OFFERED, 1)


def test_a_resignation_offers_a_single_gammon_or_backgammon_only():
    assert unreadable(at(MATCH5), Action("resign_offer", 0, value=4)).code == "bad_action"
    assert unreadable(at(MATCH5), Action("resign_offer", 0)).code == "bad_action"


def test_resigning_the_partida_simple_loses_it():
    state = at(SINGLE).apply(Action("resign_offer", 0, value=3))
    state = state.apply(Action("resign_accept", 1))
    assert (state.phase, state.winner, state.score) == (Phase.MATCH_OVER, 1, (0, 1))


@pytest.mark.parametrize("reason", ["resign", "absence"])
def test_a_forfeit_loses_the_whole_match_at_once(reason):
    state = at(MATCH5, side=0, score=(3, 0)).apply(Action("forfeit", 0, reason=reason))
    assert (state.phase, state.winner, state.end_reason) == (Phase.MATCH_OVER, 1, reason)
    assert state.games[-1].ending == "forfeit" and state.score == (3, 0)
    assert refused(state, Action("next_game", 0)).code == "match_over"


def test_a_forfeit_needs_its_reason():
    assert unreadable(at(SINGLE), Action("forfeit", 0)).code == "bad_action"


# -- scoring and the end of a match --------------------------------------


def test_the_match_ends_when_a_side_reaches_the_length():
    state = at(MATCH5, score=(3, 4), position=LAST_CHECKER)
    state = bear_off_last(state)
    assert (state.phase, state.winner, state.score) == (Phase.MATCH_OVER, 0, (5, 4))
    assert state.allowed_actions(0) == frozenset() and state.away() == (0, 1)


def test_a_game_over_waits_for_next_game_and_only_a_session_may_stop():
    state = bear_off_last(at(MATCH5, position=LAST_CHECKER))
    assert state.phase is Phase.GAME_OVER
    assert refused(state, Action("roll", 0, (3, 1))).code == "game_over"
    assert refused(state, Action("stop", 0)).code == "not_session"
    state = state.apply(Action("next_game", 1))
    assert (state.phase, state.game_number, state.position) == (
        Phase.OPENING,
        2,
        Position.initial(),
    )


def test_stopping_a_match_in_the_middle_of_a_game_is_refused_as_not_a_session():
    assert refused(at(MATCH5), Action("stop", 0)).code == "not_session"


def test_a_session_stops_after_a_game_with_the_leader_as_winner():
    state = bear_off_last(at(SESSION, position=LAST_CHECKER_SINGLE, side=1))
    assert "stop" in state.allowed_actions(0)
    state = state.apply(Action("stop", 0))
    assert (state.phase, state.winner, state.end_reason) == (Phase.MATCH_OVER, 1, "stop")
    assert refused(at(SESSION), Action("stop", 0)).code == "wrong_phase"


# -- plays --------------------------------------------------------------


def test_a_play_that_is_not_legal_for_the_dice_is_refused_with_the_engines_code():
    state = at(MATCH5).apply(Action("roll", 0, (3, 1)))
    error = refused(state, Action("play", 0, play=((24, 20),)))
    assert error.code == "illegal_play" and error.move_code
    assert unreadable(state, Action("play", 0)).code == "bad_action"


@pytest.mark.parametrize("play", [((24.7, 18), (18, 14)), (("24", "18"), ("18", "14")), ((24,),)])
def test_a_play_is_made_of_whole_point_numbers(play):
    state = at(MATCH5).apply(Action("roll", 0, (6, 4)))
    assert unreadable(state, Action("play", 0, play=play)).code == "bad_action"


def test_a_legal_play_in_any_order_passes_the_turn():
    state = at(MATCH5).apply(Action("roll", 0, (3, 1)))
    after = state.apply(Action("play", 0, play=((6, 5), (8, 5))))
    assert (after.phase, after.turn, after.dice) == (Phase.ROLL, 1, None)
    assert after.position_for(0) == Position.initial().apply(((8, 5), (6, 5)))


def test_a_roll_with_no_legal_play_passes_the_turn_and_the_record_says_so():
    state = at(MATCH5, position=CLOSED_OUT).apply(Action("roll", 0, (6, 3)))
    assert (state.phase, state.turn, state.dice) == (Phase.ROLL, 1, None)
    assert state.last_action == Action("roll", 0, (6, 3), play=())
    assert state.position_for(0) == CLOSED_OUT
    assert at(MATCH5, position=CLOSED_OUT).apply(state.last_action) == state


def test_the_table_rolls_for_a_player_who_may_not_double_and_stops_for_one_who_may():
    state = at(MATCH5, side=0, cube_value=2, cube_owner=1, position=CLOSED_OUT)
    # Side 0 is closed out and cannot double: the table rolls, the turn passes,
    # and side 1, who owns the cube, decides for themselves.
    state, actions = advance(state, ScriptedDice((5, 5)))
    assert actions == [Action("roll", 0, (5, 5), play=())]
    assert (state.phase, state.turn) == (Phase.ROLL, 1) and state.may_double(1)


def test_the_table_does_not_roll_a_mutual_closeout_and_a_hand_roll_passes():
    # Both sides on the bar against closed home boards: no roll can change it.
    state = at(SINGLE, side=0, position=MUTUAL_CLOSEOUT)
    assert not state.needs_auto_roll()
    assert advance(state, ScriptedDice()) == (state, [])
    assert "roll" in state.allowed_actions(0)
    state = state.apply(Action("roll", 0, (6, 5)))
    assert state.last_action == Action("roll", 0, (6, 5), play=())
    assert (state.phase, state.turn, state.position) == (Phase.ROLL, 1, MUTUAL_CLOSEOUT)
    assert advance(state, ScriptedDice()) == (state, [])
    assert {"roll", "resign_offer", "forfeit"} <= state.allowed_actions(1)


def test_advance_rolls_through_a_closeout_that_one_side_can_still_break():
    # Only side 0 is shut out; side 1 plays, so the table's rolls do end.
    state = at(SINGLE, side=0, position=CLOSED_OUT)
    state, actions = advance(state, ScriptedDice((6, 3), (2, 1)))
    assert actions == [Action("roll", 0, (6, 3), play=()), Action("roll", 1, (2, 1))]
    assert (state.phase, state.turn, state.dice) == (Phase.MOVE, 1, (2, 1))


# -- persistence --------------------------------------------------------


def test_a_state_survives_a_json_round_trip():
    state = at(BEAVERS, score=(3, 7), cube_value=4, cube_owner=1, game_number=3)
    state = state.apply(Action("roll", 0, (6, 6)))
    data = json.loads(json.dumps(state.to_json()))
    assert MatchState.from_json(data) == state
    assert data["position"]["me"] == list(state.position.me)


def test_actions_survive_a_json_round_trip():
    for action in (
        Action("roll", 1, (4, 2), play=()),
        Action("play", 0, play=((24, 18), (18, 13))),
        Action("resign_offer", 1, value=2),
        Action("forfeit", 0, reason="absence"),
    ):
        assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action


def test_unknown_actions_and_finished_matches_are_refused():
    assert unreadable(at(MATCH5), Action("castle", 0)).code == "unknown_action"
    # A kind read from JSON may be a list or an object: refused, not a TypeError.
    assert unreadable(at(MATCH5), Action.from_json({"kind": ["roll"], "side": 0})).code == (
        "unknown_action"
    )
    assert unreadable(at(MATCH5), Action.from_json({"kind": {}, "side": 0})).code == (
        "unknown_action"
    )
    assert unreadable(at(MATCH5), Action("roll", 2, (1, 2))).code == "bad_action"
    assert unreadable(at(MATCH5), Action("roll", 0, (0, 7))).code == "bad_action"
