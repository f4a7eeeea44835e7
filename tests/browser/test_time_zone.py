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


MONTHS = "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre"


def test_one_board_writes_every_moment_one_way_in_the_readers_zone(live_server, browser, dice):
    # ben is on vacation: the notice above the board and his player card both say until when.
    from zoneinfo import ZoneInfo

    from django.contrib.auth import get_user_model

    from games.services.vacations import vacation_start
    from tests.helpers import seat_url

    ana = get_user_model().objects.create_user("ana", "ana@example.com", "a long secret 1")
    ben = get_user_model().objects.create_user("ben", "ben@example.com", "a long secret 1")
    host = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
    dice.push((1, 3))  # ben starts: ana waits for him
    services.room_join(room=host.room, nickname="ben", user=ben)
    back = vacation_start(user=ben, days=3).ends_at.astimezone(ZoneInfo("America/Lima"))
    day, hour = f"{back.day} de {MONTHS.split()[back.month - 1]}", f"{back:%H:%M}"
    context = browser.new_context(locale="es-ES", timezone_id="America/Lima")
    try:
        page = context.new_page()
        page.goto(live_server.url + seat_url(host.room, host.token))
        badge = page.locator(".player-card", has_text="ben").locator(".badge.vacation")
        notice = page.locator(".notice.vacation time")
        expect(badge).to_contain_text(day)
        expect(notice).to_contain_text(day)
        # One way of writing it (the browser's Spanish), in Lima's hours, in both places.
        written = notice.inner_text()
        assert hour in written and "UTC" not in written
        expect(badge).to_have_text(f"de vacaciones hasta el {written}: su reloj está parado")
        expect(page.locator(".notice.vacation")).to_contain_text(
            f"ben está de vacaciones hasta el {written}."
        )
    finally:
        context.close()
