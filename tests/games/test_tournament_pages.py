"""The tournament pages: the list, a tournament's page in a fixed number of
queries whatever its field, hosting, joining by link, refusals in words, and
the tournament's matches in "Mis partidas" and on the profile."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Rating
from games import services
from games.models import Entry, Match, Room, Seat, Tournament, TournamentMatch
from tests.helpers import count_queries, make_player


@pytest.fixture
def field(db, clock, dice):
    users = []
    for number in range(1, 33):
        user = make_player(f"p{number}")
        Rating.objects.create(user=user, rating=2000 - 10 * number, matches=1)
        users.append(user)
    return users


def client_for(user, language="es") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def filled(users, kind="knockout", **options):
    fields = {"host": None, "name": f"Copa {len(users)}", "kind": kind, "capacity": len(users)}
    tournament = services.tournament_create(**(fields | {"lengths": [3]} | options))
    for user in users:
        services.tournament_join(tournament=tournament, user=user)
    tournament.refresh_from_db()
    return tournament


def resign(tournament, round_, index, loser):
    row = TournamentMatch.objects.get(tournament=tournament, round=round_, index=index)
    seat = Seat.objects.get(room_id=row.room_id, user=loser)
    services.match_resign(seat=seat, version=Match.objects.get(room_id=row.room_id).version)


def test_the_bracket_page_costs_the_same_queries_for_4_and_32_players(field):
    small = filled(field[:4])
    large = filled(field[:32])
    resign(small, 1, 0, field[3])
    resign(large, 1, 0, field[31])
    viewer = client_for(field[0])
    url = reverse("games:tournament", args=[small.slug])
    few = count_queries(viewer, url, warm_up=True)
    many = count_queries(viewer, reverse("games:tournament", args=[large.slug]))
    assert few == many
    assert many <= 12


def test_the_standings_page_costs_the_same_queries_for_4_and_8_players(field):
    small = filled(field[:4], kind="league")
    large = filled(field[4:12], kind="league", name="Liga 8")
    viewer = client_for(field[0])
    few = count_queries(viewer, reverse("games:tournament", args=[small.slug]), warm_up=True)
    many = count_queries(viewer, reverse("games:tournament", args=[large.slug]))
    assert few == many


def test_the_bracket_names_rounds_players_and_who_is_waiting(field):
    tournament = filled(field[:8])
    resign(tournament, 1, 0, field[7])
    page = client_for(field[0]).get(reverse("games:tournament", args=[tournament.slug]))
    html = page.content.decode()
    assert page.status_code == 200
    for heading in ("Cuartos de final", "Semifinales", "Final"):
        assert f">{heading}</h3>" in html
    assert "le toca a" in html and "ir a tu mesa" in html and "por decidir" in html
    assert html.count('<li class="bracket-match') == 7


def test_the_standings_table_reads_in_english_too(field):
    tournament = filled(field[:4], kind="league")
    page = client_for(field[0], "en").get(reverse("games:tournament", args=[tournament.slug]))
    html = page.content.decode()
    assert '<th scope="col">#</th>' in html and "League standings" in html
    assert "Wins, then points difference, then head to head." in html


def test_the_list_shows_open_running_and_finished_but_never_a_private_one(field):
    services.tournament_create(host=None, name="Abierto", kind="league", capacity=8, lengths=[3])
    services.tournament_create(
        host=field[0], name="Secreto", kind="league", capacity=8, lengths=[3], private=True
    )
    filled(field[:4], name="Corriendo")
    html = Client().get(reverse("games:tournaments")).content.decode()
    assert "Abierto" in html and "Corriendo" in html and "Secreto" not in html


def test_the_list_filters_by_length_and_band(field):
    services.tournament_create(host=None, name="Corto", kind="league", capacity=8, lengths=[1])
    services.tournament_create(
        host=None, name="Alto", kind="league", capacity=8, lengths=[5], rating_min=1900
    )
    by_length = Client().get(reverse("games:tournaments"), {"puntos": "1"}).content.decode()
    assert "Corto" in by_length and "Alto" not in by_length
    by_band = Client().get(reverse("games:tournaments"), {"puntuacion": "1500"}).content.decode()
    assert "Corto" in by_band and "Alto" not in by_band


def test_a_private_tournament_is_joined_by_its_link(field):
    tournament = services.tournament_create(
        host=field[0], name="Entre amigos", kind="knockout", capacity=4, lengths=[1], private=True
    )
    url = reverse("games:tournament_join", args=[tournament.slug])
    answer = client_for(field[1]).post(url)
    assert answer.status_code == 302
    assert Entry.objects.filter(tournament=tournament, user=field[1]).exists()


def test_a_refusal_is_a_sentence_with_its_status_and_writes_nothing(field):
    tournament = filled(field[:4])
    answer = client_for(field[4]).post(reverse("games:tournament_join", args=[tournament.slug]))
    assert answer.status_code == 409
    assert "Este torneo ya no admite jugadores." in answer.content.decode()
    assert Entry.objects.filter(tournament=tournament).count() == 4


def test_a_visitor_is_sent_to_log_in_and_a_bad_slug_is_404(field):
    tournament = services.tournament_create(
        host=None, name="Abierto", kind="league", capacity=8, lengths=[3]
    )
    answer = Client().post(reverse("games:tournament_join", args=[tournament.slug]))
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("accounts:login"))
    assert answer["Location"].endswith(f"/torneos/{tournament.slug}/")
    assert not Entry.objects.exists()
    assert Client().get("/torneos/nope-nope/").status_code == 404


def test_hosting_a_tournament_from_the_form(field):
    host = client_for(field[0])
    form = {
        "name": "Mi copa",
        "kind": "knockout",
        "capacity": "8",
        "length": "3",
        "final_length": "7",
        "days_per_move": "3",
        "starts_in_days": "5",
    }
    answer = host.post(reverse("games:tournament_new"), form)
    tournament = Tournament.objects.get()
    assert answer.status_code == 302 and answer["Location"].endswith(f"/{tournament.slug}/")
    assert (tournament.lengths, tournament.days_per_move, tournament.host) == (
        [3, 7],
        3,
        field[0],
    )


def test_a_bad_form_is_400_and_writes_nothing(field):
    host = client_for(field[0])
    bad = {"name": "x", "kind": "knockout", "capacity": "3", "length": "3", "days_per_move": "2"}
    answer = host.post(reverse("games:tournament_new"), bad | {"starts_in_days": "5"})
    assert answer.status_code == 400
    assert not Tournament.objects.exists()


def test_my_rooms_and_the_profile_name_the_tournament(field):
    tournament = filled(field[:4], name="Copa de otoño")
    client = client_for(field[0])
    mine = client.get(reverse("games:my_rooms")).content.decode()
    assert "torneo «Copa de otoño»" in mine
    assert reverse("games:tournament", args=[tournament.slug]) in mine
    profile = client.get(reverse("games:player", args=["p1"])).content.decode()
    assert "Copa de otoño" in profile


def test_a_room_by_link_takes_its_days_per_move_from_the_home_form(db, clock, dice):
    form = {"opponent": "person", "format": "single", "nickname": "Ana", "days_per_move": "3"}
    answer = Client().post(reverse("games:home"), form)
    assert answer.status_code == 302
    assert Room.objects.get().days_per_move == 3
    bad = Client().post(reverse("games:home"), form | {"days_per_move": "4"})
    assert bad.status_code == 200 and Room.objects.count() == 1
