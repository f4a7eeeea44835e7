"""The link to watch a room is never its invitation: whoever opens it watches,
even while the second seat is free."""

import pytest
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules
from games.models import Seat
from tests.helpers import seat_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_watch_link_shown_while_the_room_waits_never_offers_the_seat(
    live_server, dice, open_page
):
    host = services.room_create(rules=MatchRules(), nickname="alice")
    room = host.room
    alice = open_page("alice", live_server.url + seat_url(room, host.token))
    invitation = alice.locator("#invite-url").input_value()
    watch = alice.locator("#watch-url").inner_text()
    assert watch and watch != invitation
    assert watch.startswith(live_server.url)

    carol = open_page("carol", watch)
    expect(carol.locator("#waiting-for-players")).to_contain_text("espera a su rival")
    expect(carol.get_by_role("button", name="Sentarme y jugar")).to_have_count(0)
    expect(carol.locator("form input[name=nickname]")).to_have_count(0)
    assert Seat.objects.filter(room=room).count() == 1  # the guest's seat is still free

    # The invitation still seats the guest; the watcher's page follows by itself.
    dice.push((3, 1))
    services.room_join(room=room, nickname="bob")
    expect(carol.locator(".board-svg .spot")).to_have_count(26)
    expect(carol.locator(".board-info")).to_contain_text("Estás mirando")
    expect(carol.locator("#board-undo")).to_have_count(0)
    assert carol.url == watch
