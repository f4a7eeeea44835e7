"""A past match's dice beside fair dice, on a phone: the tables fit, nothing scrolls sideways."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules
from games.models import Match
from tests.helpers import Persona, play_out, sideways_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_the_dice_tables_fit_a_phone(dice, clock, live_server, open_page, artifacts):
    host = services.room_create(rules=MatchRules(), nickname="alicia")
    guest = services.room_join(room=host.room, nickname="bernardo")
    room = host.room
    play_out(room, Persona("alicia", seat=host), Persona("bernardo", seat=guest))
    match = Match.objects.get(room=room)
    url = live_server.url + reverse("games:past_match", args=[room.slug, match.number])
    page = open_page("carol", url, viewport=PHONE)
    section = page.locator(".dice-stats")
    expect(section.locator("h2")).to_have_text("¿Son justos estos dados?")
    expect(section.locator(".dice-totals tbody tr")).to_have_count(11)
    section.scroll_into_view_if_needed()
    for table in (".dice-summary", ".dice-totals"):
        box = section.locator(table).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], table
    assert sideways_overflow(page) == 0
    section.screenshot(path=artifacts / "dice-stats-phone.png")
