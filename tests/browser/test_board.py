"""The SVG board in a real browser: a whole partida simple played by tapping.

alice (on a phone-size screen) and bob (on a desktop) sit at the table in two
browser contexts; carol watches from a third. The dice are scripted so the
game ends in a dozen turns: bob hits alice early and closes his board, alice
dances while bob runs home and bears off. Every play is made by tapping a
checker and then one of the destinations the server marked; one of bob's
turns is played with the keyboard alone, and undo is used once.
"""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import selectors, services
from games.engine import Format, MatchRules, parse_mat
from games.engine.matchid import decode_match_id
from games.lib import clock as game_clock
from games.models import Room
from tests.helpers import (
    ALICE,
    BOB,
    PHONE,
    finish_turn,
    key_of,
    seat_url,
    seated,
    settled,
    spot,
    table_urls,
    tap_step,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}

# Opening 6-5 (alice starts), then every roll in order. alice's 6-6 rolls
# after bob's first play find her on the bar against a closed board: the
# table rolls them and passes her turn by itself.
SCRIPT = [
    (6, 5),
    (6, 6), (6, 6), (6, 6), (6, 6), (6, 6), (6, 6), (3, 3), (6, 4), (6, 6), (6, 6),
    (6, 6), (1, 4), (6, 6), (1, 2), (4, 5), (2, 2), (6, 6), (2, 3), (5, 1),
]  # fmt: skip

# (who, steps) in the mover's own numbering; 25 = bar, 0 = off.
PLAYS = [
    (ALICE, [(24, 18), (18, 13)]),
    (BOB, [(24, 18), (24, 18), (13, 7), (7, 1)]),  # hits alice on her 24-point
    (BOB, [(13, 7), (13, 7), (13, 7), (13, 7)]),
    (BOB, [(8, 2), (8, 2), (8, 2), (7, 1)]),
    (BOB, "keyboard"),  # 3-3: 18/15(2) 7/4(2), with the arrow keys and Enter
    (BOB, [(15, 9), (15, 9), (9, 3), (9, 3)]),
    (BOB, [(7, 1), (6, 0), (6, 0), (6, 0)]),
    (BOB, [(6, 0), (6, 0), (4, 0), (4, 0)]),
    (BOB, [(3, 0), (3, 0)]),
    (BOB, [(2, 0), (2, 0), (2, 0), (1, 0)]),
    (ALICE, [(25, 22), (22, 20)]),
    (BOB, [(1, 0), (1, 0)]),
]
KEYBOARD_STEPS = [(18, 15), (18, 15), (7, 4), (7, 4)]


def focused_key(page) -> str | None:
    return page.evaluate("document.activeElement?.dataset?.key ?? null")


def press_until(page, key: str, done, limit: int = 40):
    for _ in range(limit):
        if done():
            return
        page.keyboard.press(key)
    raise AssertionError(f"pressing {key} {limit} times never got there")


TOP_ROW = [str(n) for n in range(13, 19)] + ["bar"] + [str(n) for n in range(19, 25)] + ["off"]
BOTTOM_ROW = [str(n) for n in range(12, 6, -1)] + ["bar"] + [str(n) for n in range(6, 0, -1)]


def walk_to(page, target: str):
    """Move the board's focus to `target` with the arrow keys only."""
    row = TOP_ROW if target in TOP_ROW[:6] + TOP_ROW[7:13] else BOTTOM_ROW
    current = focused_key(page)
    if current not in row or (current in ("bar", "off") and row is TOP_ROW):
        page.keyboard.press("ArrowUp" if row is TOP_ROW else "ArrowDown")
        current = focused_key(page)
    step = "ArrowRight" if row.index(target) > row.index(current) else "ArrowLeft"
    press_until(page, step, lambda: focused_key(page) == target, limit=14)


def keyboard_turn(page, steps, screenshot=None):
    # Into the board from the buttons below it, with Shift+Tab.
    press_until(page, "Shift+Tab", lambda: focused_key(page) is not None)
    for src, dst in steps:
        settled(page)
        expect(spot(page, src, ".source")).to_have_count(1)
        walk_to(page, key_of(src))
        page.keyboard.press("Enter")
        expect(spot(page, dst, ".target")).to_have_count(1)
        walk_to(page, key_of(dst))
        if screenshot:
            page.screenshot(path=screenshot)  # the focus ring on a marked destination
            screenshot = None
        page.keyboard.press("Enter")
    expect(page.locator("#board-finish")).to_be_enabled()
    press_until(page, "Tab", lambda: page.evaluate("document.activeElement.id") == "board-finish")
    page.keyboard.press("Enter")


def position_id(page) -> str:
    return page.locator("#board-position-id").inner_text()


@pytest.fixture
def table(live_server, dice):
    """alice and bob at a partida simple, with the scripted dice."""
    dice.push(*SCRIPT)
    return table_urls(live_server, *seated(MatchRules()))


def test_two_players_finish_a_game_by_tapping_while_a_spectator_follows(
    table, open_page, artifacts
):
    pages = {
        ALICE: open_page(ALICE, table["alice"], viewport=PHONE),
        BOB: open_page(BOB, table["bob"], viewport=DESKTOP),
    }
    carol = open_page("carol", table["watch"], viewport=DESKTOP)
    for page in (*pages.values(), carol):
        expect(page.locator(".board-svg .spot")).to_have_count(26)
    expect(carol.locator("#board-undo")).to_have_count(0)  # a spectator only watches
    # Off turn bob may only abandon, and the button says so.
    expect(pages[BOB].locator("#board-resign")).to_have_count(0)
    expect(pages[BOB].locator("#board-forfeit")).to_have_text("Abandonar")

    for number, (who, steps) in enumerate(PLAYS):
        page = pages[who]
        # The other side's play shows up by itself: the page polls.
        expect(page.locator("#board-finish")).to_be_visible(timeout=20_000)
        if steps == "keyboard":
            keyboard_turn(page, KEYBOARD_STEPS, str(artifacts / "board-keyboard.png"))
            continue
        if number == 1:
            # Undo: take back the first step and play it again.
            before = position_id(page)
            tap_step(page, *steps[0])
            expect(page.locator("#board-position-id")).not_to_have_text(before)
            page.locator("#board-undo").click()
            expect(page.locator("#board-position-id")).to_have_text(before)
            label = re.compile(r"^Punta 24: 2 fichas tuyas")
            expect(spot(page, 24)).to_have_attribute("aria-label", label)
        if number == 2:
            # bob's desktop with a checker picked: its destinations carry the dice they spend.
            spot(page, 13, ".source").click()
            expect(spot(page, 1, ".target")).to_have_count(1)
            expect(page.locator('.target-labels [data-key="1"]')).to_have_text("6+6")
            page.screenshot(path=str(artifacts / "board-desktop.png"))
        for src, dst in steps:
            tap_step(page, src, dst)
        finish_turn(page)

        if number == 1:
            # alice sees bob's play by itself: marked from and to, and her dance.
            alice = pages[ALICE]
            expect(alice.locator('.tri.last-to[data-point="7"]')).to_have_count(1)
            expect(alice.locator('.tri.last-from[data-point="12"]')).to_have_count(1)
            expect(alice.locator(".board-status")).to_contain_text("bob jugó 24/18(2) 13/1*.")
            expect(alice.locator(".board-status")).to_contain_text("Tiraste 6-6 y no pudiste")
            label = re.compile("^Barra: 1 ficha tuya")
            expect(spot(alice, 25)).to_have_attribute("aria-label", label)
            expect(carol.locator("#board-position-id")).to_have_text(position_id(alice))
        if number == 9:
            # Before alice's only other turn: her phone, with a checker picked.
            alice = pages[ALICE]
            expect(spot(alice, 25, ".source")).to_have_count(1)
            expect(spot(alice, 22, ".target")).to_have_count(1)
            alice.screenshot(path=str(artifacts / "board-phone.png"))

    for page in (*pages.values(), carol):
        expect(page.locator(".board-status")).to_contain_text("bob gana la partida.")
    expect(pages[BOB].locator(".board-status")).to_contain_text("¡Ganaste!")
    expect(pages[ALICE].locator(".board-status")).to_contain_text("Perdiste.")
    # The dice can be checked from the board itself: the seed is out once the game ends.
    expect(carol.locator(".board-proof")).to_contain_text("Semilla revelada:")
    expect(carol.locator(".board-proof")).to_contain_text("python -m games.engine.dice")
    history = carol.locator(".board-history")
    expect(history).to_contain_text("bob 66: 24/18(2) 13/1*")
    expect(history).to_contain_text("alice 66: no puede mover")

    # The spectator turns the board round to bob's side; the Match ID stays the match's.
    carol_id = position_id(carol)
    match_id = carol.locator("#board-match-id").inner_text()
    carol.locator("#board-flip").click()
    expect(carol.locator("#board-position-id")).not_to_have_text(carol_id)
    expect(carol.locator("#board-position-id")).to_have_text(position_id(pages[BOB]))
    expect(carol.locator("#board-match-id")).to_have_text(match_id)
    assert decode_match_id(match_id).length == 1  # a partida simple: a one-point match

    # The spectator downloads the game for GNU Backgammon.
    with carol.expect_download() as download:
        carol.get_by_role("link", name="Descargar el encuentro (.mat)").click()
    assert re.fullmatch(r"mesa-alice-bob-\d{4}-\d\d-\d\d\.mat", download.value.suggested_filename)
    [game] = parse_mat(open(download.value.path(), encoding="utf-8").read()).games
    bob_first = next(move for move in game.moves if move.side == 1)
    assert sorted(bob_first.play) == sorted([(24, 18), (24, 18), (13, 7), (7, 1)])

    # The rematch is offered and taken on the board; colours swap.
    pages[ALICE].get_by_role("button", name="Ofrecer la revancha").click()
    waiting = pages[ALICE].locator(".board-prompt")
    expect(waiting).to_have_text("Ofreciste la revancha. Empieza en cuanto tu rival acepte.")
    accept = pages[BOB].get_by_role("button", name="Aceptar la revancha")
    expect(accept).to_be_visible()
    accept.click()
    expect(pages[BOB].locator(".player-slot.bottom")).to_contain_text("tapas de latón")


def test_the_home_board_moves_to_the_left_and_stays_there(table, open_page):
    page = open_page(ALICE, table["alice"], viewport=PHONE)
    one = spot(page, 1).locator(".hit")
    right = one.get_attribute("x")
    page.locator("#board-home-left").check()
    expect(one).not_to_have_attribute("x", right)
    left = one.get_attribute("x")
    assert float(left) < float(right)
    page.reload()
    expect(page.locator("#board-home-left")).to_be_checked()
    expect(spot(page, 1).locator(".hit")).to_have_attribute("x", left)


@pytest.fixture
def match_table(live_server, dice):
    dice.push((3, 1))
    return table_urls(live_server, *seated(MatchRules(format=Format.MATCH, length=3)))


def test_dice_cube_and_resignation_are_all_handled_on_the_board(
    match_table, open_page, dice, artifacts
):
    alice = open_page(ALICE, match_table[ALICE])
    bob = open_page(BOB, match_table[BOB], viewport=PHONE)
    tap_step(alice, 8, 5)
    tap_step(alice, 6, 5)
    finish_turn(alice)

    # bob may double, so nobody rolled for him: he taps the dice.
    dice.push((6, 4))
    roll = bob.locator('.board-svg [data-key="dice"]')
    expect(roll).to_have_attribute("aria-label", "Tirar los dados")
    roll.click()
    tap_step(bob, 24, 18)
    tap_step(bob, 13, 9)
    finish_turn(bob)

    # alice taps the cube and confirms the double.
    dice.push((5, 2))
    alice.locator('.board-svg [data-key="cube"]').click()
    alice.get_by_role("button", name="Sí, doblo").click()

    # bob answers: a slip of the finger is cancelled, then he takes.
    expect(bob.locator(".board-status")).to_contain_text("alice te dobla a 2")
    bob.screenshot(path=str(artifacts / "board-double-offered.png"))
    bob.get_by_role("button", name="Rechazar el cubo").click()
    expect(bob.locator(".board-dialog")).to_contain_text("Pierdes esta partida")
    bob.locator(".board-dialog").get_by_role("button", name="Cancelar").click()
    expect(bob.locator(".board-dialog")).not_to_be_visible()
    bob.get_by_role("button", name="Aceptar el cubo").click()
    bob.locator(".board-dialog").get_by_role("button", name="Aceptar el cubo").click()
    expect(bob.locator(".player-slot.bottom")).to_contain_text("tiene el cubo en 2")
    # The Match ID next to the Position ID says so: the cube at 2 on bob's side (1).
    match_id = selectors.room_state(Room.objects.get(), None)["match"]["match_id"]
    expect(alice.locator("#board-match-id")).to_have_text(match_id)
    fields = decode_match_id(match_id)
    assert (fields.length, fields.cube_value, fields.cube_owner) == (3, 2, 1)

    # alice may not redouble, so the table rolled her 5-2; she offers a gammon instead.
    expect(alice.locator(".board-status")).to_contain_text("Te toca mover con 5-2")
    # Each offer says what it is worth at the cube, and what it does to the score.
    alice.locator("#board-resign").click()
    expect(alice.locator("#resign-choice option")).to_have_text(
        [
            "partida simple, 2 puntos (el marcador quedaría alice 0, bob 2)",
            "gammon, 4 puntos (bob ganaría el encuentro)",
            "backgammon, 6 puntos (bob ganaría el encuentro)",
        ]
    )
    alice.locator("#resign-choice").select_option("2")
    alice.get_by_role("button", name="Ofrecer la rendición").click()
    expect(bob.locator(".board-status")).to_contain_text(
        "alice ofrece rendirse: gammon, 4 puntos (bob ganaría el encuentro)."
    )
    bob.get_by_role("button", name="Aceptar la rendición").click()
    bob.locator(".board-dialog").get_by_role("button", name="Aceptar la rendición").click()

    expect(bob.locator(".board-status")).to_contain_text("¡Ganaste!")
    expect(bob.locator(".player-slot.bottom")).to_contain_text("4 puntos")
    expect(alice.locator(".board-status")).to_contain_text("bob gana el encuentro, 4 a 0.")
    expect(alice.locator(".board-history")).to_contain_text("bob acepta la rendición")


def test_the_waiting_player_closes_the_game_for_absence_after_confirming(
    live_server, dice, open_page
):
    with game_clock.frozen(timezone.now()) as clock:
        dice.push((3, 1))
        alice = services.room_create(rules=MatchRules(), nickname=ALICE)
        bob = services.room_join(room=alice.room, nickname=BOB)
        url = live_server.url + seat_url(alice.room, bob.token)
        page = open_page(BOB, url)
        claim = page.get_by_role("button", name="Cerrar la partida por ausencia")
        expect(claim).to_have_count(0)

        clock.tick(timedelta(hours=49))  # alice never played her 3-1
        page.reload()
        expect(page.locator(".board-prompt")).to_contain_text("más de dos días")
        claim.click()
        page.locator(".board-dialog").get_by_role("button", name="Cancelar").click()
        expect(page.locator(".board-status")).to_contain_text("Le toca mover a alice")
        claim.click()
        page.locator(".board-dialog").get_by_role("button", name="Cerrar la partida").click()
        expect(page.locator(".board-status")).to_contain_text(
            "alice perdió la partida por ausencia: la gana bob."
        )
        expect(page.locator(".board-status")).to_contain_text("¡Ganaste!")


def test_the_board_speaks_english_to_an_english_browser(table, open_page):
    page = open_page(ALICE, table["alice"], locale="en-GB")
    label = re.compile("^Point 24: 2 checkers of yours")
    expect(spot(page, 24)).to_have_attribute("aria-label", label)
    expect(page.locator("#board-finish")).to_have_text("End turn")
    expect(page.locator(".board-status")).to_contain_text("Your move with 6-5")


def test_without_javascript_the_form_board_still_plays(table, open_page):
    page = open_page(ALICE, table["alice"], javascript=False)
    expect(page.locator("#board-app")).to_be_hidden()
    expect(page.locator("#board-fallback")).to_be_visible()
    expect(page.locator("#match-id")).to_be_visible()
    expect(page.get_by_role("link", name="Descargar el encuentro (.mat)")).to_be_visible()
    page.locator("#play-typed").fill("24/13")
    page.get_by_role("button", name="Jugar", exact=True).click()
    expect(page.locator("#board-fallback .history")).to_contain_text("24/13")
