"""The chart of a reviewed game in a real browser: what it draws, where a click goes, a phone.

A partida simple is played out through the services (the first legal play
each turn: plenty of errors to mark) and analysed at bgsage 1-ply; a
spectator opens its review. The chart's data is the page's own #luck-chart.
"""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services, tasks
from games.engine import MatchRules
from games.models import GameAnalysis
from tests.helpers import Persona, play_out, sideways_overflow, when_published

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def analysed_room(monkeypatch, dice, clock, fast_analysis):
    when_published(monkeypatch, tasks.analyse_game, lambda analysis_id: None)
    host = services.room_create(rules=MatchRules(), nickname="alice")
    dice.push((3, 1))
    guest = services.room_join(room=host.room, nickname="bob")
    play_out(host.room, Persona("alice", seat=host), Persona("bob", seat=guest))
    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    return host.room


@pytest.fixture
def marked_room(analysed_room):
    """The same game with four of its rolls marked as the analysis marks them, one of each."""
    row = GameAnalysis.objects.get()
    marks = ["very_lucky", "lucky", "unlucky", "very_unlucky"]
    for roll, mark in zip(row.luck["rolls"][4::7], marks, strict=False):
        roll["mark"] = mark
    row.save(update_fields=["luck"])
    return analysed_room


def opened(open_page, live_server, room, viewport=None):
    url = live_server.url + reverse("games:review", args=[room.slug, 1, 1])
    page = open_page("carol", url, viewport=viewport)
    chart = json.loads(page.locator("#luck-chart").text_content())
    steps = json.loads(page.locator("#review-data").text_content())["steps"]
    expect(page.locator("#luck-svg polyline.chart-line")).to_have_count(1)
    return page, chart, steps


def test_the_chart_draws_a_point_per_roll_the_marked_rolls_and_the_errors(
    marked_room, live_server, open_page
):
    page, chart, _ = opened(open_page, live_server, marked_room)
    line = page.locator("#luck-svg polyline.chart-line").get_attribute("points").split()
    assert len(line) == len(chart["points"]) + 1  # every roll, and the game's end
    for mark in ("very_lucky", "lucky", "unlucky", "very_unlucky"):
        index = next(i for i, p in enumerate(chart["points"]) if p["mark"] == mark)
        shape = page.locator(f"#luck-svg .chart-roll.{mark}")
        expect(shape).to_have_count(1)
        assert shape.get_attribute("data-index") == str(index)
        # Good luck points up, bad luck down: the tip is above or below the line's point.
        tip_y = float(shape.get_attribute("points").split()[0].split(",")[1])
        point_y = float(line[index].split(",")[1])
        assert (tip_y < point_y) == (mark in ("very_lucky", "lucky")), mark
    big = page.locator("#luck-svg .chart-roll.very_lucky").bounding_box()
    small = page.locator("#luck-svg .chart-roll.lucky").bounding_box()
    assert big["width"] > small["width"]  # the big rolls stand out
    assert chart["errors"], "the first legal play every turn makes errors"
    expect(page.locator("#luck-svg .chart-error")).to_have_count(len(chart["errors"]))
    # The line climbs for side 0 where their chance grows: the highest point is the top.
    ys = [float(spot.split(",")[1]) for spot in line]
    best = max(range(len(chart["points"])), key=lambda i: chart["points"][i]["y"])
    assert ys[best] == min(ys[:-1])
    # Named for a screen reader, with nothing focusable inside the picture.
    svg = page.locator("#luck-svg")
    assert svg.get_attribute("role") == "img"
    expect(page.locator("#luck-svg-title")).to_have_text("Gráfico de la partida")
    assert page.locator("#luck-svg [tabindex], #luck-svg a, #luck-svg button").count() == 0


def test_a_click_on_an_error_shows_that_decision_and_the_cursor_follows(
    analysed_room, live_server, open_page
):
    page, chart, steps = opened(open_page, live_server, analysed_room)
    error = chart["errors"][-1]
    wanted = next(i for i, s in enumerate(steps) if s["turn"] == error["turn"])
    before = page.locator("#luck-svg .chart-cursor").get_attribute("x1")
    page.locator("#luck-svg .chart-error").last.click(force=True)
    expect(page.locator("#review-step")).to_have_text(f"Decisión {wanted + 1} de {len(steps)}")
    expect(page.locator("#decision-list li.current")).to_have_attribute("data-index", str(wanted))
    assert page.locator("#luck-svg .chart-cursor").get_attribute("x1") != before
    # Under the play's detail, the luck of the roll it was made with.
    roll = max((p for p in chart["points"] if p["turn"] < error["turn"]), key=lambda p: p["turn"])
    expect(page.locator("#review-detail .roll-luck")).to_contain_text(
        f"Suerte de la tirada {roll['dice']}: "
    )


def test_the_table_behind_the_chart_has_a_row_and_a_button_per_roll(
    analysed_room, live_server, open_page
):
    page, chart, steps = opened(open_page, live_server, analysed_room)
    page.get_by_text("Ver el gráfico como tabla").click()
    rows = page.locator("#luck-table tbody tr")
    expect(rows).to_have_count(len(chart["points"]))
    third = chart["points"][2]
    expect(rows.nth(2).locator("td").nth(2)).to_have_text(third["dice"])
    rows.nth(2).get_by_role("button").click()
    # The play made with that roll.
    wanted = next(
        i for i, s in enumerate(steps) if s["turn"] > third["turn"] and s["kind"] == "play"
    )
    expect(page.locator("#review-step")).to_have_text(f"Decisión {wanted + 1} de {len(steps)}")


def test_on_a_phone_the_chart_fits_the_screen_and_is_drawn_at_its_width(
    marked_room, live_server, open_page, artifacts
):
    page, chart, _ = opened(open_page, live_server, marked_room, viewport=PHONE)
    svg = page.locator("#luck-svg")
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["width"] > 300 and box["height"] >= 150
    # Drawn in the phone's pixels (no tiny scaled-down text): the viewBox is the box.
    width = float(svg.get_attribute("viewBox").split()[2])
    assert abs(width - box["width"]) <= 2
    assert sideways_overflow(page) == 0
    page.locator("#luck").screenshot(path=artifacts / "review-chart-phone.png")


def test_the_chart_on_a_desktop_screenshot(marked_room, live_server, open_page, artifacts):
    page, _, _ = opened(open_page, live_server, marked_room)
    page.locator("#luck").screenshot(path=artifacts / "review-chart-desktop.png")
    page.screenshot(path=artifacts / "review-desktop.png", full_page=True)
