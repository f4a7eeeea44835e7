"""One browser, several requests in flight: a board's state request that set out
with the session key a seat link has since cycled must not cost the browser its
seats.

The two test clients share one session cookie, as a browser's tab and its
board's poll do; the poll is answered after the seat link replaced the key.
"""

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games import services
from games.engine import MatchRules
from games.web.seats import SESSION_SEATS
from tests.helpers import seat_url

pytestmark = pytest.mark.django_db


def seat_link(seat):
    return seat_url(seat.room, seat.token)


def guest_seats(count):
    seats = []
    for number in range(count):
        host = services.room_create(rules=MatchRules(), nickname=f"host {number}")
        seats.append(services.room_join(room=host.room, nickname="leo"))
    return seats


def test_a_poll_sent_with_the_old_session_key_leaves_the_new_session_cookie_alone():
    first, second = guest_seats(2)
    tab, board = Client(), Client()
    tab.get(seat_link(first))
    old_key = tab.cookies[settings.SESSION_COOKIE_NAME].value
    board.cookies[settings.SESSION_COOKIE_NAME] = old_key  # the poll set out with this key

    tab.get(seat_link(second))  # cycles the key: the old one is gone
    new_key = tab.cookies[settings.SESSION_COOKIE_NAME].value
    assert new_key != old_key

    response = board.get(reverse("games:api_state", args=[first.room.slug]))
    assert response.status_code == 200
    # The browser stores whatever cookie this late answer sets, over the new key.
    assert settings.SESSION_COOKIE_NAME not in response.cookies

    assert tab.session[SESSION_SEATS].keys() == {first.room.slug, second.room.slug}


def test_an_action_sent_with_the_old_session_key_mints_no_session_over_the_new_one():
    first, second = guest_seats(2)
    tab, board = Client(), Client()
    tab.get(seat_link(first))
    board.cookies[settings.SESSION_COOKIE_NAME] = tab.cookies[settings.SESSION_COOKIE_NAME].value
    tab.get(seat_link(second))

    response = board.post(
        reverse("games:api_action", args=[first.room.slug, "roll"]),
        data='{"version": 1}',
        content_type="application/json",
    )
    assert response.status_code == 403  # the old key holds no seat any more
    assert settings.SESSION_COOKIE_NAME not in response.cookies
    assert tab.session[SESSION_SEATS].keys() == {first.room.slug, second.room.slug}
