"""The challenge forms (the lobby's and a profile's "Desafiar a este jugador"): the
match's length shows only while a match is chosen, and the profile's form takes
its own room above the panels under it, on a desktop and on a phone."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.browser.test_lobby import signed_in_page
from tests.helpers import PHONE, make_player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def length_follows_the_format(page, form):
    length = page.locator(f"{form} select[name='length']")
    label = page.locator(f"{form} label", has_text="Puntos del match")
    expect(page.locator(f"{form} select[name='format']")).to_have_value("single")
    expect(length).to_be_hidden()
    expect(label).to_be_hidden()
    page.locator(f"{form} select[name='format']").select_option("match")
    expect(length).to_be_visible()
    expect(label).to_be_visible()
    page.locator(f"{form} select[name='format']").select_option("session")
    expect(length).to_be_hidden()


def test_the_lobby_form_shows_the_length_only_for_a_match(live_server, open_page):
    ana = make_player("ana")
    page = signed_in_page(open_page, live_server, ana, reverse("games:lobby"))
    length_follows_the_format(page, "form.challenge-form")


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_profile_form_shows_the_length_only_for_a_match_and_overlaps_nothing(
    live_server, open_page, artifacts, viewport
):
    make_player("ana")
    ben = make_player("ben")
    page = signed_in_page(open_page, live_server, ben, reverse("games:player", args=["ana"]))
    if viewport:
        page.set_viewport_size(viewport)
    length_follows_the_format(page, "form.challenge-button")
    page.locator("form.challenge-button select[name='format']").select_option("match")
    form = page.locator("form.challenge-button").bounding_box()
    below = page.locator("section.panel").first.bounding_box()
    name = "phone" if viewport else "desktop"
    page.screenshot(path=str(artifacts / f"profile-challenge-{name}.png"))
    # Clear of the panel below, by the room the panels keep between them.
    gap = below["y"] - (form["y"] + form["height"])
    assert gap >= 12, (form, below)
