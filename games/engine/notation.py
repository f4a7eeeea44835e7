"""Standard play notation, as GNU Backgammon writes it: "24/18 13/10*", "bar/22", "6/2(2)".

A checker that moves on with its next die is written as one move
("24/13"), naming a stop on the way only where it hit ("13/8*/5").
Points are counted from the mover's side; the bar is "bar", borne off is "off".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .errors import IllegalMove, InvalidInput
from .moves import legal_plays
from .position import BAR, OFF, Play, Position, Step

__all__ = ["format_play", "parse_play"]


def _point_name(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


def format_play(position: Position, play: Sequence[Step]) -> str:
    """Write a play in standard notation; the empty play (no move) is "".

    >>> start = Position.initial()
    >>> format_play(start, ((24, 18), (13, 10)))
    '24/18 13/10'
    >>> format_play(start, ((13, 7), (13, 7), (8, 2), (8, 2)))
    '13/7(2) 8/2(2)'
    >>> format_play(start, ((6, 3), (8, 5), (6, 3), (8, 5)))
    '8/5(2) 6/3(2)'
    >>> format_play(start, ((24, 18), (18, 13)))
    '24/13'
    >>> format_play(Position.from_points({25: 1, 6: 14}, {6: 15}), ((25, 22), (6, 3)))
    'bar/22 6/3'
    >>> format_play(Position.from_points({6: 2, 2: 1}, {6: 15}), ((6, 0), (2, 0)))
    '6/off 2/off'
    >>> format_play(Position.from_points({13: 15}, {17: 1, 24: 14}), ((13, 8), (8, 5)))
    '13/8*/5'
    """
    hit_at = _hits(position, play)
    # Each chain is one checker's route: the points it touched and the hits on the way.
    chains: list[tuple[list[int], list[bool]]] = []
    for index, (src, dst) in enumerate(play):
        for nodes, hits in reversed(chains):
            if nodes[-1] == src and src != OFF:
                nodes.append(dst)
                hits.append(hit_at[index])
                break
        else:
            chains.append(([src, dst], [False, hit_at[index]]))

    words: list[tuple[int, int, str]] = []
    for nodes, hits in chains:
        text = _point_name(nodes[0])
        for i in range(1, len(nodes)):
            last = i == len(nodes) - 1
            if last or hits[i]:
                text += "/" + _point_name(nodes[i]) + ("*" if hits[i] else "")
        words.append((nodes[0], nodes[-1], text))

    # Highest source first; identical moves are counted: "13/7(2)".
    words.sort(key=lambda word: (-word[0], -word[1], word[2]))
    counted: list[tuple[str, int]] = []
    for _src, _dst, text in words:
        if counted and counted[-1][0] == text:
            counted[-1] = (text, counted[-1][1] + 1)
        else:
            counted.append((text, 1))
    return " ".join(text if n == 1 else f"{text}({n})" for text, n in counted)


def _hits(position: Position, play: Sequence[Step]) -> list[bool]:
    """Whether each step lands on a lone opposing checker (checked while applying)."""
    them = list(position.them)
    flags = []
    for _src, dst in play:
        hit = dst != OFF and them[25 - dst] == 1
        if hit:
            them[25 - dst] = 0
        flags.append(hit)
    return flags


_MOVE = re.compile(r"^(bar|\d{1,2})((?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?$")


def parse_play(position: Position, dice: Sequence[int], text: str) -> Play:
    """Read a play in standard notation and return the legal play it names.

    Accepts what ``format_play`` writes and the usual variants ("24/18 18/13"
    for "24/13", "*" marks optional). Raises InvalidInput("bad_notation") when
    the text cannot be read and IllegalMove("illegal_play") when no legal
    play matches it.

    >>> start = Position.initial()
    >>> parse_play(start, (6, 5), "24/13")
    ((24, 18), (18, 13))
    >>> parse_play(start, (6, 5), "24/18 18/13")
    ((24, 18), (18, 13))

    Doubles count identical moves, "8/5(2)" for two checkers from 8 to 5:

    >>> parse_play(start, (3, 3), "8/5(2) 6/3(2)")
    ((8, 5), (8, 5), (6, 3), (6, 3))

    A star says where the route stops to hit; without it the same checkers
    take the route that hits nothing:

    >>> blot_on_8 = Position.from_points({13: 15}, {17: 1, 24: 14})
    >>> parse_play(blot_on_8, (5, 3), "13/8*/5")
    ((13, 8), (8, 5))
    >>> parse_play(blot_on_8, (5, 3), "13/5")
    ((13, 10), (10, 5))

    The bar and bearing off, in either case:

    >>> parse_play(Position.from_points({25: 1, 6: 14}, {6: 15}), (3, 3), "bar/22 6/3(3)")
    ((25, 22), (6, 3), (6, 3), (6, 3))
    >>> parse_play(Position.from_points({6: 2, 2: 1}, {6: 15}), (6, 2), "6/Off 2/off")
    ((6, 0), (2, 0))

    Nothing to move with a closed board, and the two ways to be refused:

    >>> parse_play(Position.from_points({25: 1}, {k: 2 for k in range(1, 7)}), (6, 6), "")
    ()
    >>> parse_play(start, (6, 5), "24-13")
    Traceback (most recent call last):
    games.engine.errors.InvalidInput: cannot read '24-13' as a move like 24/18
    >>> parse_play(start, (6, 5), "24/14")
    Traceback (most recent call last):
    games.engine.errors.IllegalMove: '24/14' is not a legal play with 6-5
    """
    wanted, starred = _moves_of(text)
    found = legal_plays(position, dice)
    if not found:
        if not wanted:
            return ()
        raise IllegalMove("illegal_play", "no checker can move with these dice")
    if not wanted:
        raise IllegalMove("incomplete_play", "these dice can be played, so the play is not empty")
    matches = [play for play in found if _net(play) == wanted]
    if len(matches) > 1:
        # Same checkers moved, different stops: "13/8*/5" or "13/10/5". The stars
        # decide; without them, read the route as hitting as little as it can.
        matches.sort(key=lambda play: len(_hit_points(position, play)))
        marked = [play for play in matches if starred <= _hit_points(position, play)]
        exact = [play for play in marked if _hit_points(position, play) == starred]
        matches = exact or marked or matches
    if matches:
        return matches[0]
    raise IllegalMove("illegal_play", f"{text!r} is not a legal play with {dice[0]}-{dice[1]}")


def _hit_points(position: Position, play: Play) -> set[int]:
    return {dst for (_src, dst), hit in zip(play, _hits(position, play), strict=True) if hit}


def _moves_of(text: str) -> tuple[dict[int, int], set[int]]:
    """The net change of checkers per point the notation names, and the points marked "*"."""
    moves: list[tuple[int, int]] = []
    starred: set[int] = set()
    for word in text.lower().split():
        match = _MOVE.match(word)
        if not match:
            raise InvalidInput("bad_notation", f"cannot read {word!r} as a move like 24/18")
        start, route, count = match.groups()
        stops = route.split("/")[1:]
        starred.update(int(p[:-1]) for p in stops if p.endswith("*"))
        points = [start] + [p.rstrip("*") for p in stops]
        numbers = [BAR if p == "bar" else OFF if p == "off" else int(p) for p in points]
        moves.extend([(numbers[0], numbers[-1])] * int(count or 1))
    return _net(moves), starred


def _net(moves: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Checkers gained or lost per point: the same for every way to split a route."""
    net: dict[int, int] = {}
    for src, dst in moves:
        net[src] = net.get(src, 0) - 1
        net[dst] = net.get(dst, 0) + 1
    return {point: n for point, n in net.items() if n}
