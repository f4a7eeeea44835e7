"""Small helpers to write positions and plays in tests as a player reads them."""

from games.engine import BAR, Position, format_play, legal_plays


def board(mine: dict, theirs: dict | None = None) -> Position:
    """A position with both sides keyed by MY point numbers ("bar" for either bar).

    Checkers not listed are borne off. ``theirs={19: 2}`` puts two opposing
    checkers on my 19-point, i.e. their 6-point.
    """
    me = {BAR if point == "bar" else point: n for point, n in mine.items()}
    them = {BAR if point == "bar" else 25 - point: n for point, n in (theirs or {}).items()}
    return Position.from_points(me, them)


def plays(position: Position, dice: tuple[int, int]) -> set[str]:
    """The legal plays in standard notation, checking there is one per result."""
    found = legal_plays(position, dice)
    results = [position.apply(play) for play in found]
    assert len(set(results)) == len(results), "two plays reach the same position"
    return {format_play(position, play) for play in found}
