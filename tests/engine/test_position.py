"""Position: the GNU Backgammon Position ID, flipping, pips, applying steps, the result."""

from games.engine import Position

INITIAL_ID = "4HPwATDgc/ABMA"


def test_the_initial_position_has_gnubgs_well_known_id():
    assert Position.initial().position_id() == INITIAL_ID
    assert Position.from_position_id(INITIAL_ID) == Position.initial()


def test_la_posicion_inicial_pone_2_5_3_5_en_24_13_8_6():
    side = Position.initial().me
    assert {point: n for point, n in enumerate(side) if n} == {24: 2, 13: 5, 8: 3, 6: 5}
    assert Position.initial().them == side


def test_the_repr_round_trips():
    position = Position.initial().apply(((24, 18), (13, 10)))
    assert eval(repr(position), {"Position": Position}) == position
