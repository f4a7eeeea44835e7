"""The header on a phone (390 × 844): one line with a menu, so the board stays in
view; the menu opens and closes, and a desktop still shows every link at once."""

import pytest
from playwright.sync_api import expect

from games.engine import MatchRules
from tests.helpers import seated, table_urls

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_on_a_phone_the_header_is_one_line_and_the_board_is_in_view(
    live_server, dice, open_page, artifacts
):
    dice.push((3, 1))
    page = open_page(
        "alice", table_urls(live_server, *seated(MatchRules()))["alice"], viewport=PHONE
    )
    expect(page.locator(".board-svg .piece")).to_have_count(30)
    header = page.locator(".site-header").bounding_box()
    board = page.locator("#board-app .board-svg").bounding_box()
    page.screenshot(path=str(artifacts / "phone-header.png"))
    print(f"header {header['height']:.0f} px, board top {board['y']:.0f} px")
    assert header["height"] <= 64, header
    # The whole board on the first screen, with room for the status line below it.
    assert board["y"] + board["height"] <= PHONE["height"] - 80, board
    links = page.get_by_role("navigation", name="Principal").get_by_role("link")
    expect(links.first).to_be_hidden()
    menu = page.get_by_role("button", name="Menú")
    expect(menu).to_have_attribute("aria-expanded", "false")
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("link", name="Clasificación")).to_be_visible()
    expect(page.get_by_role("button", name="English")).to_be_visible()
    page.screenshot(path=str(artifacts / "phone-header-open.png"))
    page.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()
    expect(page.get_by_role("link", name="Clasificación")).to_be_hidden()


def test_on_a_desktop_every_link_shows_and_there_is_no_menu(live_server, open_page):
    page = open_page("carol", live_server.url + "/")
    expect(page.get_by_role("link", name="Clasificación")).to_be_visible()
    expect(page.get_by_role("button", name="Menú")).to_be_hidden()
    assert page.locator(".site-header").bounding_box()["height"] <= 64
