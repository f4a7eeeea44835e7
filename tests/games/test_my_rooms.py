"""Mis partidas by urgency, and the header's count of matches waiting for my move."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import selectors, services
from games.engine import Format, MatchRules
from games.lib.deadlines import ABSENCE_AFTER
from tests.helpers import count_queries, seat_url

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture
def marta(db):
    return get_user_model().objects.create_user("marta", password="x" * 12)


@pytest.fixture
def tables(marta, clock, dice):
    """Marta (an account) against a guest, Leo, at six tables opened an hour apart."""
    leo = Client()
    rooms = {}

    def table(name, opening, resign=False):
        seat = services.room_create(rules=MatchRules(), nickname="marta", user=marta)
        dice.push(opening)  # (3, 1): marta starts; (1, 3): leo starts
        guest = services.room_join(room=seat.room, nickname=f"leo-{name}")
        leo.get(seat_url(seat.room, guest.token))
        if resign:
            services.match_resign(seat=seat, version=seat.room.matches.get().version)
        rooms[name] = seat.room
        clock.tick(HOUR)

    table("finished_first", (3, 1), resign=True)
    table("finished_last", (3, 1), resign=True)
    table("theirs_oldest", (1, 3))
    table("mine_nearest", (3, 1))
    table("theirs_newest", (1, 3))
    table("mine_later", (3, 1))
    return rooms, leo


def test_my_turn_first_by_deadline_then_the_rival_s_by_oldest_then_finished_newest_first(
    marta, tables, clock
):
    rooms, _ = tables
    # mine_nearest's turn started 3 hours ago: move on until 31 hours remain.
    clock.tick(ABSENCE_AFTER - 31 * HOUR - 3 * HOUR)
    lines = selectors.rooms_for_seats(marta.seats.all())
    order = [next(k for k, r in rooms.items() if r.pk == line["room"].pk) for line in lines]
    assert order == [
        "mine_nearest",
        "mine_later",
        "theirs_oldest",
        "theirs_newest",
        "finished_last",
        "finished_first",
    ]
    assert [line["hours_left"] for line in lines[:2]] == [31, 33]

    client = Client()
    client.force_login(marta)
    page = client.get(reverse("games:my_rooms")).content.decode()
    assert "te quedan 31 h" in page and "te quedan 33 h" in page
    assert page.index("Te toca") < page.index("Esperando a tu rival") < page.index("Terminadas")
    assert page.index(rooms["mine_nearest"].slug) < page.index(rooms["mine_later"].slug)
    assert page.index(rooms["finished_last"].slug) < page.index(rooms["finished_first"].slug)


def test_the_last_hour_and_a_single_hour_read_well_in_both_languages(marta, tables, clock):
    clock.tick(ABSENCE_AFTER - 1 * HOUR - 3 * HOUR)  # mine_nearest: 1 h left
    client = Client()
    client.force_login(marta)
    page = client.get(reverse("games:my_rooms")).content.decode()
    assert "te queda 1 h" in page
    english = client.get(reverse("games:my_rooms"), headers={"accept-language": "en"})
    assert "1 h left" in english.content.decode()
    clock.tick(timedelta(minutes=30))
    page = client.get(reverse("games:my_rooms")).content.decode()
    assert "te queda menos de una hora" in page


def test_the_header_counts_the_matches_waiting_for_me_on_every_page(marta, tables):
    rooms, leo = tables
    client = Client()
    client.force_login(marta)
    for url in (reverse("games:home"), reverse("games:rules"), reverse("games:my_rooms")):
        page = client.get(url).content.decode()
        assert 'data-waiting="2"' in page and "2 partidas esperan tu jugada" in page
    # The guest holds his seats through the session of the links he opened.
    page = leo.get(reverse("games:home")).content.decode()
    assert 'data-waiting="2"' in page
    # Nobody's seat, no badge.
    assert "data-waiting" not in Client().get(reverse("games:home")).content.decode()


def test_one_move_changes_the_count_and_one_waiting_game_says_so_in_the_singular(marta, tables):
    rooms, leo = tables
    room = rooms["mine_later"]
    seat = room.seats.get(number=1)
    services.match_resign(seat=seat, version=room.matches.get().version)
    client = Client()
    client.force_login(marta)
    page = client.get(reverse("games:home")).content.decode()
    assert 'data-waiting="1"' in page and "1 partida espera tu jugada" in page


def test_the_count_is_one_query_however_many_tables(marta, tables, django_assert_num_queries):
    rooms, leo = tables
    tokens = leo.session["mesa_seats"]  # the guest's seat links, as the header reads them
    with django_assert_num_queries(1):
        assert selectors.waiting_for_me(marta, {}) == 2
    with django_assert_num_queries(1):
        assert selectors.waiting_for_me(None, tokens) == 2
    with django_assert_num_queries(0):
        assert selectors.waiting_for_me(None, {}) == 0


def test_mis_partidas_costs_the_same_queries_however_many_tables(marta, tables):
    client = Client()
    client.force_login(marta)
    six = count_queries(client, reverse("games:my_rooms"))
    services.room_create(rules=MatchRules(), nickname="marta", user=marta)
    assert count_queries(client, reverse("games:my_rooms")) == six


def row_of(page: str, room) -> str:
    return page.split(f'data-room="{room.slug}"')[1].split("</li>")[0]


def test_each_row_says_the_score_the_last_move_and_the_time_left_on_either_turn(marta, clock, dice):
    client = Client()
    client.force_login(marta)
    # A match to 5 on the rival's turn, and a partida simple on marta's.
    seat = services.room_create(
        rules=MatchRules(format=Format.MATCH, length=5), nickname="marta", user=marta
    )
    dice.push((3, 1))
    leo = services.room_join(room=seat.room, nickname="leo")
    services.game_play(seat=seat, version=1, play=[[8, 5], [6, 5]])
    match_room = seat.room
    mine = services.room_create(rules=MatchRules(), nickname="marta", user=marta)
    dice.push((3, 1))
    services.room_join(room=mine.room, nickname="ana")
    clock.tick(5 * HOUR)

    page = client.get(reverse("games:my_rooms")).content.decode()
    rival = row_of(page, match_room)
    assert "le toca a tu rival" in rival
    assert "a tu rival le quedan 43 h" in rival  # 48 hours from leo's turn, 5 gone
    assert "tú 0, rival 0 (a 5)" in rival
    assert "última jugada hace 5" in rival
    own = row_of(page, mine.room)
    assert "te quedan 43 h" in own and "tú 0" not in own  # no score in a partida simple

    # A resigned game counts: marta leads 1 to 0 (leo resigns a single game at his turn).
    services.game_resign_offer(seat=leo, version=match_room.matches.get().version, value=1)
    services.game_resign_accept(seat=seat, version=match_room.matches.get().version)
    page = client.get(reverse("games:my_rooms"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "you 1, opponent 0 (to 5)" in row_of(page, match_room)
    assert "last move a moment ago" in row_of(page, match_room)
