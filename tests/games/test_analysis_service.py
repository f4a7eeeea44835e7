"""The analysis after the game: queued when a game ends, run by its task, stored per Turn.

The evaluator runs at bgsage 1-ply here (fast); the depth the site uses is
measured in bench/analysis.py and its verdicts pinned in tests/analysis.
"""

from datetime import timedelta

import pytest
from kombu.exceptions import OperationalError as BrokerDown

from games import services, tasks
from games.engine import Format, MatchRules
from games.lib.errors import Conflict
from games.models import FollowUp, Game, GameAnalysis, Turn, TurnAnalysis
from tests.helpers import FAST_ANALYSIS, FAST_QUICK, Persona, current_match, play_out, seated

pytestmark = pytest.mark.usefixtures("fast_analysis")


class Sent(list):
    """The analyses handed to the broker, by id; `down = True` refuses them as a dead Redis."""

    down = False


@pytest.fixture
def sent(monkeypatch):
    ids = Sent()

    def apply_async(args=None, kwargs=None, **options):
        if ids.down:
            raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        ids.append(args[0])

    monkeypatch.setattr(tasks.analyse_game, "apply_async", apply_async)
    return ids


def owed(row) -> list[FollowUp]:
    """The outbox's rows for this analysis."""
    return [
        f for f in FollowUp.objects.filter(task=services.analysis.TASK_NAME) if f.args == [row.pk]
    ]


def test_a_finished_game_is_queued_once_on_commit(
    room, alice, bob, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        play_out(room, alice, bob)
    game = Game.objects.get(match__room=room)
    row = GameAnalysis.objects.get(game=game)
    assert row.status == GameAnalysis.Status.PENDING and row.version == FAST_ANALYSIS.version
    assert sent == [row.pk]
    assert [f.published_at is not None for f in owed(row)] == [True]  # owed through the outbox
    # Asking again for the same version changes nothing and sends nothing.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_analysis_queue(game=game).pk == row.pk
    assert sent == [row.pk] and len(owed(row)) == 1


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


def test_a_match_rates_cube_decisions_too(alice, dice, sent, full_pass):
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
    services.game_analysis_run(analysis_id=row.pk)
    double = TurnAnalysis.objects.get(analysis=row, kind="double")
    assert double.best == "no_double" and double.loss > 0.04 and double.counted
    assert TurnAnalysis.objects.get(analysis=row, kind="take").best == "take"
    assert set(double.cube) == {"nd", "dt", "dp"}


def test_an_unfinished_game_is_not_queued(room):
    with pytest.raises(Conflict):
        services.game_analysis_queue(game=Game.objects.get(match__room=room))


def test_a_message_lost_at_commit_is_published_by_the_follow_up_sweep(
    room, alice, bob, sent, clock, django_capture_on_commit_callbacks
):
    sent.down = True
    with django_capture_on_commit_callbacks(execute=True):
        play_out(room, alice, bob)  # the game ends and is saved though the broker is down
    row = GameAnalysis.objects.get()
    assert row.status == GameAnalysis.Status.PENDING and sent == []
    sent.down = False
    clock.tick(timedelta(minutes=1, seconds=1))
    tasks.publish_follow_ups()  # beat's sweep, a minute later (the match's email too)
    assert sent == [row.pk] and owed(row)[0].published_at is not None
    tasks.publish_follow_ups()
    assert sent == [row.pk]  # published once
    # And the analysis happens: a minute late, its quick pass first (runs_quick).
    assert tasks.analyse_game(sent[0]) == "deferred"


def test_a_failed_analysis_asked_for_again_is_owed_again(room, alice, bob, sent):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    GameAnalysis.objects.filter(pk=row.pk).update(status=GameAnalysis.Status.FAILED)
    row = services.game_analysis_queue(game=row.game)
    assert row.status == GameAnalysis.Status.PENDING and len(owed(row)) == 2


def test_a_run_stuck_running_is_owed_again_and_waits_its_turn(
    room, alice, bob, sent, clock, django_capture_on_commit_callbacks
):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    clock.tick(timedelta(hours=1))
    assert tasks.requeue_stuck_analyses() == 0  # a PENDING row is the outbox's
    GameAnalysis.objects.filter(pk=row.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock()
    )
    # No run finished here yet: a mark older than a minute was left by a dead attempt.
    assert services.analysis.stuck_after() == timedelta(minutes=1)
    clock.tick(timedelta(seconds=59))
    assert tasks.requeue_stuck_analyses() == 0  # maybe still running
    clock.tick(timedelta(seconds=2))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.requeue_stuck_analyses() == 1
    assert sent == [row.pk] and len(owed(row)) == 2
    assert tasks.requeue_stuck_analyses() == 0  # it waits its turn again
    assert tasks.analyse_game(row.pk) == "deferred"  # an hour late: its quick pass first


def test_a_mark_is_stuck_after_four_times_the_longest_recent_run(room, alice, bob, sent, clock):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    GameAnalysis.objects.filter(pk=row.pk).update(status=GameAnalysis.Status.DONE, seconds=40)
    assert services.analysis.stuck_after() == timedelta(seconds=160)
    GameAnalysis.objects.filter(pk=row.pk).update(seconds=3600)  # never past the hard limit
    assert services.analysis.stuck_after() == services.analysis.RUNS_AT_MOST
    GameAnalysis.objects.filter(pk=row.pk).update(seconds=2)  # never under a minute
    assert services.analysis.stuck_after() == timedelta(minutes=1)


def test_a_retry_takes_up_the_run_its_own_dead_attempt_left_running(room, alice, bob, sent, clock):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    # The first attempt marked it RUNNING and lost the database (it could not
    # write FAILED either); Celery retries the same task.
    GameAnalysis.objects.filter(pk=row.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock()
    )
    clock.tick(timedelta(seconds=4))
    assert tasks.analyse_game.apply(args=(row.pk,), retries=1).get() == "done"


def test_a_redelivered_message_takes_up_the_run_its_killed_worker_left(
    room, alice, bob, sent, clock
):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    GameAnalysis.objects.filter(pk=row.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock()
    )
    assert services.game_analysis_run(analysis_id=row.pk, again=True).status == "done"


def test_another_copy_leaves_a_fresh_run_to_its_worker(room, alice, bob, sent, clock):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    GameAnalysis.objects.filter(pk=row.pk).update(
        status=GameAnalysis.Status.RUNNING, started_at=clock()
    )
    clock.tick(timedelta(seconds=30))
    assert tasks.analyse_game(row.pk) == "running"  # the outbox's re-drive, say


def finished_games(count, clock) -> list[Game]:
    """`count` partidas simples played to their end, an hour apart, the latest last."""
    games = []
    for _ in range(count):
        first, second = seated(MatchRules())
        play_out(first.room, Persona("alice", seat=first), Persona("bob", seat=second))
        games.append(Game.objects.get(match__room=first.room))
        clock.tick(timedelta(hours=1))
    return games


@pytest.mark.django_db
def test_games_analysed_under_earlier_settings_are_caught_up_a_few_at_a_time(
    sent, clock, dice, django_capture_on_commit_callbacks
):
    games = finished_games(6, clock)
    # Their analyses ran under settings the site no longer has (before the luck, say).
    GameAnalysis.objects.update(version="earlier", status=GameAnalysis.Status.DONE)
    sent.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.catch_up_analyses() == services.analysis.CATCH_UP_IN_FLIGHT
    current = GameAnalysis.objects.filter(version=FAST_ANALYSIS.version)
    latest_first = [game.pk for game in reversed(games)]
    assert list(current.order_by("pk").values_list("game_id", flat=True)) == latest_first[:4]
    assert sorted(sent) == sorted(current.values_list("pk", flat=True))  # owed and published
    assert tasks.catch_up_analyses() == 0  # four wait already: a new game is not held up

    for row in current:
        assert tasks.analyse_game(row.pk) == "done"
    assert tasks.catch_up_analyses() == 2  # the two oldest
    for row in current.exclude(status=GameAnalysis.Status.DONE):
        tasks.analyse_game(row.pk)
    assert tasks.catch_up_analyses() == 0  # every game has its analysis under today's settings
    assert current.filter(status=GameAnalysis.Status.DONE).count() == 6
    assert GameAnalysis.objects.filter(version="earlier").count() == 6  # kept: nothing is lost


@pytest.mark.django_db
def test_a_game_without_any_analysis_or_not_finished_is_not_caught_up(sent, clock, dice):
    [game] = finished_games(1, clock)
    GameAnalysis.objects.all().delete()  # ended before the site analysed games
    seated(MatchRules())  # a game still being played
    assert tasks.catch_up_analyses() == 0
    assert not GameAnalysis.objects.filter(game=game).exists()


# --- the quick first pass when the queue is behind, the full pass when it is idle ---


def ended_together(count) -> list[GameAnalysis]:
    """`count` partidas simples that end at the same moment: their analyses, PENDING."""
    for _ in range(count):
        first, second = seated(MatchRules())
        play_out(first.room, Persona("alice", seat=first), Persona("bob", seat=second))
    return list(GameAnalysis.objects.order_by("pk"))


def quick_rows():
    return GameAnalysis.objects.filter(version=FAST_QUICK.version)


@pytest.mark.django_db
def test_a_backlog_makes_the_quick_pass_and_the_idle_queue_the_full_one(
    sent, clock, dice, django_capture_on_commit_callbacks
):
    first, second = ended_together(2)
    # The first run finds the second waiting: the quick pass, shown for now.
    assert tasks.analyse_game(first.pk) == "deferred"
    quick = quick_rows().get(game=first.game)
    assert quick.status == GameAnalysis.Status.DONE and quick.summary
    assert quick.requested_at == first.requested_at  # it answers the game's request
    plays = Turn.objects.filter(game=first.game, kind="play").count()
    assert TurnAnalysis.objects.filter(analysis=quick).count() == plays
    assert not TurnAnalysis.objects.filter(analysis=first).exists()
    assert sent == []  # the queue is not idle: no full pass owed yet
    # The second is the last in the queue: nothing waits behind it, the full pass.
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.analyse_game(second.pk) == "done"
    assert not quick_rows().filter(game=second.game).exists()
    # The queue is idle now: the run owed the first game's full pass at once.
    first.refresh_from_db()
    assert first.status == GameAnalysis.Status.PENDING and sent == [first.pk]
    assert tasks.analyse_game(first.pk) == "done"  # its quick pass is there: the full one
    assert TurnAnalysis.objects.filter(analysis=first).count() == plays
    first.refresh_from_db()
    assert quick.luck is None and first.luck["rolls"]  # the luck waits for the full pass
    # Each game rated once at each depth: nothing more is owed or redone.
    assert tasks.catch_up_analyses() == 0 and services.analyses_deepen() == 0
    quick.refresh_from_db()
    finished_at = quick.finished_at
    assert tasks.analyse_game(first.pk) == "done" and tasks.analyse_game(second.pk) == "done"
    assert quick_rows().get().finished_at == finished_at
    assert GameAnalysis.objects.count() == 3


def test_a_row_asked_for_a_minute_ago_starts_quick_and_a_redrive_leaves_it(
    sent, room, alice, bob, clock
):
    play_out(room, alice, bob)
    row = GameAnalysis.objects.get()
    clock.tick(services.analysis.QUICK_AFTER - timedelta(seconds=1))
    assert not services.analysis.runs_quick(row)  # alone and in time: the full pass
    clock.tick(timedelta(seconds=1))
    assert services.analysis.runs_quick(row)
    assert tasks.analyse_game(row.pk) == "deferred"
    # The deepening was owed by the same run (the queue is idle): the row waits again.
    row.refresh_from_db()
    assert row.status == GameAnalysis.Status.PENDING and len(owed(row)) == 2
    # A copy of the first message (the outbox's re-drive) finds it PENDING and runs
    # the full pass: the quick one is never redone.
    quick = quick_rows().get()
    assert tasks.analyse_game(row.pk) == "done"
    assert quick_rows().get().finished_at == quick.finished_at
    assert services.analysis.stuck_after() == timedelta(minutes=1)


@pytest.mark.django_db
def test_a_deferred_row_is_left_alone_by_a_copy_of_its_message(sent, clock, dice):
    first, second = ended_together(2)
    assert tasks.analyse_game(first.pk) == "deferred"
    quick = quick_rows().get()
    assert services.game_analysis_run(analysis_id=first.pk).status == "deferred"
    assert services.game_analysis_run(analysis_id=first.pk, again=True).status == "deferred"
    assert quick_rows().get().finished_at == quick.finished_at
    assert not TurnAnalysis.objects.filter(analysis=first).exists()


@pytest.mark.django_db
def test_the_catch_up_deepens_the_quick_passes_latest_first(
    sent, clock, dice, django_capture_on_commit_callbacks
):
    rows = ended_together(3)
    for row in rows:
        Game.objects.filter(pk=row.game_id).update(ended_at=clock() + timedelta(minutes=row.pk))
    clock.tick(services.analysis.QUICK_AFTER)  # every one has waited a minute: quick first
    with django_capture_on_commit_callbacks(execute=True):
        for row in rows:
            assert tasks.analyse_game(row.pk) == "deferred"
    # After the last, the queue was idle: its run owed one full pass, the latest ended.
    latest, middle, oldest = reversed(rows)
    assert sent == [latest.pk]
    assert due_behind(quick_only=True) == [middle.game_id, oldest.game_id]
    assert services.analyses_deepen() == 0  # one waits: not idle, one at a time
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.catch_up_analyses() == 2  # the beat's catch-up takes the others
    assert sorted(sent) == sorted(r.pk for r in rows)
    for row in rows:
        assert tasks.analyse_game(row.pk) == "done"  # each has its quick pass: the full one
    assert quick_rows().count() == 3 and due_behind(quick_only=False) == []
    assert TurnAnalysis.objects.filter(analysis__version=FAST_ANALYSIS.version).exists()


def due_behind(*, quick_only: bool) -> list[int]:
    from games.selectors import due

    return due.analyses_behind(limit=10, quick_only=quick_only)


@pytest.mark.django_db
def test_each_full_pass_owes_the_next_until_none_is_left(sent, clock, dice):
    rows = ended_together(3)
    clock.tick(services.analysis.QUICK_AFTER)
    for row in rows:
        assert tasks.analyse_game(row.pk) == "deferred" or row == rows[-1]

    def waiting() -> list[int]:
        return list(
            GameAnalysis.objects.filter(status=GameAnalysis.Status.PENDING).values_list(
                "pk", flat=True
            )
        )

    done = []
    for _ in rows:
        [next_one] = waiting()  # one at a time, chained by the run before
        assert tasks.analyse_game(next_one) == "done"
        done.append(next_one)
    assert waiting() == [] and sorted(done) == sorted(r.pk for r in rows)
    assert not GameAnalysis.objects.filter(status=GameAnalysis.Status.DEFERRED).exists()
