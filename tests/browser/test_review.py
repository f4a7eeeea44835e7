"""The review page in a real browser: step through an analysed game with the keyboard.

A partida simple is played out through the services (first legal play each
turn), analysed at bgsage 1-ply (fast), and opened by a spectator. The arrow
keys move from decision to decision; both boards redraw, the step counter and
the detail follow, and the list marks the current decision.
"""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services, tasks
from games.engine import MatchRules
from games.models import GameAnalysis
from tests.helpers import Persona, play_out

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def analysed_room(monkeypatch, dice, clock, fast_analysis):
    monkeypatch.setattr(tasks.analyse_game, "delay", lambda analysis_id: None)
    host = services.room_create(rules=MatchRules(), nickname="alice")
    dice.push((3, 1))
    guest = services.room_join(room=host.room, nickname="bob")
    play_out(host.room, Persona("alice", seat=host), Persona("bob", seat=guest))
    row = GameAnalysis.objects.get()
    services.game_analysis_run(analysis_id=row.pk)
    return host.room


def test_a_spectator_steps_through_the_review_with_the_arrow_keys(
    analysed_room, live_server, open_page
):
    url = live_server.url + reverse("games:review", args=[analysed_room.slug, 1, 1])
    page = open_page("carol", url)
    counter = page.locator("#review-step")
    total = page.locator("#decision-list li").count()
    assert total > 10
    expect(counter).to_have_text(f"Decisión 1 de {total}")
    expect(page.locator("#board-played .piece")).to_have_count(30)
    expect(page.locator("#board-best .piece")).to_have_count(30)
    first_detail = page.locator("#review-detail").inner_text()
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Decisión 2 de {total}")
    expect(page.locator("#decision-list li.current")).to_have_attribute("data-index", "1")
    assert page.locator("#review-detail").inner_text() != first_detail
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(f"Decisión 2 de {total}")
    page.keyboard.press("End")
    expect(counter).to_have_text(f"Decisión {total} de {total}")
    page.keyboard.press("ArrowRight")  # past the end: stays on the last
    expect(counter).to_have_text(f"Decisión {total} de {total}")
    page.get_by_role("button", name="Primera decisión").click()
    expect(counter).to_have_text(f"Decisión 1 de {total}")
    # The played play is marked on its board (the last-move marks of the table).
    expect(page.locator("#board-played .last-to").first).to_be_attached()
    expect(page.locator(".analysis-summary tbody tr")).to_have_count(2)
