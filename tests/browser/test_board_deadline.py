"""The waiting player's note on when an absence may be claimed, in a real Chromium.

Whether the note shows is the server's word (the state's `absence.show_deadline`);
the board only writes it out with the date. Here the state is wrapped so the test
does not depend on how long the server waits before it says so.
"""

import pytest
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules
from games.selectors import board
from tests.helpers import latest_version, seated, table_urls

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOTE = "podrás cerrar la partida por ausencia desde el"


def say_deadline(monkeypatch, show):
    """Every state the board gets (the page's and the API's go through it)."""
    real = board.room_state_and_until

    def room_state_and_until(*args, **kwargs):
        state, until = real(*args, **kwargs)
        absence = state["match"] and state["match"].get("absence")
        if absence:
            if show is None:
                absence.pop("show_deadline", None)
            else:
                absence["show_deadline"] = show
        return state, until

    monkeypatch.setattr(board, "room_state_and_until", room_state_and_until)


@pytest.mark.parametrize("show", [True, False, None])
def test_the_deadline_note_follows_the_server(live_server, dice, open_page, monkeypatch, show):
    dice.push((3, 1), (6, 4))  # the opening, then bob's roll (the table rolls: no cube)
    alice_seat, bob_seat = seated(MatchRules())
    services.game_play(seat=alice_seat, version=latest_version(), play=[[8, 5], [6, 5]])
    say_deadline(monkeypatch, show)
    alice = open_page("alice", table_urls(live_server, alice_seat, bob_seat)["alice"])

    expect(alice.locator(".board-status")).to_contain_text("Le toca mover a bob")
    prompt = alice.locator(".board-prompt")
    if show:
        expect(prompt).to_contain_text(f"Si bob no juega, {NOTE}")
    else:  # False, or a state without the field
        expect(prompt).to_be_hidden()
