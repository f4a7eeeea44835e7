"""A room keeps every match it played: the archive page, a page per past match,
and each match's own .mat, with seeds only of games that are over."""

from datetime import timedelta

import pytest
from django.urls import reverse

from games import services
from games.engine import parse_mat
from games.models import Game
from games.selectors import archive
from games.web.seats import load_room
from tests.helpers import bind, count_queries, current_match, play_out, secret_forms

pytestmark = pytest.mark.django_db


def rematch(room, alice, bob):
    """End the current match by resigning it, then start the next one."""
    match = current_match(room)
    loser = alice if match.turn_seat_id == alice.seat.pk else bob
    services.match_resign(seat=loser.seat, version=match.version)
    services.rematch_offer(seat=alice.seat)
    services.rematch_accept(seat=bob.seat)


def test_after_a_rematch_the_first_match_stays_with_its_seed_history_and_file(
    room, alice, bob, carol
):
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    rematch(room, alice, bob)  # bob resigns match 1: alice wins it
    first = room.matches.get(number=1).games.get()
    running = current_match(room).games.get()

    page = carol.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert reverse("games:past_match", args=[room.slug, 1]) in page
    assert reverse("games:match_file_number", args=[room.slug, 1]) in page

    archive = carol.client.get(reverse("games:room_archive", args=[room.slug])).content.decode()
    assert "Encuentro 1" in archive and "Encuentro 2" in archive
    assert "ganó alice" in archive
    assert bytes(first.seed).hex() in archive and first.commitment in archive
    assert running.commitment in archive
    assert not any(secret in archive for secret in secret_forms(running))

    past = carol.client.get(reverse("games:past_match", args=[room.slug, 1])).content.decode()
    assert "8/5 6/5" in past
    assert bytes(first.seed).hex() in past
    assert not any(secret in past for secret in secret_forms(running))

    response = carol.client.get(reverse("games:match_file_number", args=[room.slug, 1]))
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith('filename="mesa-alice-bob-2026-03-02.mat"')
    record = parse_mat(response.content.decode())
    assert record.names == ("alice", "bob")
    assert "8/5 6/5" in response.content.decode()


def test_a_running_match_has_no_past_page_and_an_unknown_number_no_file(room, carol):
    assert carol.client.get(reverse("games:past_match", args=[room.slug, 1])).status_code == 404
    assert carol.client.get(reverse("games:past_match", args=[room.slug, 7])).status_code == 404
    missing = reverse("games:match_file_number", args=[room.slug, 2])
    assert carol.client.get(missing).status_code == 404
    assert carol.client.get(reverse("games:room_archive", args=["nope"])).status_code == 404


def test_mis_partidas_links_the_archive_of_a_room_with_a_finished_match(room, alice, bob):
    rematch(room, alice, bob)
    page = alice.client.get(reverse("games:my_rooms"))
    assert page.status_code == 200
    # alice's client holds no seat yet: she opens her link first.
    bind(alice, room)
    page = alice.client.get(reverse("games:my_rooms")).content.decode()
    assert reverse("games:room_archive", args=[room.slug]) in page


def test_the_archive_pages_cost_the_same_queries_however_many_matches_and_turns(
    room, alice, bob, carol
):
    rematch(room, alice, bob)
    archive_url = reverse("games:room_archive", args=[room.slug])
    past_url = reverse("games:past_match", args=[room.slug, 1])
    room_url = reverse("games:room", args=[room.slug])
    before = [count_queries(carol.client, url) for url in (archive_url, past_url, room_url)]
    play_out(room, alice, bob)
    rematch_after_finish(room, alice, bob)
    play_out(room, alice, bob)
    services.rematch_offer(seat=alice.seat)
    services.rematch_accept(seat=bob.seat)
    assert room.matches.count() == 4 and Game.objects.filter(match__room=room).count() == 4
    after = [count_queries(carol.client, url) for url in (archive_url, past_url, room_url)]
    assert after == before
    past_3 = reverse("games:past_match", args=[room.slug, 3])
    assert count_queries(carol.client, past_3) == before[1]


def rematch_after_finish(room, alice, bob):
    services.rematch_offer(seat=alice.seat)
    services.rematch_accept(seat=bob.seat)


def test_the_archive_reads_are_two_and_three_queries(room, alice, bob, django_assert_num_queries):
    rematch(room, alice, bob)
    rematch(room, alice, bob)
    loaded = load_room(room.slug)
    with django_assert_num_queries(2):  # the matches, then all their games
        matches = archive.room_matches(loaded)
    assert [m["number"] for m in matches] == [1, 2, 3]
    assert [m["finished"] for m in matches] == [True, True, False]
    with django_assert_num_queries(1):  # the room page's list: no games needed
        assert len(archive.room_matches(loaded, finished_only=True, games=False)) == 2
    with django_assert_num_queries(3):  # the match, its games, its turns
        record = archive.past_match(loaded, 2)
    assert record["summary"]["winner"] in ("alice", "bob")


def test_an_expired_room_keeps_its_match_with_no_winner_and_its_seed(room, carol, clock):
    clock.tick(timedelta(days=8))
    services.room_expire(room_id=room.pk)
    game = room.matches.get().games.get()
    page = carol.client.get(reverse("games:room_archive", args=[room.slug])).content.decode()
    assert "sin ganador" in page and "en juego" not in page
    assert bytes(game.seed).hex() in page
