"""In a real browser: one account posts a challenge in the lobby, another accepts it,
and a word sent by one shows up on the other's open board by itself, as text.
"""

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from games.models import Challenge, Message, Room
from tests.helpers import finish_turn, make_player, tap_step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCRIPT = "<b>hola</b><script>window.hacked = 1</script>"


def signed_in_page(open_page, live_server, user, path):
    """A page of a browser logged in as `user` (the session cookie of a forced log-in)."""
    client = Client()
    client.force_login(user)
    page = open_page(user.username, live_server.url + reverse("games:rules"))
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )
    page.goto(live_server.url + path)
    return page


def test_a_challenge_posted_and_accepted_in_the_lobby_starts_a_board_that_talks(
    live_server, clock, dice, open_page
):
    ana, beto = make_player("ana"), make_player("beto")
    lobby = reverse("games:lobby")

    posting = signed_in_page(open_page, live_server, ana, lobby)
    posting.select_option("#id_format", "match")
    posting.select_option("#id_length", "3")
    posting.get_by_role("button", name="Publicar").click()
    expect(posting.locator(".messages")).to_contain_text("Tu desafío está publicado")
    expect(posting.locator(".challenge")).to_contain_text("Un match a 3 puntos")

    dice.push((3, 1))  # ana, at seat 1, starts
    accepting = signed_in_page(open_page, live_server, beto, lobby)
    accepting.get_by_role("button", name="Aceptar y jugar").click()
    expect(accepting.locator("#board-app")).to_be_visible()
    room = Room.objects.get()
    assert Challenge.objects.get().room == room
    assert accepting.url.endswith(reverse("games:room", args=[room.slug]))

    board = signed_in_page(open_page, live_server, ana, reverse("games:room", args=[room.slug]))
    expect(board.locator("#board-app")).to_be_visible()
    expect(board.locator("#talk")).to_contain_text("Todavía no hay mensajes")

    accepting.fill("#talk-text", SCRIPT)
    accepting.get_by_role("button", name="Enviar").click()
    expect(accepting.locator("#talk .talk-lines")).to_contain_text(SCRIPT)

    # ana's open board hears of it through its long poll and shows it as text.
    expect(board.locator("#talk .talk-lines li.theirs")).to_have_text(f"beto: {SCRIPT}")
    assert board.evaluate("window.hacked") is None
    assert board.locator("#talk b").count() == 0

    # A word typed in the box goes with ana's next play on the board.
    board.fill("#talk-text", "Ahí va")
    tap_step(board, 8, 5)
    tap_step(board, 6, 5)
    finish_turn(board)
    expect(accepting.locator("#talk .talk-lines li.theirs")).to_have_text("ana: Ahí va")
    expect(board.locator("#talk-text")).to_have_value("")
    word = Message.objects.get(text="Ahí va")
    assert word.with_turn and word.version == room.matches.get().version


def test_a_challenge_accepted_in_the_lobby_and_played_out_moves_both_ratings(
    live_server, dice, open_page
):
    # Two newcomers (1500, no experience) in a partida simple, rated as a
    # 1-point match: the FIBS formula gives the winner 4 * 5 * sqrt(1) * 0.5 = 10.
    ana, beto = make_player("ana"), make_player("beto")
    lobby = reverse("games:lobby")
    posting = signed_in_page(open_page, live_server, ana, lobby)
    posting.get_by_role("button", name="Publicar").click()
    expect(posting.locator(".challenge")).to_contain_text("Una partida simple")

    dice.push((3, 1))  # ana, at seat 1, starts
    beto_board = signed_in_page(open_page, live_server, beto, lobby)
    beto_board.get_by_role("button", name="Aceptar y jugar").click()
    expect(beto_board.locator("#board-app")).to_be_visible()
    room = Room.objects.get()
    ana_board = signed_in_page(open_page, live_server, ana, reverse("games:room", args=[room.slug]))

    # No cube in a partida simple, so the table rolls for each player at once.
    dice.push((6, 4))
    tap_step(ana_board, 8, 5)
    tap_step(ana_board, 6, 5)
    finish_turn(ana_board)
    dice.push((5, 2))
    tap_step(beto_board, 24, 18)
    tap_step(beto_board, 13, 9)
    finish_turn(beto_board)

    # ana gives the game up as a single game and beto takes it: the game, and
    # with it the match, is over.
    expect(ana_board.locator(".board-status")).to_contain_text("Te toca mover con 5-2")
    ana_board.locator("#board-resign").click()
    ana_board.get_by_role("button", name="Ofrecer la rendición").click()
    beto_board.get_by_role("button", name="Aceptar la rendición").click()
    beto_board.locator(".board-dialog").get_by_role("button", name="Aceptar la rendición").click()
    expect(beto_board.locator(".board-status")).to_contain_text("¡Ganaste!")

    beto_board.goto(live_server.url + reverse("games:player", args=["beto"]))
    expect(beto_board.locator(".rating strong")).to_have_text("1510,00")
    expect(beto_board.locator(".rating-history")).to_contain_text("+10,00")
    ana_board.goto(live_server.url + reverse("games:player", args=["ana"]))
    expect(ana_board.locator(".rating strong")).to_have_text("1490,00")
    expect(ana_board.locator(".rating-history")).to_contain_text("-10,00")
