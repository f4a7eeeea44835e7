"""A knockout played to the end by bots through the services (manage.py
tournament_botrun), every round's matches opening exactly once.

The 64-player run makes some 10,000 service calls (six minutes on a busy
two-core machine): it runs with MESA_BOTRUN_64=1; 8 and 6 players always run.
"""

import os
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Room, Tournament, TournamentMatch

pytestmark = pytest.mark.django_db


def test_an_8_player_knockout_is_played_to_the_end_by_bots(clock):
    out = StringIO()
    call_command("tournament_botrun", players=8, length=1, seed=3, stdout=out)
    assert "matches per round {1: 4, 2: 2, 3: 1}" in out.getvalue()
    assert "every match opened exactly once" in out.getvalue()
    assert Room.objects.count() == TournamentMatch.objects.count() == 7


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("MESA_BOTRUN_64"), reason="six minutes: set MESA_BOTRUN_64=1"
)
def test_a_64_player_knockout_is_played_to_the_end_by_bots(clock):
    out = StringIO()
    call_command("tournament_botrun", players=64, length=1, seed=3, stdout=out)
    text = out.getvalue()
    assert "matches per round {1: 32, 2: 16, 3: 8, 4: 4, 5: 2, 6: 1}" in text
    assert "every match opened exactly once" in text
    tournament = Tournament.objects.get()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner is not None
    assert Room.objects.count() == TournamentMatch.objects.count() == 63
    assert not TournamentMatch.objects.filter(room__isnull=True).exists()


def test_an_odd_field_plays_its_byes_and_ends(clock):
    out = StringIO()
    call_command("tournament_botrun", players=6, length=1, stdout=out)
    assert "matches per round {1: 2, 2: 2, 3: 1}" in out.getvalue()


def test_it_refuses_a_field_out_of_range(db):
    with pytest.raises(CommandError):
        call_command("tournament_botrun", players=65)
