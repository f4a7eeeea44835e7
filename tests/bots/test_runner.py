"""next_action: what a bot does in each phase of a match, checked against the state machine."""

from __future__ import annotations

import random
from dataclasses import replace

from games.bots import RandomPlayer, get_bot
from games.bots.runner import context_for, next_action
from games.engine import Action, Format, MatchRules, MatchState, Phase, legal_plays

from .positions import GAMMONED, HOPELESS_FOR_TAKER, RACE_DOUBLE_TAKE

SESSION = MatchRules(format=Format.SESSION)
BEAVER_SESSION = MatchRules(format=Format.SESSION, beavers=True)
MATCH_5 = MatchRules(format=Format.MATCH, length=5)


def started(rules: MatchRules) -> MatchState:
    """Side 0 won the opening with 3-1 and must play."""
    return MatchState.new(rules).apply(Action("roll", 0, dice=(3, 1)))


def on_roll(rules: MatchRules, position, side: int = 0, **changes) -> MatchState:
    """Side ``side`` to roll or double, in ``position`` seen from that side."""
    return replace(
        MatchState.new(rules),
        phase=Phase.ROLL,
        turn=side,
        on_roll=side,
        position=position,
        **changes,
    )


def test_nothing_to_do_at_the_opening_or_on_the_other_side_s_turn():
    bot = get_bot("domador", seed=1)
    assert next_action(bot, MatchState.new(SESSION), 0) is None
    assert next_action(bot, started(SESSION), 1) is None


def test_the_bot_plays_a_legal_play_that_the_state_machine_accepts():
    state = started(MatchRules())
    for name in ("domador", "empresario"):
        action = next_action(get_bot(name, seed=1), state, 0)
        assert action.kind == "play" and action.side == 0
        assert action.play in legal_plays(state.position_for(0), (3, 1))
        assert state.apply(action).phase is Phase.ROLL


def test_the_bot_rolls_when_it_may_not_double():
    state = on_roll(MatchRules(), RACE_DOUBLE_TAKE)  # partida simple: no cube at all
    assert next_action(get_bot("empresario"), state, 0) == Action("roll", 0)


def test_the_bot_rolls_instead_of_doubling_in_the_crawford_game():
    state = on_roll(MATCH_5, RACE_DOUBLE_TAKE, score=(2, 4), crawford_game=True)
    assert next_action(get_bot("empresario"), state, 0) == Action("roll", 0)


def test_the_bot_doubles_a_good_position_and_the_other_bot_takes():
    state = on_roll(SESSION, RACE_DOUBLE_TAKE)
    empresario = get_bot("empresario")
    double = next_action(empresario, state, 0)
    assert double == Action("double", 0)
    doubled = state.apply(double)
    assert doubled.phase is Phase.DOUBLED
    answer = next_action(empresario, doubled, 1)
    assert answer == Action("take", 1)
    assert doubled.apply(answer).cube_value == 2


def test_the_bot_drops_a_hopeless_double():
    doubled = on_roll(SESSION, HOPELESS_FOR_TAKER).apply(Action("double", 0))
    assert next_action(get_bot("empresario"), doubled, 1) == Action("drop", 1)


def test_the_bot_beavers_when_the_room_allows_it_and_answers_a_beaver():
    # The doubler trails the race 98-91: a beaver for money.
    doubled = on_roll(BEAVER_SESSION, RACE_DOUBLE_TAKE.flip()).apply(Action("double", 0))
    empresario = get_bot("empresario")
    beaver = next_action(empresario, doubled, 1)
    assert beaver == Action("beaver", 1)
    beavered = doubled.apply(beaver)
    answer = next_action(empresario, beavered, 0)
    assert answer.kind in ("take", "drop") and answer.side == 0
    assert beavered.apply(answer).phase in (Phase.ROLL, Phase.GAME_OVER)
    # Without beavers the same double is simply taken.
    plain = on_roll(SESSION, RACE_DOUBLE_TAKE.flip()).apply(Action("double", 0))
    assert next_action(empresario, plain, 1) == Action("take", 1)


def test_the_bot_answers_a_resignation_by_what_it_is_worth():
    gammoned = on_roll(SESSION, GAMMONED)
    single = gammoned.apply(Action("resign_offer", 0, value=1))
    backgammon = gammoned.apply(Action("resign_offer", 0, value=3))
    bot = get_bot("carcelero", seed=1)
    assert next_action(bot, single, 1) == Action("resign_decline", 1)
    assert next_action(bot, backgammon, 1) == Action("resign_accept", 1)
    assert single.apply(next_action(bot, single, 1)).phase is Phase.ROLL


def test_nothing_to_do_once_the_game_or_match_is_over():
    dropped = on_roll(SESSION, HOPELESS_FOR_TAKER).apply(Action("double", 0))
    game_over = dropped.apply(Action("drop", 1))
    assert game_over.phase is Phase.GAME_OVER
    bot = get_bot("chofer", seed=1)
    assert next_action(bot, game_over, 0) is None and next_action(bot, game_over, 1) is None
    match_over = on_roll(MatchRules(), HOPELESS_FOR_TAKER).apply(
        Action("forfeit", 1, reason="resign")
    )
    assert match_over.phase is Phase.MATCH_OVER
    assert next_action(bot, match_over, 0) is None


def test_the_context_follows_the_side_that_asks():
    state = on_roll(MATCH_5, RACE_DOUBLE_TAKE, score=(1, 3), cube_value=2, cube_owner=1)
    mine, theirs = context_for(state, 0), context_for(state, 1)
    assert (mine.score, mine.cube_owner, mine.away()) == ((1, 3), "them", (4, 2))
    assert (theirs.score, theirs.cube_owner, theirs.away()) == ((3, 1), "me", (2, 4))
    assert mine.cube_value == 2 and mine.cube_in_play
    single = context_for(on_roll(MatchRules(), RACE_DOUBLE_TAKE), 0)
    assert single.away() == (1, 1) and not single.cube_in_play
    session = context_for(on_roll(BEAVER_SESSION, RACE_DOUBLE_TAKE), 0)
    assert session.is_money and session.beavers and session.cube_owner == "centered"


def play_out(rules: MatchRules, names: tuple[str, str], seed: bytes, max_actions: int = 3000):
    """Two bots play a whole match through the state machine; returns the final state and kinds."""
    from games.engine import SeededDice, advance

    bots = [get_bot(name, seed=side) for side, name in enumerate(names)]
    dice = SeededDice(seed)
    state, kinds = MatchState.new(rules), []
    for _ in range(max_actions):
        state, _rolls = advance(state, dice)
        if state.phase is Phase.MATCH_OVER:
            return state, kinds
        if state.phase is Phase.GAME_OVER:
            state = state.apply(Action("next_game", state.turn))
            continue
        side = state.turn
        action = next_action(bots[side], state, side)
        assert action is not None, state.phase
        if action.kind == "roll":
            action = replace(action, dice=dice.roll())
        kinds.append(action.kind)
        state = state.apply(action)  # raises IllegalAction if the bot did something illegal
    raise AssertionError("the match did not end")


def test_two_bots_finish_a_match_to_three_with_the_cube_through_the_state_machine():
    rules = MatchRules(format=Format.MATCH, length=3)
    state, kinds = play_out(rules, ("chofer", "carcelero"), b"m3")
    assert state.winner in (0, 1) and max(state.score) >= 3
    assert "double" in kinds and ("take" in kinds or "drop" in kinds)


def test_two_bots_finish_a_partida_simple_without_touching_the_cube():
    state, kinds = play_out(MatchRules(), ("domador", "chofer"), b"simple")
    assert state.winner in (0, 1) and len(state.games) == 1
    assert not {"double", "take", "drop", "beaver"} & set(kinds)


class Watching(RandomPlayer):
    """Doubles, takes and beavers, writing down the deadline each cube decision was given."""

    def __init__(self) -> None:
        super().__init__(random.Random(1))
        self.seen: list[tuple[str, float | None]] = []

    def should_double(self, position, context, *, deadline=None):
        self.seen.append(("double", deadline))
        return True

    def should_take(self, position, context, *, deadline=None):
        self.seen.append(("take", deadline))
        return True

    def should_beaver(self, position, context, *, deadline=None):
        self.seen.append(("beaver", deadline))
        return False


def test_the_cube_decisions_get_the_moves_deadline_as_the_checker_play_does():
    bot = Watching()
    state = on_roll(BEAVER_SESSION, RACE_DOUBLE_TAKE)
    double = next_action(bot, state, 0, deadline=12.5)
    assert double == Action("double", 0)
    assert next_action(bot, state.apply(double), 1, deadline=7.0) == Action("take", 1)
    assert bot.seen == [("double", 12.5), ("beaver", 7.0), ("take", 7.0)]
