"""The fields several forms ask for (the format, the match's length, the days per
move, the rating band): one label each on every page that shows them, in Spanish
and in English, the same choices and limits in every form, and every choice one
the services accept.

The pages are the shipped templates through Django's test client; the forms are
read as the views build them."""

from html.parser import HTMLParser

import pytest
from django import forms
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.lib import deadlines
from games.lib.errors import BadInput
from games.services.cleaning import (
    RATING_HIGHEST,
    RATING_LOWEST,
    clean_days_per_move,
    clean_rating_range,
    clean_rules,
)
from games.web.forms import MATCH_LENGTHS, NewRoomForm
from games.web.lobby import ChallengeForm, LobbyForm
from games.web.tournaments import TournamentForm
from tests.helpers import make_player

FORMS = (NewRoomForm, ChallengeForm, LobbyForm, TournamentForm)
# The shared fields and how many of the four forms ask for each.
SHARED = {"format": 3, "length": 4, "days_per_move": 3, "rating_min": 2, "rating_max": 2}


class FormReader(HTMLParser):
    """The labels (by the id they name) and the named controls, in page order,
    of the forms whose class is `css_class`."""

    def __init__(self, css_class: str) -> None:
        super().__init__()
        self.css_class = css_class
        self.inside = False
        self.label_for: str | None = None
        self.labels: dict[str, str] = {}
        self.controls: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "form" and self.css_class in (values.get("class") or "").split():
            self.inside = True
        elif self.inside and tag == "label" and values.get("for"):
            self.label_for = values["for"]
            self.labels[self.label_for] = ""
        elif self.inside and tag in ("input", "select") and values.get("type") != "hidden":
            if values.get("name") and values["name"] not in self.controls:
                self.controls.append(values["name"])

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "label":
            self.label_for = None

    def handle_data(self, data):
        if self.label_for is not None:
            self.labels[self.label_for] += data

    def label(self, id_: str) -> str:
        return " ".join(self.labels[id_].split())


def read_form(client: Client, url: str, css_class: str) -> FormReader:
    response = client.get(url)
    assert response.status_code == 200, url
    reader = FormReader(css_class)
    reader.feed(response.content.decode())
    assert reader.controls, f"no form.{css_class} on {url}"
    return reader


@pytest.fixture
def players(db, clock, dice):
    """ana reads the site in Spanish, beto in English; each sees the other's profile."""
    clients = {}
    for name, language in (("ana", "es"), ("beto", "en")):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(make_player(name, language=language))
        clients[language] = client
    return clients


def page_labels(client: Client, other: str) -> dict[str, list[str]]:
    """Each shared field's label on the home page, the lobby, a profile's
    challenge button and the tournament form."""
    pages = [
        read_form(client, reverse("games:home"), "new-room"),
        read_form(client, reverse("games:lobby"), "challenge-form"),
        read_form(client, reverse("games:tournament_new"), "challenge-form"),
    ]
    profile = read_form(client, reverse("games:player", args=[other]), "challenge-button")
    shown: dict[str, list[str]] = {name: [] for name in SHARED}
    for page in pages:
        for name in SHARED:
            if f"id_{name}" in page.labels:
                shown[name].append(page.label(f"id_{name}"))
    for name in ("format", "length"):
        shown[name].append(profile.label(next(i for i in profile.labels if i.endswith(name))))
    return shown


def test_each_shared_field_shows_one_label_on_every_page_in_both_languages(players):
    spanish = page_labels(players["es"], "beto")
    english = page_labels(players["en"], "ana")
    # The pages that label each field (the home page shows the format as a legend).
    assert {name: len(labels) for name, labels in spanish.items()} == {
        "format": 2,  # the lobby, a profile
        "length": 4,  # the home page, the lobby, a profile, the tournament form
        "days_per_move": 3,  # the home page, the lobby, the tournament form
        "rating_min": 2,  # the lobby, the tournament form
        "rating_max": 2,
    }
    for name in SHARED:
        assert len(set(spanish[name])) == 1, (name, spanish[name])
        assert len(set(english[name])) == 1, (name, english[name])
        assert len(english[name]) == len(spanish[name])
        assert english[name][0] not in ("", spanish[name][0]), name


def test_the_lobby_and_tournament_forms_keep_their_order(players):
    client = players["es"]
    lobby = read_form(client, reverse("games:lobby"), "challenge-form")
    assert lobby.controls == ["format", "length", "days_per_move", "rating_min", "rating_max"]
    tournament = read_form(client, reverse("games:tournament_new"), "challenge-form")
    assert tournament.controls == [
        "name",
        "kind",
        "capacity",
        "length",
        "final_length",
        "days_per_move",
        "rating_min",
        "rating_max",
        "starts_in_days",
        "private",
    ]


def shared_fields(name: str) -> list[forms.Field]:
    found = [form.base_fields[name] for form in FORMS if name in form.base_fields]
    assert len(found) == SHARED[name], name
    return found


def described(field: forms.Field) -> tuple:
    """What a field offers, whatever the form: its label in both languages, its
    choices and first value, its limits."""
    labels = []
    for language in ("es", "en"):
        with translation.override(language):
            labels.append(str(field.label))
    choices = [value for value, _ in getattr(field, "choices", ())]
    limits = (getattr(field, "min_value", None), getattr(field, "max_value", None))
    return (*labels, type(field).__name__, choices, field.initial, limits)


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_field_offers_the_same_in_every_form(name):
    fields = shared_fields(name)
    first = described(fields[0])
    assert all(described(field) == first for field in fields[1:]), name


def test_every_length_a_form_offers_is_one_the_rules_accept():
    for field in shared_fields("length"):
        assert [value for value, _ in field.choices] == list(MATCH_LENGTHS)
    final = TournamentForm.base_fields["final_length"]
    assert [value for value, _ in final.choices] == ["", *MATCH_LENGTHS]
    for length in MATCH_LENGTHS:
        assert clean_rules({"format": "match", "length": length}).length == length


def test_every_clock_a_form_offers_is_one_the_services_accept():
    for field in shared_fields("days_per_move"):
        assert [value for value, _ in field.choices] == list(deadlines.DAYS_PER_MOVE_CHOICES)
        assert field.initial == deadlines.DAYS_PER_MOVE
    for days in deadlines.DAYS_PER_MOVE_CHOICES:
        assert clean_days_per_move(days) == days


@pytest.mark.parametrize("form", [LobbyForm, TournamentForm])
def test_the_rating_band_takes_what_the_services_take(form):
    for name in ("rating_min", "rating_max"):
        field = form.base_fields[name]
        for rating in (RATING_LOWEST, RATING_HIGHEST):
            assert field.clean(str(rating)) == rating
        for rating in (RATING_LOWEST - 1, RATING_HIGHEST + 1):
            with pytest.raises(forms.ValidationError):
                field.clean(str(rating))
            with pytest.raises(BadInput):
                clean_rating_range(rating, None)
        assert field.clean("") is None
    assert clean_rating_range(RATING_LOWEST, RATING_HIGHEST) == (RATING_LOWEST, RATING_HIGHEST)
