"""The review page of a finished game, the request to analyse it, and where the PR shows.

Seats and spectators may read a review; only a seat holder may ask for an
analysis. The evaluator runs at bgsage 1-ply here (fast).
"""

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services, tasks
from games.models import Game, GameAnalysis, Seat, Turn
from tests.helpers import bind, play_out


@pytest.fixture(autouse=True)
def fast_settings(fast_analysis, monkeypatch):
    """bgsage at 1-ply, and no analysis task queued when a game ends: the tests run it."""
    monkeypatch.setattr(tasks.analyse_game, "delay", lambda analysis_id: None)


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
        {"game": 1, "status": "done", "pr": [row.pr_of(0), row.pr_of(1)]}
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
