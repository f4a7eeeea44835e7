"""An engine refusal's HTTP status is decided by its class, its code is kept."""

import pytest

from games.engine import IllegalAction, IllegalMove, InvalidInput
from games.lib.errors import BadInput, Conflict, IllegalMoveError, from_engine


@pytest.mark.parametrize(
    ("error", "kind", "status", "code"),
    [
        (InvalidInput("bad_notation", "cannot read 13-10"), BadInput, 400, "bad_notation"),
        (InvalidInput("bad_step", "no such step"), BadInput, 400, "bad_step"),
        (IllegalMove("point_closed", "closed"), IllegalMoveError, 422, "point_closed"),
        (IllegalAction("illegal_play", "no", "bar_first"), IllegalMoveError, 422, "bar_first"),
        (IllegalAction("wrong_phase", "not now"), IllegalMoveError, 422, "wrong_phase"),
        (IllegalAction("not_your_turn", "the other side"), Conflict, 409, "not_your_turn"),
        (IllegalAction("game_over", "over"), Conflict, 409, "game_over"),
    ],
)
def test_the_class_decides_the_status_and_the_code_stays(error, kind, status, code):
    refusal = from_engine(error)
    assert type(refusal) is kind
    assert (refusal.status, refusal.code, refusal.reason) == (status, code, error.reason)
