"""In a real browser: a room keeps its finished matches after a rematch, and Mis
partidas shows the most urgent table first with the header's count of waiting games."""

from datetime import timedelta

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules, parse_mat
from tests.helpers import seat_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOUR = timedelta(hours=1)


def test_after_a_rematch_the_first_match_stays_reachable_with_its_seed_and_file(
    live_server, dice, open_page, artifacts
):
    dice.push((3, 1))
    alice = services.room_create(rules=MatchRules(), nickname="alice")
    bob = services.room_join(room=alice.room, nickname="bob")
    room = alice.room
    services.game_play(seat=alice, version=1, play=[[8, 5], [6, 5]])
    services.match_resign(seat=bob, version=room.matches.get().version)
    services.rematch_offer(seat=alice)
    services.rematch_accept(seat=bob)
    first_game = room.matches.get(number=1).games.get()
    seed = bytes(first_game.seed).hex()

    page = open_page("bob", live_server.url + seat_url(room, bob.token))
    past = page.locator(".past-matches")
    expect(past).to_contain_text("Encuentro 1")
    expect(past).to_contain_text("ganó alice")

    with page.expect_download() as download:
        past.get_by_role("link", name="Descargar (.mat)").click()
    assert download.value.suggested_filename.startswith("mesa-alice-bob-")
    record = parse_mat(open(download.value.path(), encoding="utf-8").read())
    assert record.names == ("alice", "bob")

    past.get_by_role("link", name="Encuentro 1").click()
    expect(page.locator("h1")).to_have_text("Encuentro 1")
    expect(page.locator(".history")).to_contain_text("8/5 6/5")
    expect(page.get_by_text(seed).first).to_be_visible()

    page.get_by_role("link", name="Todos los encuentros").click()
    expect(page.locator("#encuentro-1")).to_contain_text(seed)
    running = room.matches.get(number=2).games.get()
    expect(page.locator("#encuentro-2")).to_contain_text(running.commitment)
    expect(page.locator("#encuentro-2")).to_contain_text("se publica al terminar la partida")
    page.screenshot(path=artifacts / "archive.png", full_page=True)

    # And from Mis partidas, where the room links its archive.
    page.goto(live_server.url + reverse("games:my_rooms"))
    page.get_by_role("link", name="1 encuentro terminado").click()
    expect(page.locator("#encuentro-1")).to_contain_text(seed)


def test_mis_partidas_puts_my_nearest_deadline_first_and_the_header_counts_my_turns(
    live_server, dice, clock, open_page, artifacts, js_errors
):
    tables = {}

    def table(name, opening, resign=False):
        host = services.room_create(rules=MatchRules(), nickname="alice")
        dice.push(opening)  # (1, 3): the guest, leo, starts
        guest = services.room_join(room=host.room, nickname=f"leo {name}")
        if resign:
            services.match_resign(seat=host, version=host.room.matches.get().version)
        tables[name] = (host.room, guest)
        clock.tick(HOUR)

    table("terminada", (3, 1), resign=True)
    table("urgente", (1, 3))
    table("de alice", (3, 1))
    table("con tiempo", (1, 3))
    clock.tick(14 * HOUR)  # "urgente" became leo's turn 17 hours ago: 31 hours left

    room, guest = tables["terminada"]
    # JavaScript on: each board polls while the next seat link cycles the session key.
    page = open_page("leo", live_server.url + seat_url(room, guest.token))
    for name in ("con tiempo", "de alice", "urgente"):
        room, guest = tables[name]
        page.goto(live_server.url + seat_url(room, guest.token))

    # A board's request still on its way when the next seat link cycled the session
    # key went with the old key, now no session: its seat's legal steps answer 403
    # (not the seat's holder) to a page being left. Seen once in CI; the page it
    # would concern is gone, so it is not an error of the pages this test reads.
    js_errors[:] = [error for error in js_errors if "status of 403" not in error]

    page.goto(live_server.url + reverse("games:home"))
    badge = page.locator(".site-header .header-badge")
    expect(badge).to_have_attribute("data-waiting", "2")
    expect(badge).to_have_attribute("title", "2 partidas esperan tu jugada")

    badge.click()  # the badge sits in the Mis partidas link
    rows = page.locator(".my-room")
    expect(rows).to_have_count(4)
    slugs = [tables[name][0].slug for name in ("urgente", "con tiempo", "de alice", "terminada")]
    assert [rows.nth(i).get_attribute("data-room") for i in range(4)] == slugs
    expect(rows.nth(0)).to_contain_text("te quedan 31 h")
    expect(rows.nth(1)).to_contain_text("te quedan 33 h")
    expect(page.locator(".my-rooms-group h2")).to_have_text(
        ["Te toca", "Esperando a tu rival", "Terminadas"]
    )
    page.screenshot(path=artifacts / "mis-partidas.png", full_page=True)
