"""The pages a visitor reads: home and its formats, the rules, Mis partidas, languages."""

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.engine import Format, MatchRules
from games.models import Room, Seat
from tests.helpers import bind, page_urls, seat_url

pytestmark = pytest.mark.django_db


def test_the_home_page_offers_a_person_or_the_four_computer_players_and_the_formats(db):
    page = Client().get(reverse("games:home")).content.decode()
    assert "Jugar con alguien" in page
    for length in (1, 3, 5, 7, 25):
        assert f'<option value="{length}"' in page
    assert 'value="single"' in page and 'value="match"' in page and 'value="session"' in page
    assert "Jugar contra la computadora" in page
    for name in ("Domador", "Chofer", "Carcelero", "Empresario"):
        assert name in page


@pytest.mark.parametrize(
    ("fields", "rules"),
    [
        ({"format": "single"}, MatchRules()),
        ({"format": "match", "length": "7"}, MatchRules(format=Format.MATCH, length=7)),
        ({"format": "match", "length": "25"}, MatchRules(format=Format.MATCH, length=25)),
        (
            {"format": "session", "auto_doubles": "on", "max_auto_doubles": "2", "jacoby": "on"},
            MatchRules(format=Format.SESSION, auto_doubles=True, max_auto_doubles=2, jacoby=True),
        ),
        # Session options sent with another format are dropped, not an error.
        ({"format": "match", "length": "3", "beavers": "on"}, MatchRules(Format.MATCH, 3)),
    ],
    ids=["single", "match-7", "match-25", "session-options", "stray-options"],
)
def test_creating_a_room_seats_the_host_with_the_chosen_rules(clock, dice, fields, rules):
    host = Client()
    response = host.post(reverse("games:home"), {"nickname": "alice", **fields})
    assert response.status_code == 302
    room = Room.objects.get()
    assert MatchRules.from_json(room.rules) == rules
    assert response["Location"] == reverse("games:room", args=[room.slug])
    page = host.get(response["Location"]).content.decode()
    assert "Tu mesa está lista" in page and 'id="invite-url"' in page and 'id="seat-url"' in page


@pytest.mark.parametrize(
    ("fields", "error_field"),
    [
        ({"format": "single", "nickname": ""}, "nickname"),
        ({"format": "chess", "nickname": "alice"}, "format"),
        ({"format": "match", "length": "4", "nickname": "alice"}, "length"),
        ({"format": "match", "nickname": "alice"}, "length"),
        ({"format": "single", "nickname": "alice", "email": "nope"}, "email"),
        ({"format": "single", "nickname": "alice", "email_consent": "on"}, "email"),
    ],
)
def test_a_bad_home_form_is_shown_again_with_its_error_and_creates_nothing(
    clock, dice, fields, error_field
):
    response = Client().post(reverse("games:home"), fields)
    assert response.status_code == 200
    assert error_field in response.context["form"].errors
    assert not Room.objects.exists()


def test_a_logged_in_host_may_leave_the_nickname_empty(clock, dice):
    user = get_user_model().objects.create_user("marta", password="x" * 12)
    host = Client()
    host.force_login(user)
    host.post(reverse("games:home"), {"format": "single"})
    seat = Seat.objects.get()
    assert (seat.nickname, seat.user) == ("marta", user)


def test_a_logged_in_host_plays_under_the_name_others_see_from_the_profile(clock, dice):
    user = get_user_model().objects.create_user("marta77", password="x" * 12)
    from accounts.services import profile_for

    profile = profile_for(user)
    profile.display_name = "Marta"
    profile.save()
    host = Client()
    host.force_login(user)
    assert "usamos «Marta»" in host.get(reverse("games:home")).content.decode()
    host.post(reverse("games:home"), {"format": "single"})
    assert Seat.objects.get().nickname == "Marta"


def test_a_join_form_with_errors_is_shown_again(alice):
    response = Client().post(reverse("games:join", args=[alice.seat.room.slug]), {"nickname": ""})
    assert response.status_code == 400
    assert "nickname" in response.context["join_form"].errors
    assert Seat.objects.count() == 1


@pytest.mark.parametrize(
    ("language", "hint"), [("es", "Elige un apodo."), ("en", "Choose a nickname.")]
)
def test_a_missing_nickname_is_asked_for_in_words_of_the_site(clock, dice, language, hint):
    response = Client().post(
        reverse("games:home"), {"format": "single", "nickname": ""}, HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.context["form"].errors["nickname"] == [hint]


def test_mis_partidas_lists_the_browsers_seats_with_whose_turn_it_is(room, alice, bob, carol):
    bind(alice, room)
    bind(bob, room)
    alice_page = alice.client.get(reverse("games:my_rooms")).content.decode()
    bob_page = bob.client.get(reverse("games:my_rooms")).content.decode()
    assert "Contra bob" in alice_page and "te toca" in alice_page
    assert "Contra alice" in bob_page and "le toca a tu rival" in bob_page
    carol_page = carol.client.get(reverse("games:my_rooms")).content.decode()
    assert "Todavía no tienes partidas." in carol_page


def test_mis_partidas_shows_an_accounts_rooms_on_any_device(room, alice):
    user = get_user_model().objects.create_user("alice", password="x" * 12)
    Seat.objects.filter(pk=alice.seat.pk).update(user=user)
    elsewhere = Client()
    elsewhere.force_login(user)
    assert "Contra bob" in elsewhere.get(reverse("games:my_rooms")).content.decode()
    # The account holds the seat on this device too, without the seat link.
    page = elsewhere.get(reverse("games:room", args=[room.slug])).content.decode()
    assert 'id="play-choice"' in page


def test_an_unknown_room_is_a_404_page(db):
    assert Client().get(reverse("games:room", args=["nothing-here"])).status_code == 404


@pytest.mark.parametrize(
    ("language", "heading"),
    [("es", "No encontramos esta página"), ("en", "We could not find this page")],
)
def test_a_cut_link_lands_on_a_page_of_the_site_in_the_visitors_language(db, language, heading):
    response = Client().get("/mesa/nothing-here/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    page = response.content.decode()
    assert heading in page and 'class="site-header"' in page


@pytest.mark.parametrize(
    ("language", "heading", "sample"),
    [
        ("es", "Cómo se juega en Mesa", "tapas de latón"),
        ("en", "How to play at Mesa", "brass bottle caps"),
    ],
)
def test_the_rules_page_speaks_both_languages(db, language, heading, sample):
    page = Client().get(reverse("games:rules"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert heading in page and sample in page
    assert f'<html lang="{language}">' in page
    assert "python -m games.engine.dice" in page


def test_the_language_switch_remembers_english_and_back(room, alice):
    bind(alice, room)
    room_url = reverse("games:room", args=[room.slug])
    assert "Te toca mover." in alice.client.get(room_url).content.decode()
    response = alice.client.post(reverse("set_language"), {"language": "en", "next": room_url})
    assert response.status_code == 302 and response["Location"] == room_url
    english = alice.client.get(room_url).content.decode()
    assert "Your move." in english and "Point 13: 5 checkers of yours" in english
    assert "Opening roll: alice rolls 3, bob rolls 1" in english
    alice.client.post(reverse("set_language"), {"language": "es", "next": room_url})
    assert "Punta 13: 5 fichas tuyas" in alice.client.get(room_url).content.decode()


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_page_renders_in_both_languages(room, alice, carol, language):
    bind(alice, room)
    urls = page_urls(room)
    for client in (alice.client, carol.client):
        for url in urls:
            response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
            assert response.status_code == 200, url
            assert response["Content-Language"] == language


def test_an_expired_room_says_so_instead_of_offering_a_seat(alice, carol):
    room = alice.seat.room
    Room.objects.filter(pk=room.pk).update(status=Room.Status.EXPIRED)
    page = carol.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert "Esta mesa caducó" in page
    assert 'name="nickname"' not in page


def sentences_of(text: str, words: int = 7) -> set[str]:
    """Every run of `words` consecutive words, lower-cased, punctuation dropped."""
    tokens = re.findall(r"\w+", text.lower())
    return {" ".join(tokens[i : i + words]) for i in range(len(tokens) - words + 1)}


def test_the_rules_are_written_in_our_own_words_not_copied_from_the_seeds():
    seeds = Path("/work/shared/seeds")
    if not seeds.is_dir():
        pytest.skip("the seed documents are not on this machine")
    seed_runs = set()
    for path in seeds.glob("*.txt"):
        seed_runs |= sentences_of(path.read_text())
    templates = Path(__file__).resolve().parent.parent.parent / "templates" / "games"
    for name in ("rules_es.html", "rules_en.html", "home.html", "room.html"):
        ours = sentences_of(re.sub(r"<[^>]+>|{[%{#].*?[%}#]}", " ", (templates / name).read_text()))
        assert ours & seed_runs == set(), name


def test_a_logged_in_guest_joins_with_their_account(alice, dice):
    user = get_user_model().objects.create_user("bruno", password="x" * 12)
    guest = Client()
    guest.force_login(user)
    room_url = reverse("games:room", args=[alice.seat.room.slug])
    invitation = guest.get(room_url).content.decode()
    assert "alice te invita a jugar" in invitation
    assert "Entra y siéntate" not in invitation  # already logged in
    guest.post(reverse("games:join", args=[alice.seat.room.slug]), {"nickname": ""})
    seat = Seat.objects.get(number=2)
    assert (seat.user, seat.nickname) == (user, "bruno")
    assert 'id="board-title"' in guest.get(room_url).content.decode()


@pytest.mark.parametrize(
    ("turn", "sentence"),
    [
        (
            {"kind": "roll", "dice": [6, 6], "blocked": True, "automatic": True},
            "bob saca 6-6 y no puede mover: pasa el turno",
        ),
        ({"kind": "roll", "dice": [5, 2], "automatic": True}, "bob: la mesa tira 5-2"),
        ({"kind": "roll", "dice": [5, 2], "automatic": False}, "bob tira 5-2"),
        ({"kind": "play", "notation": "bar/22 6/off"}, "bob juega bar/22 6/off"),
        ({"kind": "double", "cube_value": 2}, "bob dobla a 4"),
        ({"kind": "take", "cube_value": 4}, "bob acepta el cubo en 4"),
        ({"kind": "beaver", "cube_value": 4}, "bob acepta y redobla a 8 (castor)"),
        ({"kind": "drop", "cube_value": 2}, "bob rechaza el cubo y pierde la partida"),
        ({"kind": "resign_offer", "value": 2}, "bob ofrece rendirse: gammon"),
        (
            {"kind": "resign_offer", "value": 1, "cube_value": 2},
            "bob ofrece rendirse: partida simple, con el cubo en 2",
        ),
        ({"kind": "forfeit", "reason": "absence"}, "bob pierde por ausencia"),
        ({"kind": "forfeit", "reason": "resign"}, "bob abandona"),
        ({"kind": "stop"}, "bob da por terminada la sesión"),
    ],
)
def test_each_kind_of_turn_reads_as_a_sentence_in_the_history(turn, sentence):
    from games.selectors.history import describe_turn

    assert describe_turn(turn, "bob") == sentence


def test_choosing_a_computer_player_starts_the_match_at_once(clock, dice):
    host = Client()
    response = host.post(
        reverse("games:home"), {"opponent": "carcelero", "format": "single", "nickname": "ana"}
    )
    room = Room.objects.get()
    assert room.bot == "carcelero" and room.status == Room.Status.PLAYING
    page = host.get(response["Location"]).content.decode()
    assert "Carcelero" in page and 'id="board-title"' in page
    assert 'id="invite-url"' not in page  # nobody to invite


@pytest.mark.parametrize(
    ("language", "strength", "style"),
    [
        ("es", "medio", "Construye puntas en su casa"),
        ("en", "medium", "Builds points in its home board"),
    ],
)
def test_the_board_says_how_strong_the_computer_player_is_and_how_it_plays(
    clock, dice, language, strength, style
):
    host = Client(HTTP_ACCEPT_LANGUAGE=language)
    response = host.post(
        reverse("games:home"), {"opponent": "carcelero", "format": "single", "nickname": "ana"}
    )
    page = host.get(response["Location"]).content.decode()
    card = re.search(r'<script id="board-bot" type="application/json">(.*?)</script>', page)
    assert card, "the board gets the computer player's card"
    assert f'"label": "{strength}"' in card.group(1)
    assert style in card.group(1)


def test_a_room_between_two_people_has_no_computer_card(room, alice):
    page = alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert '<script id="board-bot" type="application/json">null</script>' in page


def test_an_unknown_opponent_is_a_form_error(clock, dice):
    response = Client().post(
        reverse("games:home"), {"opponent": "gnubg", "format": "single", "nickname": "ana"}
    )
    assert "opponent" in response.context["form"].errors
    assert not Room.objects.exists()


def test_a_seat_bound_by_the_link_in_an_email_is_listed_in_mis_partidas(room, alice):
    phone = Client()
    response = phone.get(seat_url(room, alice.seat.mail_token()))
    assert response.status_code == 302
    assert "Contra bob" in phone.get(reverse("games:my_rooms")).content.decode()
