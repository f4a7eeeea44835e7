"""Properties that must hold for any position, checked with Hypothesis."""

from hypothesis import HealthCheck, given, settings

from games.engine import (
    CHECKERS_PER_SIDE,
    OFF,
    IllegalMove,
    Position,
    check_play,
    legal_plays,
    legal_steps,
)

from .strategies import dice_rolls, games_in_progress, positions

fast = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(positions())
def test_flip_is_an_involution_and_swaps_the_pips(position):
    assert position.flip().flip() == position
    mine, theirs = position.pips()
    assert position.flip().pips() == (theirs, mine)


@fast
@given(positions())
def test_position_id_round_trips(position):
    pid = position.position_id()
    assert len(pid) == 14
    assert Position.from_position_id(pid) == position
    assert eval(repr(position), {"Position": Position}) == position


@fast
@given(games_in_progress(), dice_rolls)
def test_every_legal_play_keeps_15_a_side_and_is_accepted_by_check_play(position, dice):
    found = legal_plays(position, dice)
    results = set()
    for play in found:
        after = position.apply(play)
        Position(after.me, after.them)  # validates 15 a side and no shared point
        assert check_play(position, dice, play) == after
        results.add(after)
    assert len(results) == len(found)
    assert len({len(play) for play in found}) <= 1  # every play uses as many dice
    if not found:
        assert check_play(position, dice, ()) == position


@fast
@given(games_in_progress(), dice_rolls)
def test_check_play_accepts_a_legal_play_in_another_order(position, dice):
    for play in legal_plays(position, dice):
        reordered = tuple(reversed(play))
        try:
            position.apply(reordered)
        except IllegalMove:
            continue  # that order cannot be taken on the board (e.g. a chain)
        assert check_play(position, dice, reordered) == position.apply(play)


def _reachable_by_steps(position, dice):
    """Every final position reachable by clicking legal_steps options one by one."""
    finals = set()
    seen = set()
    stack = [()]
    while stack:
        taken = stack.pop()
        reached = position.apply(taken)
        key = (reached, len(taken))
        if key in seen:
            continue
        seen.add(key)
        options = legal_steps(position, dice, taken)
        if not options:
            finals.add(reached)
            continue
        for option in options:
            assert option.path[0][0] == option.src and option.path[-1][1] == option.dst
            assert len(option.dice) == len(option.path)
            stack.append(taken + option.path)
    return finals


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_in_progress(), dice_rolls)
def test_legal_steps_reach_exactly_the_legal_plays(position, dice):
    expected = {position.apply(play) for play in legal_plays(position, dice)} or {position}
    assert _reachable_by_steps(position, dice) == expected


@fast
@given(positions())
def test_outcome_only_when_someone_has_borne_off_all(position):
    outcome = position.outcome()
    if position.me[OFF] == CHECKERS_PER_SIDE or position.them[OFF] == CHECKERS_PER_SIDE:
        assert outcome is not None
        assert outcome.winner_is_me == (position.me[OFF] == CHECKERS_PER_SIDE)
        assert position.flip().outcome().winner_is_me is not outcome.winner_is_me
    else:
        assert outcome is None


def test_legal_steps_reach_exactly_the_legal_plays_on_self_play_doubles():
    from bench.engine import self_play

    doubles = [(p, d) for p, d in self_play()[:3000] if d[0] == d[1]][:150]
    for position, dice in doubles:
        expected = {position.apply(play) for play in legal_plays(position, dice)} or {position}
        assert _reachable_by_steps(position, dice) == expected, (repr(position), dice)
