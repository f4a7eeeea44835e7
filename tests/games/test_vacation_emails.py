"""An email to a player on vacation names the deadline their board names: the clock
stands still until they come back, then the turn's 48 hours run (not from now)."""

from datetime import timedelta

import pytest

from games import services, tasks
from games.engine import MatchRules
from games.services.vacations import vacation_start
from tests.helpers import START, current_match, make_player

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def test_a_game_start_email_during_a_vacation_says_the_clock_stands_still(clock, dice, mailoutbox):
    ben = make_player("ben")  # an account whose email is confirmed
    vacation_start(user=ben, days=5)  # away from START until 7 March, 09:00
    clock.tick(timedelta(hours=2))
    host = services.room_create(rules=MatchRules(), nickname="ana")
    dice.push((1, 3))  # ben's 3 starts: the first turn is his
    seat = services.room_join(room=host.room, nickname="ben", user=ben)
    match = current_match(host.room)
    assert match.turn_seat_id == seat.pk
    # What the board and the sweeps hold: 48 hours from his return.
    assert match.absence_due_at == START + 5 * DAY + 2 * DAY

    clock.tick(timedelta(hours=1))  # ben left the board after joining: now he is mailed
    assert tasks.turn_email(match.pk, match.version) is True
    [email] = mailoutbox
    assert "Empieza la partida contra ana" in email.body
    # Not the unpaused deadline, two days from the game's start.
    assert "4 de marzo" not in email.body
    assert (
        "Estás de vacaciones hasta el 7 de marzo de 2026 a las 09:00 (hora de UTC): tu reloj "
        "está parado. Cuando vuelvas tendrás hasta el 9 de marzo de 2026 a las 09:00 para jugar"
    ) in email.body
