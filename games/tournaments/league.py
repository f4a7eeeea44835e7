"""A league: groups of 4 to 8 where everyone plays everyone once, and the standings.

Tie-break, in this order: match wins; then points difference (points won
minus points lost over all the group's matches); then head to head (the
wins in the matches among the players still level); then the seed.
"""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

GROUP_MIN = 4
GROUP_MAX = 8

P = TypeVar("P", bound=Hashable)


def groups(players: int, *, largest: int = GROUP_MAX) -> list[list[int]]:
    """Seeds 1..players dealt into as few groups of at most `largest` as fit, the
    way cards are dealt back and forth (1, 2, 3 / 6, 5, 4 ...), so the groups are
    as even in size and strength as they can be; every group has 4 or more."""
    if not isinstance(players, int) or players < GROUP_MIN:
        raise ValueError(f"a league has at least {GROUP_MIN} players, not {players}")
    if not GROUP_MIN <= largest <= GROUP_MAX:
        raise ValueError(f"a group has {GROUP_MIN} to {GROUP_MAX} players, not {largest}")
    count = -(-players // largest)
    dealt: list[list[int]] = [[] for _ in range(count)]
    for seed in range(1, players + 1):
        lap, place = divmod(seed - 1, count)
        dealt[place if lap % 2 == 0 else count - 1 - place].append(seed)
    if min(len(group) for group in dealt) < GROUP_MIN:
        raise ValueError(f"{players} players do not make groups of {GROUP_MIN} to {largest}")
    return dealt


def round_robin(players: Sequence[P]) -> list[list[tuple[P, P]]]:
    """Every pairing once, in rounds where nobody plays twice (the circle method).

    With an odd number one player sits out each round.
    """
    if len(set(players)) != len(players):
        raise ValueError("a player appears twice")
    ring: list[P | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    half = len(ring) // 2
    rounds = []
    for _ in range(len(ring) - 1):
        pairs = [(ring[i], ring[-1 - i]) for i in range(half)]
        rounds.append([(a, b) for a, b in pairs if a is not None and b is not None])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


@dataclass(frozen=True, slots=True)
class Result(Generic[P]):
    """One finished match of the group: `winner` is a or b; the points each scored."""

    a: P
    b: P
    winner: P
    points_a: int = 0
    points_b: int = 0

    def __post_init__(self) -> None:
        if self.winner not in (self.a, self.b) or self.a == self.b:
            raise ValueError(f"{self.winner!r} did not play {self.a!r} v {self.b!r}")

    def points_of(self, player: P) -> tuple[int, int]:
        """(won, lost) by this player."""
        return (
            (self.points_a, self.points_b) if player == self.a else (self.points_b, self.points_a)
        )


@dataclass(slots=True)
class Standing(Generic[P]):
    player: P
    played: int = 0
    wins: int = 0
    points_for: int = 0
    points_against: int = 0
    place: int = 0
    # Decided by head to head among the players level on wins and difference.
    by_head_to_head: bool = field(default=False)

    @property
    def losses(self) -> int:
        return self.played - self.wins

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against


def standings(players: Sequence[P], results: Sequence[Result[P]]) -> list[Standing[P]]:
    """The group's table, first to last; `players` in seed order (the last tie-break)."""
    rows = {player: Standing(player) for player in players}
    for result in results:
        for player in (result.a, result.b):
            if player not in rows:
                raise ValueError(f"{player!r} is not in this group")
            row = rows[player]
            row.played += 1
            row.wins += result.winner == player
            won, lost = result.points_of(player)
            row.points_for += won
            row.points_against += lost
    seed = {player: number for number, player in enumerate(players)}
    by_record = sorted(rows.values(), key=lambda r: (-r.wins, -r.difference, seed[r.player]))
    ordered: list[Standing[P]] = []
    start = 0
    while start < len(by_record):
        end = start
        level = (by_record[start].wins, by_record[start].difference)
        while end < len(by_record) and (by_record[end].wins, by_record[end].difference) == level:
            end += 1
        tied = by_record[start:end]
        if len(tied) > 1:
            among = {row.player for row in tied}
            head = {player: 0 for player in among}
            for result in results:
                if result.a in among and result.b in among:
                    head[result.winner] += 1
            tied.sort(key=lambda r: (-head[r.player], seed[r.player]))
            if len(set(head.values())) > 1:
                for row in tied:
                    row.by_head_to_head = True
        ordered += tied
        start = end
    for place, row in enumerate(ordered, start=1):
        row.place = place
    return ordered
