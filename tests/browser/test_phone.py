"""On a 390 × 844 phone: no page scrolls sideways, the board's tap targets are
big enough for a finger, and the checkers that may move stand out before the
first tap."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.engine import Format, MatchRules
from tests.helpers import (
    centre_of,
    seat_url,
    seated,
    settled,
    sideways_overflow,
    spot,
    table_urls,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
FINGER = 44  # CSS pixels: the smallest tap target, in at least one direction


@pytest.fixture
def rematched(live_server, dice):
    """alice and bob: a first match won by alice, a second one running (the archive has both)."""
    dice.push((3, 1))
    alice, bob = seated(MatchRules())
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    services.match_resign(seat=bob, version=alice.room.matches.get().version)
    services.rematch_offer(seat=alice)
    services.rematch_accept(seat=bob)
    return alice, bob


def test_the_board_page_fits_a_phone(live_server, dice, open_page):
    dice.push((6, 5))
    urls = table_urls(live_server, *seated(MatchRules()))
    page = open_page("alice", urls["alice"], viewport=PHONE)
    expect(page.locator(".board-svg .spot")).to_have_count(26)
    settled(page)
    assert sideways_overflow(page) == 0


def test_the_archive_and_a_past_match_fit_a_phone(rematched, live_server, open_page):
    room = rematched[0].room
    page = open_page(
        "carol", live_server.url + reverse("games:room_archive", args=[room.slug]), viewport=PHONE
    )
    expect(page.locator("#encuentro-1")).to_be_visible()
    assert sideways_overflow(page) == 0
    page.goto(live_server.url + reverse("games:past_match", args=[room.slug, 1]))
    expect(page.locator("h1")).to_have_text("Encuentro 1")
    assert sideways_overflow(page) == 0


def test_mis_partidas_and_the_waiting_room_fit_a_phone(rematched, live_server, open_page):
    alice, _ = rematched
    page = open_page("alice", live_server.url + seat_url(alice.room, alice.token), viewport=PHONE)
    expect(page.locator(".board-svg .spot")).to_have_count(26)
    assert sideways_overflow(page) == 0
    host = services.room_create(rules=MatchRules(), nickname="alice")
    page.goto(live_server.url + seat_url(host.room, host.token))
    expect(page.locator("#invite-url")).to_be_visible()
    assert sideways_overflow(page) == 0
    page.goto(live_server.url + reverse("games:my_rooms"))
    expect(page.locator(".my-room")).to_have_count(2)
    assert sideways_overflow(page) == 0


def test_every_tap_target_on_the_board_is_a_finger_wide_or_tall(live_server, dice, open_page):
    dice.push((3, 1))
    alice, bob = seated(MatchRules(format=Format.MATCH, length=3))
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    page = open_page("bob", live_server.url + seat_url(bob.room, bob.token), viewport=PHONE)
    # bob may double: the dice and the cube are buttons, with the 26 spots.
    expect(page.locator('.board-svg [data-key="cube"]')).to_have_count(1)
    expect(page.locator('.board-svg [data-key="dice"]')).to_have_count(1)
    targets = page.locator(".board-svg .spot")
    expect(targets).to_have_count(28)
    for target in targets.all():
        box = target.bounding_box()
        key = target.get_attribute("data-key")
        assert max(box["width"], box["height"]) >= FINGER, (key, box)
    for button in page.locator(".board-controls button:visible").all():
        box = button.bounding_box()
        assert max(box["width"], box["height"]) >= FINGER, (button.inner_text(), box)


def test_the_checkers_that_may_move_stand_out_before_the_first_tap(live_server, dice, open_page):
    dice.push((6, 5))  # alice starts: 24, 13 and 8 hold checkers that may move
    urls = table_urls(live_server, *seated(MatchRules()))
    page = open_page("alice", urls["alice"], viewport=PHONE)
    settled(page)
    sources = page.locator(".board-svg .spot.source")
    expect(sources.first).to_be_attached()
    keys = {s.get_attribute("data-key") for s in sources.all()}
    assert keys == {"24", "13", "8"}
    rings = page.locator(".board-svg .movable-ring")
    expect(rings).to_have_count(len(keys))
    for ring in rings.all():
        assert ring.evaluate("(e) => getComputedStyle(e).stroke") == "rgb(255, 243, 196)"
        assert float(ring.evaluate("(e) => parseFloat(getComputedStyle(e).strokeWidth)")) >= 3
        x, y = centre_of(ring)
        # The ring sits on one of the movable points.
        assert any(
            box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]
            for box in (spot(page, int(k)).bounding_box() for k in keys)
        )
    # The movable points' own ground is tinted too, not just faintly washed.
    hit = spot(page, 13, ".source").locator(".hit")
    alpha = hit.evaluate("(e) => getComputedStyle(e).fill")
    assert alpha not in ("rgba(0, 0, 0, 0)", "rgba(255, 255, 255, 0.08)"), alpha
    assert hit.evaluate("(e) => getComputedStyle(e).stroke") != "none"
    # A checker that may not move wears no ring: bob's, across the board.
    spot(page, 13, ".source").click()
    expect(rings).to_have_count(len(keys) - 1)  # the picked one is marked as picked instead
