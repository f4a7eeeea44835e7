"""The browser's time zone reaches the seat, so "Es tu turno" names the deadline
in the reader's own hours (games.mail.news)."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules
from games.models import Seat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_joining_from_a_browser_in_lima_keeps_lima_for_the_emails(live_server, browser, dice):
    host = services.room_create(rules=MatchRules(), nickname="alice")
    context = browser.new_context(locale="es-ES", timezone_id="America/Lima")
    try:
        page = context.new_page()
        page.goto(live_server.url + reverse("games:room", args=[host.room.slug]))
        expect(page.locator('input[name="time_zone"]')).to_have_value("America/Lima")
        page.locator('input[name="nickname"]').fill("bob")
        dice.push((3, 1))
        page.get_by_role("button", name="Sentarme y jugar").click()
        expect(page.locator(".board-svg .spot")).to_have_count(26)
    finally:
        context.close()
    assert Seat.objects.get(room=host.room, number=2).time_zone == "America/Lima"
