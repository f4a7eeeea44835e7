"""The review page of a finished game, the request to analyse it, and where the PR shows.

Seats and spectators may read a review; only a seat holder may ask for an
analysis. The evaluator runs at bgsage 1-ply here (fast).
"""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from games import services, tasks
from games.engine import Format, MatchRules
from games.models import Game, GameAnalysis, Seat, Turn
from games.templatetags.analysis import cube_errors_text
from tests.helpers import FAST_QUICK, Persona, bind, play_out, version_of, when_published


@pytest.fixture(autouse=True)
def fast_settings(fast_analysis, monkeypatch):
    """bgsage at 1-ply, and no analysis task queued when a game ends: the tests run it."""
    when_published(monkeypatch, tasks.analyse_game, lambda analysis_id: None)


def review_url(room, game=1, match=1) -> str:
    return reverse("games:review", args=[room.slug, match, game])


def request_url(room, game=1, match=1) -> str:
    return reverse("games:review_request", args=[room.slug, match, game])


@pytest.fixture
def finished(room, alice, bob):
    play_out(room, alice, bob)
    bind(alice, room)
    bind(bob, room)
    return room


@pytest.fixture
def analysed(finished):
    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    return finished


def test_while_the_analysis_runs_the_page_says_so_and_refreshes(finished, carol):
    page = carol.client.get(review_url(finished)).content.decode()
    assert 'http-equiv="refresh"' in page and "El análisis está en marcha" in page
    assert reverse("games:match_file", args=[finished.slug]) in page


def test_seats_and_spectators_read_the_review_with_both_players_figures(analysed, alice, carol):
    row = GameAnalysis.objects.get()
    for persona in (alice, carol):
        response = persona.client.get(review_url(analysed))
        assert response.status_code == 200
        page = response.content.decode()
        assert 'http-equiv="refresh"' not in page
        assert "0,04" in page and "0,08" in page and "0,16" in page  # the thresholds, stated
        data = json.loads(page.split('id="review-data" type="application/json">')[1].split("<")[0])
        assert data["names"] == ["alice", "bob"]
        assert len(data["steps"]) == row.turns.exclude(kind="no_double", counted=False).count()
        first = data["steps"][0]
        opening = Turn.objects.filter(kind="play").order_by("number").first()
        assert first["played"] == opening.notation and first["side"] == opening.side
        assert sum(first["after_played"]["me"]) == sum(first["after_played"]["them"]) == 15
        for side in (0, 1):
            assert f"{row.summary[side]['pr']:.1f}".replace(".", ",") in page


def test_the_review_reads_in_english(analysed, carol):
    page = carol.client.get(review_url(analysed), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Analysis of game 1" in page and "blunder" in page.lower()


def test_a_running_game_or_an_unknown_one_has_no_review(room, carol):
    assert carol.client.get(review_url(room)).status_code == 404
    assert carol.client.get(review_url(room, game=2)).status_code == 404


def test_only_a_seat_holder_may_ask_for_an_analysis(finished, alice, carol, mallory):
    GameAnalysis.objects.all().delete()
    for stranger in (carol, mallory):
        response = stranger.client.post(request_url(finished))
        assert response.status_code == 403
        assert "Ese asiento no es tuyo" in response.content.decode()
    assert not GameAnalysis.objects.exists()
    page = alice.client.get(review_url(finished)).content.decode()
    assert "Analizar esta partida" in page
    response = alice.client.post(request_url(finished))
    assert response.status_code == 302 and response["Location"] == review_url(finished)
    assert GameAnalysis.objects.get().status == GameAnalysis.Status.PENDING
    alice.client.post(request_url(finished))  # twice: still one row
    assert GameAnalysis.objects.count() == 1


def test_asking_for_a_running_game_is_refused_in_words(room, alice):
    bind(alice, room)
    response = alice.client.post(request_url(room))
    assert response.status_code == 409 and "Solo se analiza una partida terminada" in (
        response.content.decode()
    )


def test_room_mis_partidas_and_profile_show_the_pr(analysed, alice):
    row = GameAnalysis.objects.get()
    pr_alice = f"{row.pr_of(0):.1f}".replace(".", ",")
    pr_bob = f"{row.pr_of(1):.1f}".replace(".", ",")
    state = alice.client.get(reverse("games:api_state", args=[analysed.slug])).json()
    assert state["match"]["analysis"] == [
        {"game": 1, "status": "done", "pr": [row.pr_of(0), row.pr_of(1)], "quick": False}
    ]
    room_page = alice.client.get(reverse("games:room", args=[analysed.slug])).content.decode()
    assert f"alice PR {pr_alice}" in room_page and f"bob PR {pr_bob}" in room_page
    assert review_url(analysed) in room_page
    mine = alice.client.get(reverse("games:my_rooms")).content.decode()
    assert f"tu PR {pr_alice}, rival {pr_bob}" in mine
    user = get_user_model().objects.create_user("alicia", "alicia@example.com", "x-Long-pass-1")
    Seat.objects.filter(pk=alice.seat.pk).update(user=user)
    alice.client.force_login(user)
    profile = alice.client.get(reverse("accounts:profile")).content.decode()
    assert f"Tu PR medio: {pr_alice}" in profile
    assert Game.objects.get().status == Game.Status.FINISHED


def test_a_past_match_page_links_its_games_reviews_after_a_rematch(analysed, alice, bob, carol):
    row = GameAnalysis.objects.get()
    services.rematch_offer(seat=alice.seat)
    services.rematch_accept(seat=bob.seat)
    past = carol.client.get(reverse("games:past_match", args=[analysed.slug, 1])).content.decode()
    assert review_url(analysed) in past
    assert f"alice PR {row.pr_of(0):.1f}".replace(".", ",") in past


def test_a_quick_first_pass_is_shown_labelled_until_the_full_one_replaces_it(
    finished, alice, carol, clock
):
    row = GameAnalysis.objects.get()
    clock.tick(services.analysis.QUICK_AFTER)  # the analysis is late: its quick pass first
    assert services.game_analysis_run(analysis_id=row.pk).status == "deferred"
    quick = GameAnalysis.objects.get(version=FAST_QUICK.version)
    page = review_page(carol, finished)
    assert 'id="analysis-quick"' in page and "primera pasada rápida" in page
    assert "Resumen por jugador" in page and 'http-equiv="refresh"' not in page
    assert "Analizar esta partida" not in review_page(alice, finished)  # it follows by itself
    assert "quick first pass" in review_page(carol, finished, language="en")
    state = alice.client.get(reverse("games:api_state", args=[finished.slug])).json()
    assert state["match"]["analysis"] == [
        {"game": 1, "status": "deferred", "pr": [quick.pr_of(0), quick.pr_of(1)], "quick": True}
    ]
    room_page = alice.client.get(reverse("games:room", args=[finished.slug])).content.decode()
    assert '<small class="analysis-quick">(primera pasada; el análisis completo sigue)' in room_page
    # The catch-up owes the full pass; the quick figures stay while it runs.
    services.game_analysis_queue(game=row.game)
    page = review_page(carol, finished)
    assert 'id="analysis-quick"' in page and "El análisis está en marcha" in page
    assert services.game_analysis_run(analysis_id=row.pk).status == "done"
    row.refresh_from_db()
    page = review_page(carol, finished)
    assert 'id="analysis-quick"' not in page and "Resumen por jugador" in page
    state = alice.client.get(reverse("games:api_state", args=[finished.slug])).json()
    assert state["match"]["analysis"] == [
        {"game": 1, "status": "done", "pr": [row.pr_of(0), row.pr_of(1)], "quick": False}
    ]
    room_page = alice.client.get(reverse("games:room", args=[finished.slug])).content.decode()
    assert 'class="analysis-quick"' not in room_page


def review_page(persona, room, language="es") -> str:
    response = persona.client.get(review_url(room), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def decision_list(page: str) -> str:
    return page.split('id="decision-list"')[1].split("</ol>")[0]


@pytest.fixture
def doubled_and_analysed(db, clock, dice):
    """A match to 3: bob doubles at his first turn and alice takes; played out and analysed."""
    alice = services.room_create(rules=MatchRules(format=Format.MATCH, length=3), nickname="alice")
    dice.push((3, 1))
    bob = services.room_join(room=alice.room, nickname="bob")
    room = alice.room
    services.game_play(seat=alice, version=version_of(room), play=[[8, 5], [6, 5]])
    services.game_double(seat=bob, version=version_of(room))
    services.game_take(seat=alice, version=version_of(room))
    play_out(room, Persona("alice", seat=alice), Persona("bob", seat=bob))
    for row in GameAnalysis.objects.filter(game__match__room=room, game__number=1):
        services.game_analysis_run(analysis_id=row.pk)
    return room


def test_cube_decisions_are_listed_in_words_never_as_codes(doubled_and_analysed, carol):
    spanish = decision_list(review_page(carol, doubled_and_analysed))
    assert re.search(r"bob</strong>\s+dobla\b", spanish)
    assert re.search(r"alice</strong>\s+acepta\b", spanish)
    for code in ("no_double", "double", "take", "drop", "beaver"):
        assert code not in spanish  # the analysis's codes stay out of the Spanish page
    english = decision_list(review_page(carol, doubled_and_analysed, "en"))
    assert re.search(r"bob</strong>\s+double\b", english)
    assert re.search(r"alice</strong>\s+take\b", english)
    assert "no_double" not in english
    data = review_page(carol, doubled_and_analysed).split(
        'id="review-data" type="application/json">'
    )
    steps = json.loads(data[1].split("<")[0])["steps"]
    double = next(s for s in steps if s["kind"] == "double")
    assert double["played_text"] == "dobla"
    assert {s["best_text"] for s in steps if s["kind"] in ("double", "no_double")} <= {
        "dobla",
        "no dobla",
    }


def test_a_game_with_a_cube_counts_its_cube_errors_with_the_right_plurals(
    doubled_and_analysed, carol
):
    page = review_page(carol, doubled_and_analysed)
    assert "Errores de cubo" in page
    assert re.search(r"\d+ errores? y \d+ graves? en \d+ decisi(ón|ones)", page)


def test_every_cube_count_takes_its_own_plural_in_both_languages():
    counts = {"cube_errors": 1, "cube_blunders": 1, "cube_decisions": 1}
    with translation.override("es"):
        assert cube_errors_text(counts) == "1 error y 1 grave en 1 decisión"
        assert cube_errors_text({**counts, "cube_decisions": 3}) == (
            "1 error y 1 grave en 3 decisiones"
        )
        assert cube_errors_text({"cube_errors": 0, "cube_blunders": 2, "cube_decisions": 2}) == (
            "0 errores y 2 graves en 2 decisiones"
        )
    with translation.override("en"):
        assert cube_errors_text(counts) == "1 error and 1 blunder in 1 decision"
        assert cube_errors_text({**counts, "cube_errors": 2, "cube_decisions": 4}) == (
            "2 errors and 1 blunder in 4 decisions"
        )


def test_a_player_without_a_decision_has_no_pr_and_a_partida_simple_no_cube_column(
    room, alice, bob, carol
):
    # alice plays her opening 3-1, bob resigns the game: he never decided anything.
    services.game_play(seat=alice.seat, version=version_of(room), play=[[8, 5], [6, 5]])
    services.match_resign(seat=bob.seat, version=version_of(room))
    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    page = review_page(carol, room)
    bob_row = page.split('<tr data-side="1">')[1].split("</tr>")[0]
    assert "sin decisiones" in bob_row and "0,0" not in bob_row
    assert "Errores de cubo" not in page  # no cube in a partida simple
    assert GameAnalysis.objects.get().pr_of(1) is None
    state = carol.client.get(reverse("games:api_state", args=[room.slug])).json()
    assert state["match"]["analysis"][0]["pr"][1] is None
    bind(alice, room)
    room_page = alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert "bob PR 0,0" not in room_page and "bob: sin decisiones" in room_page


def test_the_opening_roll_is_written_high_die_first(db, clock, dice, carol):
    # The opening roll is one die each, alice's 1 and bob's 5: bob starts with "5-1".
    alice = services.room_create(rules=MatchRules(), nickname="alice")
    dice.push((1, 5))
    bob = services.room_join(room=alice.room, nickname="bob")
    room = alice.room
    services.game_play(seat=bob, version=version_of(room), play=[[13, 8], [6, 5]])
    services.match_resign(seat=alice, version=version_of(room))
    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    assert Turn.objects.filter(kind="roll").first().dice == [1, 5]  # who rolled what
    page = decision_list(review_page(carol, room))
    assert re.search(r"bob</strong>\s+5-1: 13/8 6/5", page)
    assert "1-5" not in page
