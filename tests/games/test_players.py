"""The public profile and the leaderboard: what they show, and what they never show.

ana and ben are accounts; carla watches. Nothing private reaches a profile:
no email, no seat link (a seat's private URL), for any viewer.
"""

import re
from datetime import timedelta
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from accounts.models import Profile
from games import services
from games.bots import BOT_NAMES
from games.engine import Format, MatchRules
from games.lib import evaluator
from games.models import GameAnalysis
from tests.helpers import account, current_match

SVG = "{http://www.w3.org/2000/svg}"


def table(host, guest, dice, rules=None):
    seat = services.room_create(
        rules=rules or MatchRules(), nickname=host.username, user=host, email=host.email
    )
    dice.push((3, 1))
    other = services.room_join(
        room=seat.room, nickname=guest.username, user=guest, email=guest.email
    )
    return seat, other


def resign(seat):
    return services.match_resign(seat=seat, version=current_match(seat.room).version)


@pytest.fixture
def season(ana, ben, clock, dice):
    """ana beats ben twice (a partida simple, a match to 3), loses a match to 3, and plays on."""
    first, second = table(ana, ben, dice)
    resign(second)
    clock.tick(timedelta(hours=1))
    first, second = table(ana, ben, dice, MatchRules(format=Format.MATCH, length=3))
    resign(second)
    clock.tick(timedelta(hours=1))
    first, second = table(ben, ana, dice, MatchRules(format=Format.MATCH, length=3))
    resign(second)
    playing, other = table(ana, ben, dice)
    return playing, other


def tokens_of(seats):
    return [seat.token for seat in seats]


class TestTheProfilePage:
    def test_it_shows_the_rating_the_record_and_the_rooms_in_play(self, season, ana, client):
        page = client.get(reverse("games:player", args=["ana"]))
        assert page.status_code == 200
        html = page.content.decode()
        profile = page.context["profile"]
        assert profile["rated_matches"] == 3
        assert f"{profile['rating']:.2f}".replace(".", ",") in html  # Spanish decimals
        assert [(r["format"], r["length"], r["won"], r["lost"]) for r in profile["record"]] == [
            ("single", 0, 1, 0),
            ("match", 3, 1, 1),
        ]
        assert "Partida simple" in html and "Match a 3" in html
        playing = season[0].room
        assert reverse("games:watch", args=[playing.slug]) in html
        assert "Mirar la partida contra ben" in html

    def test_the_rating_history_is_an_accessible_svg_line(self, season, client):
        html = client.get(reverse("games:player", args=["ana"])).content.decode()
        markup = re.search(r"<svg.*?</svg>", html, re.S).group(0)
        svg = ElementTree.fromstring(markup)
        assert svg.get("role") == "img"
        assert svg.find(f"{SVG}title").text == "Puntuación de ana"
        assert svg.find(f"{SVG}desc").text.startswith("De 1500 a ")
        assert svg.find(f"{SVG}desc").text.endswith("en 3 partidas puntuadas.")
        assert len(svg.find(f"{SVG}polyline").get("points").split()) == 4

    def test_the_viewer_sees_their_own_record_against_the_player(self, season, ben, client):
        client.force_login(ben)
        html = client.get(reverse("games:player", args=["ana"])).content.decode()
        assert "Tú contra este jugador: ganaste 1, perdiste 2." in html
        # Not against oneself, nor for a visitor.
        assert "Tú contra" not in client.get(reverse("games:player", args=["ben"])).content.decode()
        client.logout()
        assert "Tú contra" not in client.get(reverse("games:player", args=["ana"])).content.decode()

    def test_the_average_pr_comes_from_the_analysis(self, season, ana, client):
        match = current_match(season[0].room)  # ana is seat 1, side 0
        GameAnalysis.objects.create(
            game=match.games.get(number=1),
            version=evaluator.current_version(),
            status=GameAnalysis.Status.DONE,
            requested_at=match.created_at,
            finished_at=match.created_at,
            summary=[{"pr": 4.5, "decisions": 10}, {"pr": 9.0, "decisions": 10}],
        )
        html = client.get(reverse("games:player", args=["ana"])).content.decode()
        assert "PR medio: 4,5, en la última partida analizada." in html

    def test_nothing_private_is_shown_to_anyone(self, season, ana, ben, client):
        playing, other = season
        Profile.objects.update_or_create(user=ana, defaults={"display_name": "Ana la Brava"})
        secrets = [ana.email, ben.email, *tokens_of([playing, other]), "asiento"]
        for viewer in (None, ben, ana):
            if viewer:
                client.force_login(viewer)
            for url in (
                reverse("games:player", args=["ana"]),
                reverse("games:api_player", args=["ana"]),
                reverse("games:leaderboard"),
                reverse("games:api_leaderboard"),
            ):
                body = client.get(url).content.decode()
                assert not [s for s in secrets if s in body], (viewer, url)
                assert "@example.com" not in body

    def test_a_chosen_name_is_shown_and_the_url_keeps_the_username(self, season, ana, client):
        Profile.objects.update_or_create(user=ana, defaults={"display_name": "Ana la Brava"})
        html = client.get(reverse("games:player", args=["ana"])).content.decode()
        assert "Ana la Brava" in html and "@ana" in html

    def test_an_unknown_or_inactive_player_is_a_404(self, ana, client):
        assert client.get(reverse("games:player", args=["nadie"])).status_code == 404
        answer = client.get(reverse("games:api_player", args=["nadie"]))
        assert answer.status_code == 404 and "error" in answer.json()
        ana.is_active = False
        ana.save()
        assert client.get(reverse("games:player", args=["ana"])).status_code == 404

    def test_a_player_with_no_match_yet_starts_at_1500(self, ana, client):
        page = client.get(reverse("games:player", args=["ana"]))
        assert page.context["profile"]["rating"] == 1500.0
        assert "Todavía no hay partidas puntuadas." in page.content.decode()

    def test_it_has_the_block_the_lobby_fills_with_its_challenge_button(self):
        from django.template.loader import get_template

        source = get_template("games/player.html").template.source
        assert "{% block challenge_player %}" in source


class TestTheProfileJson:
    def test_it_carries_the_rating_history_and_the_watch_links(self, season, ana, ben, client):
        client.force_login(ben)
        data = client.get(reverse("games:api_player", args=["ana"])).json()
        assert data["username"] == "ana" and data["rated_matches"] == 3
        assert [row["won"] for row in data["history"]] == [True, True, False]
        assert data["history"][0] == {
            "room": data["history"][0]["room"],
            "match_number": 1,
            "opponent": "ben",
            "opponent_username": "ben",
            "won": True,
            "length": 1,
            "before": 1500.0,
            "after": 1510.0,
            "delta": 10.0,
            "at": data["history"][0]["at"],
        }
        assert data["head_to_head"] == {"won": 1, "lost": 2}
        (room,) = data["playing"]
        assert room["url"].endswith(reverse("games:watch", args=[season[0].room.slug]))
        assert data["rating"] == data["history"][-1]["after"]


class TestTheLeaderboard:
    def test_it_lists_the_rated_players_best_first_with_links(self, season, ana, ben, client):
        page = client.get(reverse("games:leaderboard"))
        rows = [row for row in page.context["rows"] if not row["is_bot"]]
        assert [row["username"] for row in rows] == ["ana", "ben"]
        assert rows[0]["rating"] > rows[1]["rating"]
        assert reverse("games:player", args=["ana"]) in page.content.decode()
        data = client.get(reverse("games:api_leaderboard")).json()
        people = [p["username"] for p in data["players"] if not p["is_bot"]]
        assert people == ["ana", "ben"]

    def test_the_computer_players_are_listed_before_anyone_played_them(self, db, client):
        # The page says they are there to measure yourself against: at their
        # starting rating until their first rated match.
        page = client.get(reverse("games:leaderboard"))
        rows = page.context["rows"]
        assert [(r["name"], r["is_bot"], r["rating"], r["matches"]) for r in rows] == [
            (name.capitalize(), True, 1500.0, 0) for name in BOT_NAMES
        ]
        html = page.content.decode()
        assert all(name.capitalize() in html for name in BOT_NAMES)
        assert "Todavía nadie jugó" not in html
        data = client.get(reverse("games:api_leaderboard")).json()
        assert [p["name"] for p in data["players"]] == [name.capitalize() for name in BOT_NAMES]

    def test_a_computer_player_is_listed_without_a_profile_link(self, ana, clock, dice, client):
        seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana, bot="chofer")
        resign(seat)
        rows = client.get(reverse("games:leaderboard")).context["rows"]
        assert [(r["name"], r["is_bot"], r["username"]) for r in rows] == [
            ("Chofer", True, None),
            *[(name.capitalize(), True, None) for name in BOT_NAMES if name != "chofer"],
            ("ana", False, "ana"),
        ]


def test_the_profile_offers_the_lobbys_challenge_to_another_signed_in_player(season, ben, client):
    assert (
        "Desafiar a este jugador"
        not in client.get(reverse("games:player", args=["ana"])).content.decode()
    )
    client.force_login(ben)
    html = client.get(reverse("games:player", args=["ana"])).content.decode()
    assert "Desafiar a este jugador" in html
    assert reverse("games:invite", args=["ana"]) in html
    assert (
        "Desafiar a este jugador"
        not in client.get(reverse("games:player", args=["ben"])).content.decode()
    )


def test_the_lobby_compares_a_range_with_the_fibs_rating(season, ana, ben):
    from games.selectors import lobby

    assert lobby.rating_for(ana) == round(ratings_of(ana))
    assert lobby.rating_for(account("newcomer")) == 1500


def ratings_of(user):
    from accounts.models import Rating

    return Rating.objects.get(user=user).rating
