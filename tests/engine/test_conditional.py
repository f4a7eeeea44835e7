"""Forced plays, "the opponent cannot change my options", greedy bear-offs, and what the
match does with answers and plays written ahead (games.engine.conditional, match.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    ROLLS,
    Action,
    Format,
    MatchRules,
    MatchState,
    Phase,
    Position,
    advance,
    check_play,
    forced_play,
    format_play,
    greedy_bearoff_play,
    greedy_bearoff_table,
    has_contact,
    is_closed_out,
    legal_plays,
    opponent_cannot_change,
    parse_play,
)
from games.engine.errors import IllegalMove

from .helpers import ScriptedDice, at, refused, unreadable
from .strategies import dice_rolls, games_in_progress

MATCH5 = MatchRules(Format.MATCH, 5)
BEAVERS = MatchRules(Format.SESSION, beavers=True)
SINGLE = MatchRules()

# Both sides all home, nothing can meet: mine 6:3 5:3 4:3 3:2 2:2 1:2.
ALL_HOME_RACE = Position.from_position_id("290NAADb7g4AAA")
# Mine 8:2 6:4 5:3 4:3 3:3; theirs on my 12, 17, 19, 20, 21: a race.
RACE = Position.from_position_id("uHsOBgDc3TMAAA")
# The same but one of theirs still stands on my 7-point, behind my 8-point pair.
CONTACT = Position.from_position_id("uHsegADc3TMAAA")
# My home board closed (two on each of 1-6), three on 13; one of theirs on the bar.
CLOSED_OUT = Position.from_position_id("3L0HAEDbtgEHAA")
# The same with my 6-point a blot: they may enter there and hit.
BAR_OPEN = Position.from_position_id("3L0HAEDbtoAHAA")
# Bearing off: mine 6:2 5:3 3:2 1:1, theirs far away.
BEAROFF = Position.from_position_id("+L4PAACZGwAAAA")
# My last checker on 24 behind their closed 19-23; I bear no choice with 6-5.
ONE_WAY_OUT = Position.from_position_id("tm0AAD7g/wcAIA")


def steps(position: Position, dice: tuple[int, int], text: str) -> tuple[tuple[int, int], ...]:
    return tuple(parse_play(position, dice, text))


# -- forced plays -------------------------------------------------------------


def test_a_roll_with_one_resulting_position_is_a_forced_play():
    assert format_play(ONE_WAY_OUT, forced_play(ONE_WAY_OUT, (6, 5))) == "24/13"


def test_the_two_orders_of_one_checker_are_one_forced_play():
    last = Position.from_points({24: 1}, {3: 15})
    play = forced_play(last, (6, 5))
    assert play is not None and format_play(last, play) == "24/13"
    assert last.apply(play) == last.apply(((24, 19), (19, 13)))


def test_a_roll_with_a_choice_is_no_forced_play():
    assert forced_play(Position.initial(), (6, 5)) is None
    assert forced_play(ONE_WAY_OUT, (1, 1)) is None  # 24/23(4)... and 6/5 etc.


def test_a_roll_that_cannot_be_played_is_no_forced_play():
    closed_out = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    assert legal_plays(closed_out, (6, 5)) == []
    assert forced_play(closed_out, (6, 5)) is None


@settings(max_examples=200, deadline=None)
@given(st.data(), dice_rolls)
def test_a_forced_play_is_the_only_legal_play_when_there_is_one(data, dice):
    position = data.draw(games_in_progress())
    found = legal_plays(position, dice)
    play = forced_play(position, dice)
    if len(found) == 1:
        assert play == found[0]
    else:
        assert play is None


# -- the opponent cannot change my options -------------------------------------


def test_a_race_with_contact_broken_cannot_be_changed_by_the_opponent():
    assert not has_contact(RACE) and opponent_cannot_change(RACE)
    assert not has_contact(ALL_HOME_RACE) and opponent_cannot_change(ALL_HOME_RACE)


def test_one_of_theirs_behind_my_checkers_keeps_contact():
    assert has_contact(CONTACT) and not opponent_cannot_change(CONTACT)
    assert has_contact(Position.initial()) and not opponent_cannot_change(Position.initial())


def test_the_opponent_on_the_bar_against_my_closed_board_cannot_change_anything():
    assert has_contact(CLOSED_OUT) and is_closed_out(CLOSED_OUT)
    assert opponent_cannot_change(CLOSED_OUT)


def test_the_opponent_on_the_bar_against_an_open_point_can_enter_and_hit():
    assert not is_closed_out(BAR_OPEN) and not opponent_cannot_change(BAR_OPEN)
    # They enter on my 6-point (their 19) with a 6 and hit my blot there.
    them = BAR_OPEN.flip()
    assert any(
        them.apply(play).me[OFF] == 0 and them.apply(play).them[BAR]
        for play in legal_plays(them, (6, 1))
    )


def test_a_finished_game_has_no_next_turn_to_protect():
    done = Position.from_points({}, {6: 15})
    assert not opponent_cannot_change(done)


def _my_options(position: Position) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """For each roll: my checkers after every legal play, and whether a play hits."""
    options = {}
    for roll in ROLLS:
        ends = sorted({position.apply(play).me for play in legal_plays(position, roll)})
        hits = {position.apply(play).them[BAR] for play in legal_plays(position, roll)}
        options[roll] = (ends, hits - {position.them[BAR]})
    return options


@st.composite
def races(draw) -> Position:
    """Contact broken: my checkers below `split`, theirs (on my numbering) from it up."""
    split = draw(st.integers(2, 24))
    mine = draw(st.lists(st.integers(0, split - 1), min_size=15, max_size=15))
    theirs = draw(st.lists(st.integers(0, 25 - split), min_size=15, max_size=15))
    me, them = [0] * 26, [0] * 26
    for point in mine:
        me[point] += 1
    for point in theirs:
        them[point] += 1
    for side in (me, them):  # one checker on the board each: the game goes on
        if side[OFF] == CHECKERS_PER_SIDE:
            side[OFF], side[1] = 14, 1
    return Position(tuple(me), tuple(them))


@st.composite
def closeouts(draw) -> Position:
    """My home board closed; at least one of theirs on the bar, the rest where I am not."""
    me = [0] * 26
    for point in range(1, 7):
        me[point] = 2
    for point in draw(st.lists(st.integers(0, 24), min_size=3, max_size=3)):
        me[point] += 1
    free = [k for k in range(26) if k in (OFF, BAR) or not me[25 - k]]
    them = [0] * 26
    them[BAR] = 1
    for point in draw(st.lists(st.sampled_from(free), min_size=14, max_size=14)):
        them[point] += 1
    return Position(tuple(me), tuple(them))


@settings(max_examples=40, deadline=None)
@given(st.one_of(races(), closeouts()), dice_rolls, st.data())
def test_no_opponent_play_changes_my_options_when_the_predicate_holds(position, roll, data):
    """The definition itself: whatever they roll and play, my next turn is the same."""
    assert opponent_cannot_change(position)
    mine = _my_options(position)
    them = position.flip()
    plays = legal_plays(them, roll) or [()]
    for play in data.draw(st.lists(st.sampled_from(plays), min_size=1, max_size=3)):
        after = them.apply(play).flip()
        assert _my_options(after) == mine
        # So a play written now for any roll is still legal then.
        for my_roll in ROLLS[::4]:
            for written in legal_plays(position, my_roll)[:3]:
                assert check_play(after, my_roll, written).me == position.apply(written).me


# -- greedy bear-off -------------------------------------------------------------


def test_the_greedy_table_has_one_play_for_each_of_the_21_rolls():
    table = dict(greedy_bearoff_table(BEAROFF))
    assert sorted(table) == sorted(ROLLS) and len(table) == 21
    words = {roll: format_play(BEAROFF, play) for roll, play in table.items()}
    assert words[(6, 6)] == "6/off(2) 5/off(2)"
    assert words[(6, 5)] == "6/off 5/off"
    assert words[(1, 1)] == "3/off 1/off"  # 3/2/1/off and 1/off: two off
    assert words[(4, 4)] == "6/2 5/1(3)"  # nothing can come off: fill the low points


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=15, max_size=15), dice_rolls)
def test_the_greedy_play_bears_off_as_many_as_any_legal_play(points, roll):
    me = [0] * 26
    for point in points:
        me[point] += 1
    if me[OFF] == CHECKERS_PER_SIDE:
        me[OFF], me[6] = 14, 1
    position = Position(tuple(me), Position.from_points({}, {6: 15}).them)
    play = greedy_bearoff_play(position, roll)
    found = legal_plays(position, roll)
    most = max((position.apply(p).me[OFF] for p in found), default=position.me[OFF])
    assert position.apply(play).me[OFF] == most
    assert play in found or (play == () and not found)


def test_greedy_bear_off_needs_every_checker_at_home():
    with pytest.raises(IllegalMove) as info:
        greedy_bearoff_table(RACE)
    assert info.value.code == "not_bearing_off"


# -- the match: a written answer to the opponent's double ------------------------------


def test_a_written_take_is_played_as_soon_as_the_opponent_doubles():
    state = at(MATCH5, side=0).apply(Action("cond_answer", 1, reason="take"))
    assert state.cube_answers == (None, "take") and state.phase is Phase.ROLL
    state = state.apply(Action("double", 0))
    assert state.phase is Phase.DOUBLED and state.turn == 1
    # The take, then the doubler's roll: holding no cube now, it may not redouble.
    state, done = advance(state, ScriptedDice((6, 5)))
    assert done == [Action("take", 1, reason="conditional"), Action("roll", 0, (6, 5))]
    assert (state.phase, state.turn, state.cube_value, state.cube_owner) == (Phase.MOVE, 0, 2, 1)
    assert state.cube_answers == (None, None)


def test_a_written_pass_ends_the_game_at_the_cube_before_the_double():
    state = at(MATCH5, side=0).apply(Action("cond_answer", 1, reason="drop"))
    state, done = advance(state.apply(Action("double", 0)), ScriptedDice())
    assert done[0] == Action("drop", 1, reason="conditional")
    assert state.games[-1].points == 1 and state.games[-1].winner == 0


def test_a_written_beaver_redoubles_and_the_doubler_is_asked():
    state = at(BEAVERS, side=0).apply(Action("cond_answer", 1, reason="beaver"))
    state, done = advance(state.apply(Action("double", 0)), ScriptedDice())
    assert done == [Action("beaver", 1, reason="conditional")]
    assert state.phase is Phase.DOUBLED and state.turn == 0 and state.beaver_pending
    assert state.planned_action() is None  # the beavered doubler answers in person


def test_a_beaver_cannot_be_written_where_beavers_are_not_played():
    refusal = refused(at(MATCH5, side=0), Action("cond_answer", 1, reason="beaver"))
    assert refusal.code == "beaver_not_allowed"


def test_an_answer_is_take_drop_or_beaver():
    assert unreadable(at(MATCH5), Action("cond_answer", 1, reason="maybe")).code == "bad_action"


def test_the_mover_may_write_the_answer_on_their_own_turn_before_ending_it():
    state = at(MATCH5, side=1).apply(Action("roll", 1, (6, 5)))
    state = state.apply(Action("cond_answer", 1, reason="take"))
    state = state.apply(Action("play", 1, play=((24, 18), (18, 13))))
    state, done = advance(state.apply(Action("double", 0)), ScriptedDice((2, 1)))
    assert done[0] == Action("take", 1, reason="conditional")


def test_the_written_answer_expires_when_the_opponent_rolls_instead():
    state = at(MATCH5, side=0).apply(Action("cond_answer", 1, reason="take"))
    state = state.apply(Action("roll", 0, (6, 5)))
    assert state.cube_answers == (None, None)


def test_no_answer_can_be_written_when_the_opponent_may_not_double():
    owner = at(MATCH5, side=0, cube_value=2, cube_owner=1)
    assert refused(owner, Action("cond_answer", 1, reason="take")).code == "no_double_ahead"
    crawford = at(MATCH5, side=0, crawford_game=True)
    assert refused(crawford, Action("cond_answer", 1, reason="take")).code == "no_double_ahead"
    assert refused(at(SINGLE), Action("cond_answer", 1, reason="take")).code == "no_double_ahead"
    # After the opponent rolled, their chance to double this turn is gone.
    rolled = at(MATCH5, side=0).apply(Action("roll", 0, (6, 5)))
    assert refused(rolled, Action("cond_answer", 1, reason="take")).code == "no_double_ahead"


def test_a_cleared_answer_leaves_the_double_to_the_player():
    state = at(MATCH5, side=0).apply(Action("cond_answer", 1, reason="take"))
    state = state.apply(Action("cond_answer", 1))
    assert state.cube_answers == (None, None)
    state, done = advance(state.apply(Action("double", 0)), ScriptedDice())
    assert done == [] and state.phase is Phase.DOUBLED


def test_a_cube_turned_since_the_answer_was_written_clears_it():
    # Side 0 writes a take for side 1's next double, then doubles itself.
    state = at(MATCH5, side=0).apply(Action("cond_answer", 0, reason="take"))
    state = state.apply(Action("double", 0)).apply(Action("take", 1))
    assert state.cube_answers == (None, None) and state.cube_owner == 1


# -- the match: conditional plays ------------------------------------------------------


def _race(side_to_play: int = 1) -> MatchState:
    """RACE from side 0's view, side 1 to play (side 0 just moved)."""
    return at(MATCH5, side=side_to_play, position=RACE.flip())


def test_written_plays_are_played_for_the_roll_that_comes():
    written = steps(RACE, (6, 5), "8/2 8/3")
    state = _race().apply(Action("cond_plays", 0, table=(((6, 5), written),)))
    assert state.play_tables[0] == (((6, 5), written),)
    state = state.apply(Action("roll", 1, (2, 1)))
    state = state.apply(Action("play", 1, play=state.legal_plays()[0]))
    # Side 0 gave up doubling on this turn: the table rolls and plays for it.
    assert state.needs_auto_roll()
    state, done = advance(state, ScriptedDice((5, 6)))
    assert done == [
        Action("roll", 0, (5, 6)),
        Action("play", 0, play=written, reason="conditional"),
    ]
    assert state.turn == 1 and state.play_tables == (None, None)


def test_a_roll_left_out_of_the_table_is_played_by_hand():
    written = steps(RACE, (6, 5), "8/2 8/3")
    state = _race().apply(Action("cond_plays", 0, table=(((6, 5), written),)))
    state = state.apply(Action("roll", 1, (2, 1)))
    state = state.apply(Action("play", 1, play=state.legal_plays()[0]))
    state, done = advance(state, ScriptedDice((3, 1)))
    assert done == [Action("roll", 0, (3, 1))] and state.phase is Phase.MOVE
    state = state.apply(Action("play", 0, play=state.legal_plays()[0]))
    assert state.play_tables == (None, None)  # written for one turn only


def test_a_written_play_that_is_not_legal_when_its_turn_comes_is_dropped():
    # A table written for RACE, found in front of another position (a stored state).
    state = at(MATCH5, side=0, phase=Phase.MOVE, dice=(6, 5), position=CONTACT)
    state = replace(state, play_tables=((((6, 5), ((6, 0), (5, 0))),), None))
    with pytest.raises(IllegalMove):
        check_play(CONTACT, (6, 5), ((6, 0), (5, 0)))
    assert state.planned_action() is None
    state, done = advance(state, ScriptedDice())
    assert done == [] and state.phase is Phase.MOVE  # the player is asked as usual


def test_plays_cannot_be_written_while_the_opponent_can_change_them():
    state = at(MATCH5, side=1, position=CONTACT.flip())
    refusal = refused(state, Action("cond_plays", 0, table=()))
    assert refusal.code == "opponent_can_change"
    # Nor by the side on roll for its own current turn.
    assert refused(_race(), Action("cond_plays", 1, table=())).code == "opponent_can_change"


def test_a_written_play_must_be_legal_for_its_roll():
    bad = (((6, 5), ((8, 2), (8, 2))),)
    assert refused(_race(), Action("cond_plays", 0, table=bad)).code == "illegal_play"


def test_the_closed_out_opponent_passes_and_the_written_play_follows():
    state = at(MATCH5, side=1, position=CLOSED_OUT.flip())
    written = steps(CLOSED_OUT, (6, 5), "13/7 13/8")
    state = state.apply(Action("cond_plays", 0, table=(((6, 5), written),)))
    state, done = advance(state.apply(Action("roll", 1, (3, 3))), ScriptedDice((6, 5)))
    assert [a.kind for a in done] == ["roll", "play"] and done[-1].play == written
    assert done[-1].reason == "conditional"


def test_the_greedy_table_is_a_valid_written_table():
    state = at(MATCH5, side=1, position=ALL_HOME_RACE.flip())
    table = greedy_bearoff_table(ALL_HOME_RACE)
    state = state.apply(Action("cond_plays", 0, table=table))
    assert state.play_tables[0] == tuple(sorted(table))


# -- forced plays in the match ---------------------------------------------------------


def test_a_forced_play_is_made_only_for_the_sides_that_asked():
    state = at(SINGLE, side=0, position=ONE_WAY_OUT)
    rolled = state.apply(Action("roll", 0, (6, 5)))
    assert advance(rolled, ScriptedDice())[1] == []
    after, done = advance(rolled, ScriptedDice((2, 1)), forced_for=(0,))
    assert done[0] == Action("play", 0, play=((24, 18), (18, 13)), reason="forced")
    assert after.turn == 1 and done[1] == Action("roll", 1, (2, 1))


# -- records ------------------------------------------------------------------------------


def test_a_match_with_written_actions_replays_to_the_same_state_through_json():
    rules = MATCH5
    state = MatchState.new(rules)
    dice = ScriptedDice((3, 1), (6, 5), (4, 2), (2, 1))
    recorded: list[Action] = []

    def do(action: Action | None = None, forced_for: tuple[int, ...] = ()) -> None:
        nonlocal state
        if action is not None:
            state = state.apply(action)
            assert state.last_action is not None
            recorded.append(state.last_action)
        state, done = advance(state, dice, forced_for=forced_for)
        recorded.extend(done)

    do()  # the opening 3-1: side 0 starts
    do(Action("play", 0, play=((8, 5), (6, 5))))
    do(Action("cond_answer", 0, reason="take"))
    # Side 0's written take is played at once; side 1 may not redouble, the table rolls.
    do(Action("double", 1))
    do(Action("play", 1, play=state.legal_plays()[0]))
    kinds = [str(a.kind) for a in recorded]
    assert "cond_answer" in kinds and ("take", "conditional") in [
        (str(a.kind), a.reason) for a in recorded
    ]
    as_json = json.loads(json.dumps([a.to_json() for a in recorded]))
    replayed = MatchState.replay(rules, [Action.from_json(a) for a in as_json])
    assert replayed == state
    assert MatchState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_a_play_table_survives_the_json_of_the_state_and_of_the_action():
    written = steps(RACE, (6, 5), "8/2 8/3")
    state = _race().apply(Action("cond_plays", 0, table=(((6, 5), written),)))
    assert MatchState.from_json(json.loads(json.dumps(state.to_json()))) == state
    action = state.last_action
    assert action is not None
    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action


def test_a_state_stored_before_conditional_actions_reads_with_none_written():
    data = at(MATCH5).to_json()
    del data["cube_answers"], data["play_tables"]
    state = MatchState.from_json(data)
    assert state.cube_answers == (None, None) and state.play_tables == (None, None)
