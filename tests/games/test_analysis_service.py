"""The analysis after the game: queued when a game ends, run by its task, stored per Turn.

The evaluator runs at bgsage 1-ply here (fast); the depth the site uses is
measured in bench/analysis.py and its verdicts pinned in tests/analysis.
"""

from datetime import timedelta

import pytest

from games import analysis, analysis_service, services, tasks
from games.engine.match import Format, MatchRules
from games.errors import Conflict
from games.models import Game, GameAnalysis, Turn, TurnAnalysis
from tests.conftest import Persona
from tests.games.conftest import current_match, play_out

FAST = analysis.Settings(play_level="1ply", cubeful_play_level="1ply", cube_level="1ply")


@pytest.fixture(autouse=True)
def fast_settings(monkeypatch):
    monkeypatch.setattr(analysis_service, "SETTINGS", FAST)


@pytest.fixture
def sent(monkeypatch):
    """The analyses sent to the queue, by id, instead of a broker."""
    ids = []
    monkeypatch.setattr(analysis_service, "send", ids.append)
    return ids


def test_a_finished_game_is_queued_once_on_commit(
    room, alice, bob, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        play_out(room, alice, bob)
    game = Game.objects.get(match__room=room)
    row = GameAnalysis.objects.get(game=game)
    assert row.status == GameAnalysis.Status.PENDING and row.version == FAST.version
    assert sent == [row.pk]
    # Asking again for the same version changes nothing and sends nothing.
    with django_capture_on_commit_callbacks(execute=True):
        assert analysis_service.game_analysis_queue(game=game).pk == row.pk
    assert sent == [row.pk]


def test_the_task_rates_every_decision_and_a_second_run_replaces_the_rows(room, alice, bob, sent):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    assert tasks.analyse_game(row.pk) == "done"
    row.refresh_from_db()
    plays = Turn.objects.filter(game=row.game, kind="play").count()
    rows = TurnAnalysis.objects.filter(analysis=row)
    assert rows.count() == plays > 10  # a partida simple has no cube decisions
    for side in (0, 1):
        figures = row.summary[side]
        counted = rows.filter(side=side, counted=True)
        assert figures["decisions"] == counted.count()
        mean = sum(r.loss for r in counted) / counted.count()
        assert figures["pr"] == pytest.approx(500 * mean, abs=0.05)
        assert figures["error_rate"] == pytest.approx(1000 * mean, abs=0.1)
    assert all(r.loss == 0 and not r.counted for r in rows.filter(forced=True))
    first = sorted(rows.values_list("turn_id", "loss"))
    assert tasks.analyse_game(row.pk) == "done"
    again = TurnAnalysis.objects.filter(analysis=row)
    assert sorted(again.values_list("turn_id", "loss")) == first


def test_a_match_rates_cube_decisions_too(alice, dice, sent):
    seat = services.room_create(rules=MatchRules(format=Format.MATCH, length=3), nickname="ana")
    dice.push((3, 1))
    guest = services.room_join(room=seat.room, nickname="ben")
    ana, ben = Persona("ana", seat=seat), Persona("ben", seat=guest)
    match = current_match(seat.room)
    services.game_play(seat=seat, version=match.version, play=[[8, 5], [6, 5]])
    match = current_match(seat.room)
    services.game_double(seat=guest, version=match.version)  # ben doubles at once: too early
    match = current_match(seat.room)
    services.game_take(seat=seat, version=match.version)
    play_out(seat.room, ana, ben)
    row = GameAnalysis.objects.filter(game__number=1, game__match__room=seat.room).get()
    analysis_service.game_analysis_run(analysis_id=row.pk)
    double = TurnAnalysis.objects.get(analysis=row, kind="double")
    assert double.best == "no_double" and double.loss > 0.04 and double.counted
    assert TurnAnalysis.objects.get(analysis=row, kind="take").best == "take"
    assert set(double.cube) == {"nd", "dt", "dp"}


def test_an_unfinished_game_is_not_queued(room):
    with pytest.raises(Conflict):
        analysis_service.game_analysis_queue(game=Game.objects.get(match__room=room))


def test_the_sweep_sends_again_what_waited_too_long(room, alice, bob, sent, clock):
    play_out(room, alice, bob)
    assert analysis_service.requeue_analyses() == 0
    clock.tick(timedelta(minutes=11))
    row = GameAnalysis.objects.get()
    assert tasks.requeue_analyses() == 1 and sent[-1] == row.pk
    assert analysis_service.requeue_analyses() == 0  # it waits its turn again
