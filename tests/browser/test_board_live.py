"""The live board follows the end of a game without a reload: the analysis
link and the PR, the dice check in the page, the score sheet across games,
and the opening roll written high die first."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services, tasks
from games.engine import Format, MatchRules
from games.models import Game, GameAnalysis, Turn
from games.selectors import verify_game_dice
from tests.helpers import Persona, latest_version, play_turns, seat_url, seated, when_published

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def analysis_by_hand(monkeypatch, fast_analysis):
    """No worker: the test runs each game's analysis when it wants it done."""
    when_published(monkeypatch, tasks.analyse_game, lambda analysis_id: None)


def board(open_page, live_server, seat, **options):
    page = open_page(seat.nickname, live_server.url + seat_url(seat.room, seat.token), **options)
    expect(page.locator(".board-svg .spot")).to_have_count(26)
    page.evaluate("window.sameDocument = true")  # gone after any reload
    return page


def test_the_analysis_link_appears_when_the_game_ends_and_goes_with_a_rematch(
    live_server, dice, open_page
):
    dice.push((3, 1))
    alice, bob = seated(MatchRules())
    page = board(open_page, live_server, alice)
    expect(page.locator("#board-analysis")).to_be_hidden()
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    services.match_resign(seat=bob, version=latest_version())

    panel = page.locator("#board-analysis")
    expect(panel).to_be_visible()
    link = panel.get_by_role("link", name="Partida 1")
    review = reverse("games:review", args=[alice.room.slug, 1, 1])
    expect(link).to_have_attribute("href", review)
    expect(panel).to_contain_text("analizando…")

    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    expect(panel).to_contain_text("alice PR", timeout=30_000)  # a plain look every 10 s
    expect(panel).to_contain_text("bob: sin decisiones")  # he resigned before deciding anything
    expect(panel).not_to_contain_text("analizando")

    services.rematch_offer(seat=alice)
    services.rematch_accept(seat=bob)
    expect(page.locator(".board-status")).not_to_contain_text("Gana")
    expect(panel).to_be_hidden()  # the new match has no finished game yet
    expect(page.locator("#analysis-links")).to_have_count(0)
    assert page.evaluate("window.sameDocument") is True


def test_a_quick_first_pass_shows_labelled_then_the_full_one_replaces_it(
    live_server, dice, open_page
):
    dice.push((3, 1))
    alice, bob = seated(MatchRules())
    page = board(open_page, live_server, alice)
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    services.match_resign(seat=bob, version=latest_version())
    panel = page.locator("#board-analysis")
    expect(panel).to_contain_text("analizando…")

    row = GameAnalysis.objects.get()
    late = row.requested_at - services.analysis.QUICK_AFTER
    GameAnalysis.objects.filter(pk=row.pk).update(requested_at=late)  # the queue is behind
    assert services.game_analysis_run(analysis_id=row.pk).status == "deferred"
    expect(panel).to_contain_text("primera pasada; el análisis completo sigue", timeout=30_000)
    expect(panel).to_contain_text("alice PR")

    services.game_analysis_queue(game=row.game)  # the queue is idle: the full pass
    services.game_analysis_run(analysis_id=row.pk)
    expect(panel).not_to_contain_text("primera pasada", timeout=30_000)
    expect(panel).to_contain_text("alice PR")
    assert page.evaluate("window.sameDocument") is True


def test_the_dice_of_a_finished_game_are_checked_in_the_page_roll_by_roll(
    live_server, dice, open_page
):
    # No scripted pairs: every roll comes from the game's seed, as on the site.
    alice, bob = seated(MatchRules())
    play_turns(alice.room, Persona("alice", seat=alice), Persona("bob", seat=bob), 4)
    services.match_resign(seat=bob, version=latest_version())
    assert verify_game_dice(Game.objects.get())  # the server's own check agrees
    page = board(open_page, live_server, alice)
    proof = page.locator(".board-proof")
    expect(proof.locator("details code")).to_contain_text("python -m games.engine.dice")
    proof.get_by_role("button", name="Comprobar los dados aquí").click()
    verdict = proof.locator(".proof-verdict")
    rolls = Turn.objects.filter(kind="roll").count()
    expect(verdict).to_have_text(
        "Comprobado en tu navegador: la semilla da el compromiso publicado y las "
        f"{rolls} tiradas de la partida, una por una."
    )
    assert verdict.evaluate("(e) => getComputedStyle(e).display") != "none"

    # A record that differs from what the seed gives is caught, and the roll named.
    second = Turn.objects.filter(kind="roll").order_by("number")[1]
    honest = second.dice
    high, low = honest
    forged = [high % 6 + 1, low]
    Turn.objects.filter(pk=second.pk).update(dice=forged)
    try:
        page.reload()
        page.locator(".board-proof").get_by_role("button", name="Comprobar los dados aquí").click()
        expect(page.locator(".proof-verdict")).to_contain_text(
            f"La tirada 2 no coincide: el registro dice {forged[0]}-{forged[1]} y la semilla da "
            f"{high}-{low}."
        )
    finally:
        Turn.objects.filter(pk=second.pk).update(dice=honest)


def test_the_score_sheet_ends_the_game_in_play_with_its_own_moves(live_server, dice, open_page):
    dice.push((3, 1))
    alice, bob = seated(MatchRules(format=Format.MATCH, length=3))
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    services.game_double(seat=bob, version=latest_version())
    dice.push((1, 3))  # the second game's opening: bob starts
    services.game_drop(seat=alice, version=latest_version())
    page = board(open_page, live_server, bob)
    history = page.locator(".board-history")
    expect(history.locator("h3")).to_have_text(["Partida 1", "Partida 2"])
    last = history.locator("> *").last
    expect(last).not_to_have_text("Empieza la partida siguiente")
    notes = history.locator(".history-note")
    expect(notes.filter(has_text="Empieza la partida siguiente")).to_have_count(1)
    # It stands under game 1, before the heading of game 2.
    texts = [node.inner_text() for node in history.locator("> *").all()]
    assert texts.index("Empieza la partida siguiente") < texts.index("Partida 2")


def test_an_opening_roll_is_shown_high_die_first(live_server, dice, open_page):
    dice.push((1, 5))  # alice's die 1, bob's 5: bob starts with 5-1
    _, bob = seated(MatchRules())
    page = board(open_page, live_server, bob)
    expect(page.locator(".board-status")).to_contain_text("Te toca mover con 5-1")
    faces = page.locator(".board-svg .dice-set .die-face")
    expect(faces).to_have_count(2)
    # Read pips and places in one go: the board may redraw the dice between two
    # separate reads, and a face being replaced has no box.
    drawn = faces.evaluate_all(
        "faces => faces.map(f => [f.getBoundingClientRect().x,"
        " f.querySelectorAll('circle').length])"
    )
    assert [pips for _, pips in sorted(drawn)] == [5, 1]


def test_the_winner_of_a_match_needs_nothing_more(live_server, dice, open_page):
    dice.push((3, 1))
    alice, bob = seated(MatchRules(format=Format.MATCH, length=1))
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    page = board(open_page, live_server, alice)
    expect(page.locator(".player-card[data-side='0']")).to_contain_text("le falta 1")
    services.game_resign_offer(seat=bob, version=latest_version(), value=1)
    services.game_resign_accept(seat=alice, version=latest_version())
    card = page.locator(".player-card[data-side='0']")
    expect(card).to_contain_text("1 punto")
    expect(card).not_to_contain_text("le falta")
    expect(page.locator(".player-card[data-side='1']")).to_contain_text("0 puntos")
    expect(page.locator(".player-card[data-side='1']")).not_to_contain_text("le falta")


def test_a_past_matchs_dice_are_checked_in_its_page_too(live_server, dice, open_page):
    alice, bob = seated(MatchRules())  # every roll from the seed
    room = alice.room
    play_turns(room, Persona("alice", seat=alice), Persona("bob", seat=bob), 3)
    services.match_resign(seat=bob, version=latest_version())
    services.rematch_offer(seat=alice)
    services.rematch_accept(seat=bob)
    first = room.matches.get(number=1).games.get()
    page = open_page("carol", live_server.url + reverse("games:past_match", args=[room.slug, 1]))
    page.get_by_role("button", name="Comprobar los dados aquí").click()
    expect(page.locator(".proof-verdict")).to_have_text(
        "Comprobado en tu navegador: la semilla da el compromiso publicado y las "
        f"{first.turns.filter(kind='roll').count()} tiradas de la partida, una por una."
    )
    expect(page.locator(".dice-proof code")).to_contain_text("python -m games.engine.dice")
