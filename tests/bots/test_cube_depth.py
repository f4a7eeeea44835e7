"""The weak levels' cube in positions where a shallow evaluation is known to go wrong.

Every expected verdict below was read off GNU Backgammon 1.07 at 2-ply
("World class", its own cubeful evaluator and match equity table) with
``bench/gnubg_ref.py``, and bgsage 3-ply agrees with each of them; bgsage
1-ply gets every one of them wrong or nearly so, as the comment on each case
says. Most are last-roll bear-offs: a shallow evaluation credits the player
with cube leverage that a last roll no longer has. Equities are the doubler's, normalised to the
cube (a pass is worth 1.0), as gnubg prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from games.bots import CHARACTERS, BotContext, get_bot, sage
from games.engine import Position

WEAK = ("domador", "chofer", "carcelero")
SEEDS = range(40)
TOLERANCE = 0.04  # bgsage against gnubg, in equity: their networks differ


@dataclass(frozen=True)
class Case:
    name: str
    position_id: str  # the doubler on roll
    context: BotContext  # the doubler's
    nd: float
    dt: float
    dp: float
    shallow: str  # what bgsage 1-ply said, for the record

    @property
    def position(self) -> Position:
        return Position.from_position_id(self.position_id)

    @property
    def double(self) -> bool:
        return min(self.dt, self.dp) > self.nd

    @property
    def take(self) -> bool:
        return self.dt <= self.dp

    @property
    def double_margin(self) -> float:
        return abs(min(self.dt, self.dp) - self.nd)

    @property
    def take_margin(self) -> float:
        return abs(self.dp - self.dt)


def match(length: int, score: tuple[int, int], cube: int = 1, owner: str = "centered"):
    return BotContext(cube, owner, cube_in_play=True, match_length=length, score=score)


MONEY = BotContext(cube_in_play=True)
CASES = [
    Case(
        "a race: to 7 at 2-1, holding the 2-cube, 3 and 2 points against two on the 1",
        "AwAAUAAAAAAAAA", match(7, (2, 1), 2, "me"), 0.389, 0.884, 1.0,
        "ND +0.607 / DT +0.608: a coin toss",
    ),
    Case(
        "the same last roll for money, holding the 2-cube",
        "AwAAUAAAAAAAAA", BotContext(2, "me", cube_in_play=True), 0.389, 0.778, 1.0,
        "ND +0.597 / DT +0.594: no redouble",
    ),
    Case(
        "the same last roll to 7 at 2-1 with the cube in the middle",
        "AwAAUAAAAAAAAA", match(7, (2, 1)), 0.389, 0.723, 1.0,
        "ND +0.510 / DT +0.497: no double",
    ),
    Case(
        "a 4 and a 2 to bear off against two on the 1, for money",
        "AwAAkAAAAAAAAA", MONEY, 0.278, 0.556, 1.0,
        "ND +0.389 / DT +0.339: no double",
    ),
    Case(
        "two on the 3 against two on the 2, to 5 trailing 1-3",
        "BgAAYAAAAAAAAA", match(5, (1, 3)), -0.056, 0.152, 1.0,
        "ND +0.340 / DT +0.152: no double (gnubg 0-ply says so too)",
    ),
    Case(
        "a 5 and a 2 against two on the 2, to 5 trailing 1-3",
        "BgAAEAEAAAAAAA", match(5, (1, 3)), 0.056, 0.335, 1.0,
        "ND +0.448 / DT +0.335: no double",
    ),
    Case(
        "two on the 5 against three on the 1, to 7 at 2-1: a pass",
        "BwAAAAMAAAAAAA", match(7, (2, 1)), 0.643, 1.111, 1.0,
        "DT +0.971: a take (bgsage 2-ply says take too)",
    ),
    Case(
        "two on the 2 against two on the 2, to 5 at 0-0: a take",
        "BgAAMAAAAAAAAA", match(5, (0, 0)), 0.486, 0.850, 1.0,
        "DT +1.001: a pass (gnubg 0-ply says pass too)",
    ),
]  # fmt: skip
IDS = [case.position_id + " " + case.name.split(":")[0] for case in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("name", WEAK)
def test_the_weak_levels_judge_the_cube_with_an_evaluation_that_gets_these_right(name, case):
    level = CHARACTERS[name].cube_level
    verdict = sage.cube_decision(case.position, level, case.context)
    assert (min(verdict.equity_dt, verdict.equity_dp) > verdict.equity_nd) == case.double
    assert (verdict.equity_dt <= verdict.equity_dp) == case.take
    for found, expected in zip(
        (verdict.equity_nd, verdict.equity_dt, verdict.equity_dp),
        (case.nd, case.dt, case.dp),
        strict=True,
    ):
        assert found == pytest.approx(expected, abs=TOLERANCE), (level, case.shallow)


@pytest.mark.parametrize("case", [c for c in CASES if c.double], ids=lambda c: c.position_id)
@pytest.mark.parametrize("name", WEAK)
def test_every_weak_level_doubles_when_the_double_is_clearer_than_its_error_bound(name, case):
    bound = CHARACTERS[name].cube_error
    assert case.double_margin > bound + TOLERANCE  # every double here is clear for every level
    doubled = [
        get_bot(name, seed=seed).should_double(case.position, case.context) for seed in SEEDS
    ]
    assert all(doubled), case.shallow


# A take or pass closer than a level's error bound may go either way for it: by
# design. The margin must clear the bound by the evaluators' tolerance too.
CLEAR_ANSWERS = [
    (name, case)
    for case in CASES
    for name in WEAK
    if case.take_margin > CHARACTERS[name].cube_error + TOLERANCE
]


@pytest.mark.parametrize(
    ("name", "case"), CLEAR_ANSWERS, ids=[f"{n}-{c.position_id}" for n, c in CLEAR_ANSWERS]
)
def test_every_weak_level_answers_a_double_right_when_it_is_clearer_than_its_bound(name, case):
    taker, context = case.position.flip(), case.context.flip()
    answers = [get_bot(name, seed=seed).should_take(taker, context) for seed in SEEDS]
    assert answers == [case.take] * len(SEEDS), case.shallow
