"""In a real browser: seat links opened while a board of the same browser is
long-polling keep every seat in the session.

Binding a seat cycles the session key (games.web.seats.remember_seat). A board
that set out to poll with the old key is answered later; that late answer must
not clear the browser's session cookie, which by then holds the new key.
"""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules
from tests.helpers import seat_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def held_poll(request):
    return "/api/rooms/" in request.url and "wait=" in request.url


def test_a_poll_answered_after_another_seat_link_keeps_both_seats(live_server, dice, open_page):
    dice.push((3, 1))  # the host, alice, starts at the first table
    first_host = services.room_create(rules=MatchRules(), nickname="alice")
    first = services.room_join(room=first_host.room, nickname="leo")
    second_host = services.room_create(rules=MatchRules(), nickname="bruno")
    dice.push((1, 3))
    second = services.room_join(room=second_host.room, nickname="leo")

    def seat_link(seat):
        return live_server.url + seat_url(seat.room, seat.token)

    board = open_page("leo", seat_link(first))
    expect(board.locator("body")).to_contain_text("alice")
    # The board's long poll is held on the server, sent with the session key of now.
    board.wait_for_timeout(1500)

    tab = board.context.new_page()
    tab.goto(seat_link(second))  # a new seat: a new session key
    expect(tab.locator("body")).to_contain_text("bruno")

    # alice moves: the held poll wakes and is answered to the board.
    with board.expect_response(lambda response: held_poll(response.request)):
        services.game_play(seat=first_host, version=1, play=[[8, 5], [6, 5]])

    tab.goto(live_server.url + reverse("games:my_rooms"))
    rows = tab.locator(".my-room")
    expect(rows).to_have_count(2)
    for seat in (first, second):  # and each room still knows its seat here
        tab.goto(live_server.url + reverse("games:room", args=[seat.room.slug]))
        expect(tab.locator("body")).not_to_contain_text("Estás mirando")
