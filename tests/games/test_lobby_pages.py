"""The lobby, invitations and their JSON API through Django's test client.

Each refusal is a 4xx with its sentence in the player's language and writes
nothing; the pages and the API call the same services.
"""

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.engine import Format, MatchRules
from games.models import Challenge, Room
from tests.helpers import make_player, post_json

LOBBY = "/desafios/"


def signed_in(user, language="es") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


@pytest.fixture
def ana(db, clock, dice):
    return make_player("ana")


def test_the_lobby_lists_open_challenges_to_anyone(ana, client):
    services.challenge_post(author=ana, rules=MatchRules(format=Format.MATCH, length=7))
    page = client.get(reverse("games:lobby"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "ana" in text and "Un match a 7 puntos" in text
    assert "Entra con tu cuenta para publicar o aceptar un desafío." in text
    assert reverse("games:lobby") == LOBBY


def test_a_player_posts_a_challenge_from_the_lobby_form(ana):
    browser = signed_in(ana)
    response = browser.post(
        LOBBY, {"format": "match", "length": "3", "rating_min": "1400", "rating_max": ""}
    )
    assert response.status_code == 302 and response["Location"] == LOBBY
    challenge = Challenge.objects.get()
    assert (challenge.author, challenge.rating_min, challenge.rating_max) == (ana, 1400, None)
    assert MatchRules.from_json(challenge.rules) == MatchRules(format=Format.MATCH, length=3)
    assert "Retirar" in browser.get(LOBBY).content.decode()


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("es", "Elige a cuántos puntos se juega el match."),
        ("en", "Choose how many points the match is played to."),
    ],
)
def test_a_match_without_its_length_is_refused_not_given_one(ana, beto, language, sentence):
    """As on the home page: the lobby and the invitation never pick the length."""
    browser = signed_in(ana, language)
    posted = browser.post(LOBBY, {"format": "match", "rating_min": "", "rating_max": ""})
    assert posted.status_code == 400 and sentence in posted.content.decode()
    invited = browser.post(reverse("games:invite", args=["beto"]), {"format": "match"})
    assert invited.status_code == 400 and sentence in invited.content.decode()
    assert Challenge.objects.count() == 0


def test_a_guest_posting_is_sent_to_log_in_and_nothing_is_written(db, client):
    response = client.post(LOBBY, {"format": "single"})
    assert response.status_code == 302 and "/cuenta/" in response["Location"]
    assert Challenge.objects.count() == 0


def test_the_fourth_open_challenge_is_refused_on_the_page_with_409(ana):
    browser = signed_in(ana)
    for _ in range(3):
        assert browser.post(LOBBY, {"format": "single"}).status_code == 302
    refused = browser.post(LOBBY, {"format": "single"})
    assert refused.status_code == 409
    assert "Ya tienes el máximo de desafíos abiertos." in refused.content.decode()
    assert Challenge.objects.count() == 3


def test_accepting_from_the_lobby_opens_the_room(ana, beto, dice):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    browser = signed_in(beto)
    assert "Aceptar y jugar" in browser.get(LOBBY).content.decode()
    response = browser.post(reverse("games:challenge_accept", args=[challenge.slug]))
    room = Room.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:room", args=[room.slug])
    page = browser.get(response["Location"])
    assert page.status_code == 200 and page.context["seat"].user == beto


def test_accepting_your_own_challenge_is_a_409_in_your_language(ana, beto):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    refused = signed_in(ana).post(reverse("games:challenge_accept", args=[challenge.slug]))
    assert refused.status_code == 409
    assert "Es tu propio desafío" in refused.content.decode()
    english = signed_in(beto, "en")
    services.challenge_withdraw(challenge=challenge, user=ana)
    gone = english.post(reverse("games:challenge_accept", args=[challenge.slug]))
    assert gone.status_code == 409
    assert "This challenge is gone: it was withdrawn." in gone.content.decode()
    assert Room.objects.count() == 0


def test_an_unknown_challenge_is_a_404(ana):
    assert signed_in(ana).post("/desafios/nope/aceptar/").status_code == 404


def test_an_invitation_goes_from_the_profile_button_to_mis_partidas(ana, beto, dice):
    browser = signed_in(ana)
    sent = browser.post(reverse("games:invite", args=["beto"]), {"format": "match", "length": "5"})
    assert sent.status_code == 302 and sent["Location"] == reverse("games:my_rooms")
    invitation = Challenge.objects.get()
    assert invitation.invitee == beto
    assert "Invitaste a beto" in browser.get(reverse("games:my_rooms")).content.decode()
    invited = signed_in(beto)
    mine = invited.get(reverse("games:my_rooms")).content.decode()
    assert "ana te invita" in mine
    assert invitation.slug not in invited.get(LOBBY).content.decode()  # private
    accepted = invited.post(reverse("games:challenge_accept", args=[invitation.slug]))
    assert accepted.status_code == 302 and Room.objects.count() == 1


def test_declining_an_invitation_from_mis_partidas(ana, beto):
    invitation = services.invitation_send(author=ana, invitee=beto, rules=MatchRules())
    response = signed_in(beto).post(reverse("games:invitation_decline", args=[invitation.slug]))
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == Challenge.Status.DECLINED


def test_inviting_a_stranger_is_a_404_page(ana):
    refused = signed_in(ana).post(reverse("games:invite", args=["nadie"]), {"format": "single"})
    assert refused.status_code == 404
    assert "No encontramos a ese jugador." in refused.content.decode()


def test_the_challenge_button_renders_for_another_player_only(ana, beto, rf):
    from django.template.loader import render_to_string

    request = rf.get("/")
    request.user = ana
    html = render_to_string("games/_challenge_button.html", {"player": beto, "user": ana}, request)
    assert reverse("games:invite", args=["beto"]) in html and "Desafiar a este jugador" in html
    assert (
        render_to_string("games/_challenge_button.html", {"player": ana, "user": ana}).strip() == ""
    )


# --- the JSON API ---------------------------------------------------------------------


def test_the_api_posts_lists_and_accepts_a_challenge(ana, beto, dice):
    author = signed_in(ana)
    posted = post_json(
        author, "/api/challenges", {"rules": {"format": "match", "length": 3}, "rating_max": 1800}
    )
    assert posted.status_code == 201
    body = posted.json()["challenge"]
    assert (body["format"], body["length"], body["rating_max"], body["status"]) == (
        "match",
        3,
        1800,
        "open",
    )
    assert posted["Location"] == f"/api/challenges/{body['slug']}"
    listed = signed_in(beto).get("/api/challenges").json()["challenges"]
    assert [(c["slug"], c["can_accept"], c["mine"]) for c in listed] == [
        (body["slug"], True, False)
    ]
    accepted = post_json(signed_in(beto), f"/api/challenges/{body['slug']}/accept", {})
    assert accepted.status_code == 201
    state = accepted.json()
    assert state["viewer"]["seat"] == 2 and state["match"]["length"] == 3
    assert accepted["Location"] == reverse("games:room", args=[state["room"]["slug"]])
    assert author.get(f"/api/challenges/{body['slug']}").json()["challenge"]["status"] == "accepted"


def test_the_api_refuses_in_json_and_in_the_players_language(ana, beto):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    own = post_json(signed_in(ana, "en"), f"/api/challenges/{challenge.slug}/accept", {})
    assert own.status_code == 409
    assert own.json()["error"] == {
        "code": "own_challenge",
        "message": "This is your own challenge: wait for someone else to accept it.",
    }
    guest = post_json(Client(), f"/api/challenges/{challenge.slug}/accept", {})
    assert guest.status_code == 403 and guest.json()["error"]["code"] == "login_required"
    bad = post_json(signed_in(beto), "/api/challenges", {"rules": "chess"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_rules"
    missing = post_json(signed_in(beto), "/api/challenges/nope/accept", {})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "challenge_not_found"
    assert Room.objects.count() == 0 and Challenge.objects.count() == 1


def test_the_api_withdraws_and_then_refuses_the_accept(ana, beto):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    assert (
        post_json(signed_in(beto), f"/api/challenges/{challenge.slug}/withdraw", {}).status_code
        == 403
    )
    withdrawn = post_json(signed_in(ana), f"/api/challenges/{challenge.slug}/withdraw", {})
    assert withdrawn.status_code == 200 and withdrawn.json()["challenge"]["status"] == "withdrawn"
    late = post_json(signed_in(beto), f"/api/challenges/{challenge.slug}/accept", {})
    assert late.status_code == 409 and late.json()["error"]["code"] == "challenge_withdrawn"


def test_the_api_sends_lists_and_declines_invitations(ana, beto):
    sent = post_json(signed_in(ana), "/api/invitations", {"username": "beto", "rules": {}})
    assert sent.status_code == 201
    slug = sent.json()["challenge"]["slug"]
    assert sent.json()["challenge"]["invitee"] == "beto"
    mine = signed_in(beto).get("/api/invitations").json()
    assert [c["slug"] for c in mine["received"]] == [slug] and mine["sent"] == []
    # An invitation is private: a third account cannot read it.
    cris = make_player("cris")
    assert signed_in(cris).get(f"/api/challenges/{slug}").status_code == 404
    declined = post_json(signed_in(beto), f"/api/challenges/{slug}/decline", {})
    assert declined.json()["challenge"]["status"] == "declined"
    stranger = post_json(signed_in(ana), "/api/invitations", {"username": "nadie", "rules": {}})
    assert stranger.status_code == 404 and stranger.json()["error"]["code"] == "no_such_player"


def test_the_admin_lists_challenges_and_messages_read_only(ana, beto, admin_client):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    seat = services.challenge_accept(challenge=challenge, user=beto)
    services.message_send(seat=seat, text="hola desde el admin")
    for model in ("challenge", "message", "mute"):
        assert admin_client.get(reverse(f"admin:games_{model}_changelist")).status_code == 200
    page = admin_client.get(reverse("admin:games_message_changelist")).content.decode()
    assert "hola desde el admin" in page
    assert admin_client.get(reverse("admin:games_challenge_add")).status_code == 403
