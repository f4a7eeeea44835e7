"""What the board tells the players, in a real Chromium.

Each game's result stands over the board until it is seen; destination labels
with doubles never overlap; numbers agree with their nouns, the Crawford game
says it has no cube, a declined resignation says why its button is gone, the
GNUbg IDs never break; the history is numbered by move; the other player's
move arrives by long polling; a tab that lost the race says so.
"""

import pytest
from playwright.sync_api import expect

from games import services
from games.engine import Format, MatchRules
from tests.helpers import (
    ALICE,
    BOB,
    PHONE,
    finish_turn,
    latest_version,
    seated,
    settled,
    spot,
    table_urls,
    tap_step,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 800}
NARROW = {"width": 390, "height": 844}


# --- 1. each game's result, said out loud ---------------------------------------------


def test_a_dropped_double_shows_who_won_and_the_score_before_the_next_game(
    live_server, dice, open_page, artifacts
):
    dice.push((3, 1), (6, 4), (5, 2))  # opening, bob's roll, game 2's opening
    alice_seat, bob_seat = seated(MatchRules(format=Format.MATCH, length=3))
    urls = table_urls(live_server, alice_seat, bob_seat)
    alice = open_page(ALICE, urls[ALICE])
    bob = open_page(BOB, urls[BOB], viewport=PHONE)
    services.game_play(seat=alice_seat, version=latest_version(), play=[[8, 5], [6, 5]])
    services.game_roll(seat=bob_seat, version=latest_version())
    services.game_play(seat=bob_seat, version=latest_version(), play=[[24, 18], [13, 9]])
    services.game_double(seat=alice_seat, version=latest_version())

    expect(bob.locator(".board-status")).to_contain_text("alice te dobla a 2")
    bob.get_by_role("button", name="Rechazar el cubo").click()
    bob.locator(".board-dialog").get_by_role("button", name="Rechazar el cubo").click()

    # Game 2 has started by itself; the result of game 1 stands over the board first.
    for page in (alice, bob):
        result = page.locator(".board-result")
        expect(result).to_be_visible()
        expect(result).to_contain_text("Terminó la partida 1")
        expect(result).to_contain_text("alice gana 1 punto: bob rechazó el cubo.")
        expect(result).to_contain_text("Marcador: alice 1, bob 0.")
        expect(page.locator(".board-svg")).to_have_attribute("inert", "")
        # The history keeps the sentence, under game 1.
        expect(page.locator(".board-history .history-result")).to_have_text(
            "alice gana 1 punto: bob rechazó el cubo. Marcador: alice 1, bob 0."
        )
    bob.screenshot(path=str(artifacts / "result-drop-phone.png"))
    expect(bob.locator("#board-result-seen")).to_be_focused()
    bob.locator("#board-result-seen").click()
    expect(bob.locator(".board-result")).to_be_hidden()
    expect(bob.locator(".board-svg")).not_to_have_attribute("inert", "")
    expect(bob.locator(".player-slot.top")).to_contain_text("1 punto, le faltan 2")
    bob.reload()  # seen once is enough: it does not come back
    expect(bob.locator(".board-svg .spot")).to_have_count(26)
    expect(bob.locator(".board-result")).to_be_hidden()
    expect(alice.locator(".board-result")).to_be_visible()


# --- 2. readable destinations with doubles ----------------------------------------------


def label_boxes(page):
    """Each destination label's box on screen: badge and text together, and the text alone."""
    return page.eval_on_selector_all(
        ".board-svg .target-badge",
        """badges => badges.map(badge => {
          const box = (node) => { const r = node.getBoundingClientRect();
            return [r.left, r.top, r.right, r.bottom]; };
          const [a, b] = [box(badge), box(badge.nextElementSibling)];  // the label's text
          return { whole: [Math.min(a[0], b[0]), Math.min(a[1], b[1]),
                           Math.max(a[2], b[2]), Math.max(a[3], b[3])], badge: a, text: b };
        })""",
    )


def assert_disjoint(boxes):
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, f"labels {a} and {b} overlap"


@pytest.mark.parametrize("viewport", [NARROW, DESKTOP], ids=["390px", "1366px"])
def test_destination_labels_of_a_double_never_overlap(
    live_server, dice, open_page, artifacts, viewport
):
    dice.push((3, 1), (1, 1))  # alice opens, the table rolls bob's 1-1
    alice_seat, bob_seat = seated(MatchRules())
    urls = table_urls(live_server, alice_seat, bob_seat)
    services.game_play(seat=alice_seat, version=latest_version(), play=[[8, 5], [6, 5]])
    bob = open_page(BOB, urls[BOB], viewport=viewport)
    for point, targets in ((6, (5, 4, 3, 2)), (8, (7, 6, 5, 4))):
        settled(bob)
        spot(bob, point, ".source").click()
        for target in targets:
            expect(spot(bob, target, ".target")).to_have_count(1)
        expect(bob.locator(".board-svg .target-label", has_text="1+1+1+1")).to_have_count(1)
        boxes = label_boxes(bob)
        assert len(boxes) == 4
        assert_disjoint([box["whole"] for box in boxes])
        for box in boxes:  # the text stays inside its own badge
            (left, top, right, bottom), badge = box["text"], box["badge"]
            assert badge[0] <= left and right <= badge[2], box
            assert badge[1] <= top and bottom <= badge[3], box
        bob.screenshot(path=str(artifacts / f"labels-11-from-{point}-{viewport['width']}.png"))


# --- 3. grammar and clarity ------------------------------------------------------------------


def test_the_crawford_game_says_it_has_no_cube_and_numbers_agree(live_server, dice, open_page):
    dice.push((3, 1), (5, 2))  # game 1's opening, game 2's (the Crawford game)
    alice_seat, bob_seat = seated(MatchRules(format=Format.MATCH, length=3))
    services.game_play(seat=alice_seat, version=latest_version(), play=[[8, 5], [6, 5]])
    services.game_resign_offer(seat=bob_seat, version=latest_version(), value=2)
    services.game_resign_accept(seat=alice_seat, version=latest_version())
    page = open_page(BOB, table_urls(live_server, alice_seat, bob_seat)[BOB])

    result = page.locator(".board-result")
    expect(result).to_contain_text("alice gana 2 puntos (gammon): bob se rindió.")
    expect(result).to_contain_text("Marcador: alice 2, bob 0.")
    page.locator("#board-result-seen").click()
    info = page.locator(".board-info")
    expect(info).to_contain_text("Match a 3 puntos")
    expect(info).to_contain_text("Partida Crawford: esta partida se juega sin cubo")
    expect(info).not_to_contain_text("Cubo en el centro")
    expect(page.locator(".player-slot.top")).to_contain_text("2 puntos, le falta 1")
    expect(page.locator(".player-slot.bottom")).to_contain_text("0 puntos, le faltan 3")


def test_the_same_in_english_one_point_and_two_points(live_server, dice, open_page):
    dice.push((3, 1), (6, 4), (5, 2))
    alice_seat, bob_seat = seated(MatchRules(format=Format.MATCH, length=5))
    services.game_play(seat=alice_seat, version=latest_version(), play=[[8, 5], [6, 5]])
    services.game_double(seat=bob_seat, version=latest_version())
    services.game_drop(seat=alice_seat, version=latest_version())
    page = open_page(ALICE, table_urls(live_server, alice_seat, bob_seat)[ALICE], locale="en-GB")
    expect(page.locator(".board-result")).to_contain_text(
        "bob wins 1 point: alice declined the cube."
    )
    page.locator("#board-result-seen").click()
    expect(page.locator(".player-slot.top")).to_contain_text("1 point, 4 to go")
    expect(page.locator(".player-slot.top")).not_to_contain_text("1 points")
    expect(page.locator(".board-info")).to_contain_text("Match to 5 points")


def test_a_partida_simple_resignation_offers_one_value_and_a_decline_says_why_it_is_gone(
    live_server, dice, open_page
):
    dice.push((3, 1))
    alice_seat, bob_seat = seated(MatchRules())
    urls = table_urls(live_server, alice_seat, bob_seat)
    alice = open_page(ALICE, urls[ALICE])
    bob = open_page(BOB, urls[BOB])

    alice.locator("#board-resign").click()
    dialog = alice.locator(".board-dialog")
    expect(dialog).to_contain_text("¿Te rindes? Tu rival decide si acepta")
    expect(dialog.locator("#resign-choice")).to_have_count(0)  # one value: nothing to choose
    dialog.get_by_role("button", name="Ofrecer la rendición").click()
    expect(bob.locator(".board-status")).to_contain_text(
        "alice ofrece rendirse: partida simple, 1 punto."
    )
    bob.get_by_role("button", name="Seguir jugando").click()

    expect(alice.locator(".board-status")).to_contain_text("Te toca mover con 3-1")
    expect(alice.locator("#board-resign")).to_have_count(0)
    expect(alice.locator("#board-resign-note")).to_have_text(
        "Tu rival rechazó tu rendición: podrás volver a ofrecerla en tu próximo turno."
    )
    expect(bob.locator("#board-resign-note")).to_have_count(0)


def test_the_history_is_numbered_by_move(live_server, dice, open_page):
    dice.push((3, 1), (6, 4), (5, 2))
    alice_seat, bob_seat = seated(MatchRules())
    services.game_play(seat=alice_seat, version=latest_version(), play=[[8, 5], [6, 5]])
    services.game_play(seat=bob_seat, version=latest_version(), play=[[24, 18], [13, 9]])
    services.game_play(seat=alice_seat, version=latest_version(), play=[[13, 8], [13, 11]])
    page = open_page(BOB, table_urls(live_server, alice_seat, bob_seat)[BOB], viewport=PHONE)

    moves = page.locator(".board-history ol.moves > li")
    expect(moves).to_have_count(2)
    expect(moves.nth(0)).to_have_text("1. alice 31: 8/5 6/5 · bob 64: 24/18 13/9")
    expect(moves.nth(1)).to_have_text("2. alice 52: 13/11 13/8")
    expect(page.locator(".board-history .history-note")).to_have_text(
        "Salida: alice saca 3, bob saca 1"
    )


def test_the_gnubg_ids_never_break_mid_id(live_server, dice, open_page):
    dice.push((3, 1))
    alice_seat, bob_seat = seated(MatchRules(format=Format.MATCH, length=7))
    page = open_page(BOB, table_urls(live_server, alice_seat, bob_seat)[BOB], viewport=PHONE)
    expect(page.locator("#board-position-id")).to_be_visible()
    # Every phone width: each ID stays on one line (one box), whole.
    for width in range(300, 431, 5):
        page.set_viewport_size({"width": width, "height": 800})
        for selector in ("#board-position-id", "#board-match-id"):
            lines = page.eval_on_selector(selector, "node => node.getClientRects().length")
            assert lines == 1, f"{selector} breaks at {width}px"


# --- 4. live when both are there ---------------------------------------------------------------


def test_the_opponents_move_arrives_as_the_answer_to_the_request_already_waiting(
    live_server, dice, open_page
):
    # How fast a move reaches the other page is bench's to measure; here, that it
    # comes by long polling: the server answers the request held before the move.
    dice.push((3, 1), (6, 4))
    alice_seat, bob_seat = seated(MatchRules())
    urls = table_urls(live_server, alice_seat, bob_seat)
    alice = open_page(ALICE, urls[ALICE])
    bob = open_page(BOB, urls[BOB], viewport=PHONE)
    state_requests = []
    bob.on(
        "request",
        lambda r: "/api/rooms/" in r.url and "steps" not in r.url and state_requests.append(r),
    )
    with bob.expect_request(lambda r: "wait=" in r.url):  # the poller is out and held
        bob.reload()
    expect(bob.locator(".board-status")).to_contain_text("Le toca mover a alice")

    tap_step(alice, 8, 5)
    tap_step(alice, 6, 5)
    waiting, before = list(state_requests), latest_version()  # before the move is played
    finish_turn(alice)
    expect(bob.locator(".board-status")).to_contain_text("alice jugó 8/5 6/5.")

    # Every look asks with ?wait=, and the one that brought the move was sent before it.
    assert waiting and all("wait=" in r.url for r in state_requests), state_requests
    answers = [r.response() for r in waiting]
    versions = [a.json()["version"] for a in answers if a is not None and a.status == 200]
    assert versions and max(versions) > before, (before, versions)


# --- 5. a stale tab says so ---------------------------------------------------------------


def alice_in_two_tabs(live_server, dice, open_page, js_errors, *, second_hears_nothing=False):
    """alice at a partida simple, her 3-1 to play, in two tabs of one browser."""
    dice.push((3, 1), (6, 4))
    alice_seat, bob_seat = seated(MatchRules())
    urls = table_urls(live_server, alice_seat, bob_seat)
    first = open_page(ALICE, urls[ALICE])
    expect(first.locator(".board-svg .spot")).to_have_count(26)
    second = js_errors.watch(first.context.new_page(), "alice, second tab")
    if second_hears_nothing:
        # Its long poll hangs, as in a tab in the background of a slow phone.
        second.route(lambda url: "wait=" in url, lambda route: None)
    second.goto(urls["watch"])
    return first, second


def play_the_turn_in(page):
    tap_step(page, 13, 10)
    tap_step(page, 10, 9)
    finish_turn(page)
    expect(page.locator(".board-status")).to_contain_text("Le toca mover a bob")


def test_a_second_tab_that_already_played_is_told_and_the_table_reloads(
    live_server, dice, open_page, js_errors
):
    first, second = alice_in_two_tabs(
        live_server, dice, open_page, js_errors, second_hears_nothing=True
    )
    tap_step(second, 8, 5)
    tap_step(second, 6, 5)
    expect(second.locator("#board-finish")).to_be_enabled()
    play_the_turn_in(first)

    second.locator("#board-finish").click()
    alert = second.locator(".board-alert")
    expect(alert).to_have_text(
        "Este turno ya se jugó en otra pestaña o en otro dispositivo. "
        "Tu jugada no se envió: aquí tienes la mesa como está ahora."
    )
    expect(second.locator("#board-position-id")).to_have_text(
        first.locator("#board-position-id").inner_text()
    )
    expect(second.locator(".board-status")).to_contain_text("Le toca mover a bob")
    expect(second.locator("#board-finish")).to_have_count(0)
    # The browser logs the 409 answer itself as an error: that answer is what this test is about.
    js_errors[:] = [error for error in js_errors if "status of 409" not in error]


def test_steps_built_in_a_tab_are_not_dropped_silently_when_another_tab_plays(
    live_server, dice, open_page, js_errors
):
    first, second = alice_in_two_tabs(live_server, dice, open_page, js_errors)
    tap_step(second, 8, 5)  # half a play built here, while the whole turn is played there
    play_the_turn_in(first)
    expect(second.locator(".board-alert")).to_contain_text("Este turno ya se jugó en otra pestaña")
    expect(second.locator(".board-status")).to_contain_text("Le toca mover a bob")


# --- 6. the front's error page after a move that was kept -----------------------------------


@pytest.mark.parametrize("status", [502, 504])
def test_a_kept_move_answered_by_the_fronts_error_page_is_not_called_failed(
    live_server, dice, open_page, js_errors, status
):
    """nginx answers 502 when the process that saved the move died before answering
    (504 when it was slow): the board reads the state again and, finding the move,
    says nothing failed; the front's page never reaches the player as words."""
    dice.push((3, 1), (6, 4))
    alice_seat, bob_seat = seated(MatchRules())
    alice = open_page(ALICE, table_urls(live_server, alice_seat, bob_seat)[ALICE])

    def saved_then_lost(route):
        route.fetch()  # the move reaches the site and is stored ...
        route.fulfill(  # ... and the answer the browser gets is the front's
            status=status,
            content_type="text/html",
            body=f"<html><body><h1>{status}</h1><hr>nginx</body></html>",
        )

    alice.route(lambda url: "/actions/" in url, saved_then_lost)
    tap_step(alice, 8, 5)
    tap_step(alice, 6, 5)
    finish_turn(alice)
    expect(alice.locator(".board-status")).to_contain_text("Le toca mover a bob")
    expect(alice.locator(".board-alert")).to_be_hidden()
    assert "http_error" not in alice.locator("body").inner_text()
    js_errors[:] = [error for error in js_errors if f"status of {status}" not in error]


def test_an_unkept_move_answered_by_the_fronts_error_page_says_no_connection(
    live_server, dice, open_page, js_errors
):
    dice.push((3, 1), (6, 4))
    alice_seat, bob_seat = seated(MatchRules())
    alice = open_page(ALICE, table_urls(live_server, alice_seat, bob_seat)[ALICE])
    alice.route(
        lambda url: "/actions/" in url,
        lambda route: route.fulfill(status=502, content_type="text/html", body="<h1>502</h1>"),
    )
    tap_step(alice, 8, 5)
    tap_step(alice, 6, 5)
    finish_turn(alice)
    expect(alice.locator(".board-alert")).to_have_text(
        "No hay conexión con la mesa. Inténtalo otra vez en un momento."
    )
    expect(alice.locator(".board-status")).not_to_contain_text("Le toca mover a bob")
    js_errors[:] = [error for error in js_errors if "status of 502" not in error]
