"""Hypothesis strategies for engine tests: legal arrangements of checkers."""

from hypothesis import strategies as st

from games.engine import BAR, CHECKERS_PER_SIDE, OFF, Position


@st.composite
def positions(draw) -> Position:
    """Any legal arrangement: 15 a side, no point held by both."""
    mine = draw(st.lists(st.integers(0, 25), min_size=15, max_size=15))
    me = [0] * 26
    for point in mine:
        me[point] += 1
    # Their checkers go where I am not (their point k is my point 25 - k).
    free = [k for k in range(26) if k in (OFF, BAR) or not me[25 - k]]
    theirs = draw(st.lists(st.sampled_from(free), min_size=15, max_size=15))
    them = [0] * 26
    for point in theirs:
        them[point] += 1
    if me[OFF] == CHECKERS_PER_SIDE and them[OFF] == CHECKERS_PER_SIDE:
        me[OFF], me[6] = 14, 1  # both sides cannot have finished
    return Position(tuple(me), tuple(them))


@st.composite
def games_in_progress(draw) -> Position:
    """A position someone is still to play: neither side has borne off all 15."""
    position = draw(positions())
    me, them = list(position.me), list(position.them)
    for side in (me, them):
        if side[OFF] == CHECKERS_PER_SIDE:
            side[OFF] -= 1
            side[BAR] += 1
    return Position(tuple(me), tuple(them))


dice_rolls = st.tuples(st.integers(1, 6), st.integers(1, 6))
