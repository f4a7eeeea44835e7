"""A knockout bracket: seeding, byes, and where each winner goes next.

Players are named by their seed, 1 the strongest (the services seed by
rating). The bracket has `size` places, the power of two at or above the
field; the seeds past the field are byes, always against the top seeds, so
only the first round has them. The first round pairs seed s with seed
size + 1 - s, placed so that the top two seeds can only meet in the final
(the usual order: 1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight).

A match is a Slot (round, index), rounds counted from 1; the winner of
(r, i) plays in (r + 1, i // 2), on its side i % 2. A first-round slot
with a bye is no match: its seed simply stands in the second round.
"""

from collections.abc import Mapping
from dataclasses import dataclass

KNOCKOUT_MIN = 4
KNOCKOUT_MAX = 64

# A match's two players, each a seed or None while not yet known.
Pairing = tuple[int | None, int | None]


def bracket_size(players: int) -> int:
    """The power of two at or above the field (4 to 64 players)."""
    if not isinstance(players, int) or not KNOCKOUT_MIN <= players <= KNOCKOUT_MAX:
        raise ValueError(f"a knockout has {KNOCKOUT_MIN} to {KNOCKOUT_MAX} players, not {players}")
    size = 1
    while size < players:
        size *= 2
    return size


def round_count(players: int) -> int:
    return bracket_size(players).bit_length() - 1


def seed_order(size: int) -> list[int]:
    """The seeds down the bracket's first round, two by two: [1, 8, 4, 5, 2, 7, 3, 6]."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


@dataclass(frozen=True, slots=True, order=True)
class Slot:
    round: int
    index: int

    def next(self) -> tuple["Slot", int]:
        """The match the winner plays next and their side in it (0 above, 1 below)."""
        return Slot(self.round + 1, self.index // 2), self.index % 2


@dataclass(frozen=True, slots=True)
class Bracket:
    players: int
    size: int
    rounds: int

    def first_round(self) -> list[Pairing]:
        """Every first-round place, two seeds; a seed past the field is a bye (None)."""
        order = [seed if seed <= self.players else None for seed in seed_order(self.size)]
        return [(order[i], order[i + 1]) for i in range(0, self.size, 2)]

    def byes(self) -> list[int]:
        """The seeds that go straight to the second round."""
        return [a for a, b in self.first_round() if a is not None and b is None]

    def is_bye(self, slot: Slot) -> bool:
        return slot.round == 1 and None in self.first_round()[slot.index]

    def slots(self) -> list[Slot]:
        """Every match of the bracket, round by round (first-round byes left out)."""
        every = [Slot(r, i) for r in range(1, self.rounds + 1) for i in range(self.size >> r)]
        return [slot for slot in every if not self.is_bye(slot)]

    @property
    def final(self) -> Slot:
        return Slot(self.rounds, 0)

    def round_name(self, round_: int) -> str:
        """'final', 'semifinal', 'quarterfinal' or 'round' (an earlier one)."""
        left = self.rounds - round_
        return {0: "final", 1: "semifinal", 2: "quarterfinal"}.get(left, "round")

    def pairings(self, winners: Mapping[Slot, int]) -> dict[Slot, Pairing]:
        """Who plays each match, given the winners so far (by seed).

        Raises ValueError for a winner who was not in that match, or a result
        of a match whose players are not both known.
        """
        first = self.first_round()
        known: dict[Slot, Pairing] = {}
        won: dict[Slot, int | None] = {}
        for index, pairing in enumerate(first):
            slot = Slot(1, index)
            if None in pairing:
                won[slot] = pairing[0] if pairing[0] is not None else pairing[1]
            else:
                known[slot] = pairing
        for round_ in range(1, self.rounds + 1):
            for index in range(self.size >> round_):
                slot = Slot(round_, index)
                if round_ > 1:
                    known[slot] = (
                        won[Slot(round_ - 1, 2 * index)],
                        won[Slot(round_ - 1, 2 * index + 1)],
                    )
                if slot not in known:
                    continue  # a bye
                winner = winners.get(slot)
                if winner is not None and (None in known[slot] or winner not in known[slot]):
                    raise ValueError(f"{winner} cannot win {slot}, played by {known[slot]}")
                won[slot] = winner
        stray = set(winners) - set(known)
        if stray:
            raise ValueError(f"no such match: {sorted(stray)}")
        return known

    def champion(self, winners: Mapping[Slot, int]) -> int | None:
        self.pairings(winners)  # checks them
        return winners.get(self.final)

    def opened(self, winners: Mapping[Slot, int]) -> list[Slot]:
        """The matches whose two players are known and which have no winner yet."""
        return [
            slot
            for slot, (a, b) in self.pairings(winners).items()
            if a is not None and b is not None and slot not in winners
        ]


def knockout(players: int) -> Bracket:
    size = bracket_size(players)
    return Bracket(players=players, size=size, rounds=size.bit_length() - 1)
