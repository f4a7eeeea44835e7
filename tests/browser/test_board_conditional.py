"""Writing, changing and clearing the answer to the opponent's next double, on the board.

alice ends her turn and writes "Acepto" for bob's possible double, changes
her mind twice, and leaves "Acepto"; bob doubles, and the table takes for
her at once: bob plays on in the same visit and the history says the take
was written ahead. bob's board never shows alice's answer.
"""

import pytest
from playwright.sync_api import expect

from games import services
from games.engine import Format, MatchRules
from games.models import Turn
from tests.helpers import (
    ALICE,
    BOB,
    current_match,
    finish_turn,
    first_legal_play,
    seated,
    settled,
    table_urls,
    tap_step,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def match_table(live_server, dice):
    dice.push((3, 1))
    return table_urls(live_server, *seated(MatchRules(format=Format.MATCH, length=3)))


def choose(page, label: str, answer: str):
    # By role: the form-based board's own radios (hidden under the interactive one) do not count.
    page.get_by_role("radio", name=label, exact=True).check()
    settled(page)
    expect(page.locator(f"#cond-answer-{answer}")).to_be_checked()


def test_an_answer_written_changed_and_kept_is_played_when_the_double_comes(
    match_table, open_page, dice, artifacts
):
    alice = open_page(ALICE, match_table[ALICE])
    bob = open_page(BOB, match_table[BOB])
    tap_step(alice, 8, 5)
    tap_step(alice, 6, 5)
    finish_turn(alice)

    panel = alice.locator(".board-conditional")
    expect(panel.get_by_role("group", name="Si bob te dobla en su próximo turno:")).to_be_visible()
    expect(alice.locator("#cond-answer-ask")).to_be_checked()
    choose(alice, "Acepto", "take")
    choose(alice, "Rechazo", "drop")
    choose(alice, "Pregúntame", "ask")
    choose(alice, "Acepto", "take")
    alice.screenshot(path=str(artifacts / "board-conditional-answer.png"))
    kinds = list(Turn.objects.filter(kind="cond_answer").values_list("reason", flat=True))
    assert kinds == ["take", "drop", "", "take"]
    # bob sees only his own notes: nothing of alice's answer.
    expect(bob.locator("#cond-answer-ask")).to_be_checked()
    expect(bob.locator(".board-history")).not_to_contain_text("deja escrito")

    dice.push((6, 4))
    bob.locator('.board-svg [data-key="cube"]').click()
    bob.get_by_role("button", name="Sí, doblo").click()
    # The take was played with the double: bob, who may not redouble, moves at once,
    # and reads first that alice had taken in writing.
    expect(bob.locator(".board-status")).to_contain_text("Te toca mover con 6-4")
    expect(bob.locator(".board-status")).to_contain_text(
        "alice aceptó el cubo en 2 (lo dejó escrito)."
    )
    expect(bob.locator(".board-history")).to_contain_text(
        "alice acepta el cubo en 2, como lo dejó escrito"
    )
    expect(alice.locator(".board-history")).to_contain_text("como lo dejó escrito")
    expect(alice.locator(".player-slot.bottom")).to_contain_text("tiene el cubo en 2")


# From the opening 3-1, each side playing its first legal play: contact broken
# after bob's play (tests/games/test_conditional.py uses the same script).
TO_RACE = [(5, 5), (6, 5), (4, 4), (5, 5), (5, 5)]


def test_plays_written_for_a_race_are_listed_changed_and_cleared(live_server, dice, open_page):
    dice.push((3, 1))
    alice, bob = seated(MatchRules())
    room = alice.room
    dice.push(*TO_RACE)
    for seat in (alice, bob, alice, bob, alice, bob):
        match = current_match(room)
        services.game_play(
            seat=seat, version=match.version, play=first_legal_play(room, match.side_of(seat))
        )
    page = open_page(BOB, table_urls(live_server, alice, bob)[BOB])
    panel = page.locator(".board-conditional")
    expect(panel).to_contain_text("alice ya no puede cambiar tu próxima tirada")
    page.get_by_role("combobox", name="Tirada").select_option("6-5")
    page.get_by_role("textbox", name="Jugada").fill("11/5 8/3")
    panel.get_by_role("button", name="Guardar").click()
    expect(page.locator("#cond-plays")).to_have_text("Si sacas 6-5: 11/5 8/3")
    # Writing 6-5 again replaces it (an illegal play is refused: tests/games).
    page.get_by_role("textbox", name="Jugada").fill("8/2 8/3")
    panel.get_by_role("button", name="Guardar").click()
    expect(page.locator("#cond-plays")).to_have_text("Si sacas 6-5: 8/3 8/2")
    page.get_by_role("button", name="Borrar las jugadas escritas").click()
    expect(page.locator("#cond-plays")).to_have_count(0)
    tables = [t.table for t in Turn.objects.filter(kind="cond_plays").order_by("number")]
    written = [[(a, b, sorted(map(tuple, play))) for a, b, play in table] for table in tables]
    assert written == [[(6, 5, [(8, 3), (11, 5)])], [(6, 5, [(8, 2), (8, 3)])], []]
