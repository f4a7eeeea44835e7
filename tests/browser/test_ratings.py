"""In a real browser: two accounts play a rated partida simple by link, one abandons,
and both profiles show the FIBS formula's amounts (two newcomers: ±10)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECRET = "a long secret 1"


def log_in(open_page, live_server, name):
    get_user_model().objects.create_user(name, f"{name}@example.com", SECRET)
    page = open_page(name, live_server.url + reverse("accounts:login"))
    page.locator("input[name=username]").fill(name)
    page.locator("input[name=password]").fill(SECRET)
    page.locator("form.account-form button[type=submit]").click()
    expect(page.locator(".site-header")).to_contain_text(name)
    return page


def test_a_rated_match_played_in_the_browser_moves_both_ratings(live_server, dice, open_page):
    ana = log_in(open_page, live_server, "ana")
    ben = log_in(open_page, live_server, "ben")

    ana.goto(live_server.url + reverse("games:home"))
    ana.locator("form button[type=submit]", has_text="Crear la mesa").click()
    invite = ana.locator("#invite-url").input_value()

    dice.push((3, 1))
    ben.goto(invite)
    ben.get_by_role("button", name="Sentarme y jugar").click()
    ben.locator("#board-forfeit").click()
    ben.locator(".board-dialog").get_by_role("button", name="Abandonar").click()
    expect(ben.locator(".board-status")).to_contain_text("Abandonaste")

    ana.goto(live_server.url + reverse("games:player", args=["ana"]))
    expect(ana.locator(".rating strong")).to_have_text("1510,00")
    expect(ana.locator("svg.sparkline title")).to_have_text("Puntuación de ana")
    expect(ana.locator(".rating-history tbody tr")).to_have_count(1)
    expect(ana.locator(".rating-history")).to_contain_text("+10,00")

    ben.goto(live_server.url + reverse("games:player", args=["ana"]))
    expect(ben.locator(".head-to-head")).to_contain_text("ganaste 0, perdiste 1")
    ben.goto(live_server.url + reverse("games:leaderboard"))
    rows = ben.locator(".leaderboard tbody tr")
    expect(rows).to_have_count(6)  # ana, the four computer players at 1500, ben
    expect(rows.nth(0)).to_contain_text("1510,00")
    expect(rows.nth(1)).to_contain_text("Domador")
    expect(rows.nth(5)).to_contain_text("1490,00")


def test_the_board_tells_the_opponent_until_when_a_player_is_on_vacation(
    live_server, dice, open_page
):
    from games import services
    from games.engine import MatchRules
    from games.services.vacations import vacation_start
    from tests.helpers import seat_url

    ana = get_user_model().objects.create_user("ana", "ana@example.com", SECRET)
    ben = get_user_model().objects.create_user("ben", "ben@example.com", SECRET)
    host = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
    dice.push((1, 3))  # ben starts: ana waits for him
    services.room_join(room=host.room, nickname="ben", user=ben)
    vacation_start(user=ben, days=3)
    page = open_page("ana", live_server.url + seat_url(host.room, host.token))
    card = page.locator(".player-card", has_text="ben")
    expect(card.locator(".badge.vacation")).to_contain_text("de vacaciones hasta el")
    expect(page.locator(".player-card", has_text="ana").locator(".badge.vacation")).to_have_count(0)
