"""The review page in a real browser: step through an analysed game with the keyboard.

A partida simple is played out through the services (first legal play each
turn), analysed at bgsage 1-ply (fast), and opened by a spectator. The arrow
keys move from decision to decision; both boards redraw, the step counter and
the detail follow, and the list marks the current decision.
"""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services, tasks
from games.engine import MatchRules
from games.models import GameAnalysis
from tests.helpers import (
    Persona,
    centre_of,
    drawn_colour,
    play_out,
    sideways_overflow,
    when_published,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
TRANSPARENT = ("rgba(0, 0, 0, 0)", "transparent", "none")


def computed(locator, prop: str) -> str:
    return locator.evaluate(f"(e) => getComputedStyle(e).{prop}")


def review_url(live_server, room) -> str:
    return live_server.url + reverse("games:review", args=[room.slug, 1, 1])


@pytest.fixture
def analysed_room(monkeypatch, dice, clock, fast_analysis):
    when_published(monkeypatch, tasks.analyse_game, lambda analysis_id: None)
    host = services.room_create(rules=MatchRules(), nickname="alice")
    dice.push((3, 1))
    guest = services.room_join(room=host.room, nickname="bob")
    play_out(host.room, Persona("alice", seat=host), Persona("bob", seat=guest))
    row = GameAnalysis.objects.get()
    services.game_analysis_run(analysis_id=row.pk)
    return host.room


def test_a_spectator_steps_through_the_review_with_the_arrow_keys(
    analysed_room, live_server, open_page
):
    url = live_server.url + reverse("games:review", args=[analysed_room.slug, 1, 1])
    page = open_page("carol", url)
    counter = page.locator("#review-step")
    total = page.locator("#decision-list li").count()
    assert total > 10
    expect(counter).to_have_text(f"Decisión 1 de {total}")
    expect(page.locator("#board-played .piece")).to_have_count(30)
    expect(page.locator("#board-best .piece")).to_have_count(30)
    first_detail = page.locator("#review-detail").inner_text()
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Decisión 2 de {total}")
    expect(page.locator("#decision-list li.current")).to_have_attribute("data-index", "1")
    assert page.locator("#review-detail").inner_text() != first_detail
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(f"Decisión 2 de {total}")
    page.keyboard.press("End")
    expect(counter).to_have_text(f"Decisión {total} de {total}")
    page.keyboard.press("ArrowRight")  # past the end: stays on the last
    expect(counter).to_have_text(f"Decisión {total} de {total}")
    page.get_by_role("button", name="Primera decisión").click()
    expect(counter).to_have_text(f"Decisión 1 de {total}")
    # The played play is marked on its board (the last-move marks of the table).
    expect(page.locator("#board-played .last-to").first).to_be_attached()
    expect(page.locator(".analysis-summary tbody tr")).to_have_count(2)


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_both_review_boards_are_drawn_in_wood_with_every_checker_visible(
    analysed_room, live_server, open_page, viewport
):
    page = open_page("carol", review_url(live_server, analysed_room), viewport=viewport)
    for board in ("#board-played", "#board-best"):
        svg = page.locator(board)
        expect(svg.locator(".piece")).to_have_count(30)
        svg.scroll_into_view_if_needed()
        # The board stylesheet reaches these boards: wooden points, not SVG's default black.
        assert computed(svg.locator(".tri.dark").first, "fill") == "rgb(91, 44, 20)"
        assert computed(svg.locator(".tri.light").first, "fill") == "rgb(240, 220, 176)"
        # The tap targets over the points stay see-through, so the checkers show.
        for hit in svg.locator(".hit").all():
            assert computed(hit, "fill") in TRANSPARENT
        # What is painted where a checker stands: brass for a cap, the tyre's light rim.
        cap = svg.locator("use.piece.cap").first
        red, green, blue = drawn_colour(page, *centre_of(cap))
        assert red > 150 and green > 100 and blue < 140, (red, green, blue)
        tyre = svg.locator("use.piece.tyre").first
        x, y = centre_of(tyre)
        scale = tyre.bounding_box()["width"] / 40  # the checker is 40 units across
        rim = drawn_colour(page, x + 5.2 * scale, y + 3.8 * scale)
        assert min(rim) > 120, rim  # the grey rim between two spokes, not a black hole
        box = svg.bounding_box()
        assert box["width"] > 250 and box["height"] > 150


def test_nothing_on_the_review_page_scrolls_sideways_on_a_phone(
    analysed_room, live_server, open_page
):
    page = open_page("carol", review_url(live_server, analysed_room), viewport=PHONE)
    expect(page.locator("#board-played .piece")).to_have_count(30)
    assert sideways_overflow(page) == 0
    boards = [page.locator(b).bounding_box() for b in ("#board-played", "#board-best")]
    for box in boards:
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_the_first_and_last_buttons_are_drawn_icons_not_font_glyphs(
    analysed_room, live_server, open_page
):
    page = open_page("carol", review_url(live_server, analysed_room))
    for name in ("Primera decisión", "Decisión anterior", "Decisión siguiente", "Última decisión"):
        button = page.get_by_role("button", name=name)
        icon = button.locator("svg")
        expect(icon).to_have_count(1)
        assert button.inner_text().strip() == ""  # no character that a font may lack
        box = icon.bounding_box()
        assert box["width"] >= 16 and box["height"] >= 16
        target = button.bounding_box()
        assert max(target["width"], target["height"]) >= 44


@pytest.mark.parametrize(
    ("locale", "decimal", "other"), [("es-ES", ",", "."), ("en-GB", ".", ",")], ids=["es", "en"]
)
def test_the_reviews_equities_are_written_as_the_pages_language_writes_numbers(
    analysed_room, live_server, open_page, locale, decimal, other
):
    page = open_page("carol", review_url(live_server, analysed_room), locale=locale)
    detail = page.locator("#review-detail")
    for _ in range(40):  # to a decision with alternatives and a loss
        if page.locator("#review-detail .alternatives").count() and "−" in detail.inner_text():
            break
        page.keyboard.press("ArrowRight")
    text = detail.inner_text()
    assert re.search(rf"\d\{decimal}\d{{3}}", text), text
    assert not re.search(rf"\d\{other}\d{{3}}", text), text
    listed = page.locator("#decision-list").inner_text()
    assert not re.search(rf"\d\{other}\d{{3}}", listed)
