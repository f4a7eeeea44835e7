"""The room's match as a .mat file: GET /mesa/<slug>/encuentro.mat.

The file is rebuilt from the Turn rows and read back with the engine's own
parser: the same rolls and plays, in the same order, as the history; anyone
who can watch the room may download it; a running game's seed never shows.
"""

import pytest
from django.urls import reverse

from games import services
from games.engine import Format, MatchRules, MatchState
from games.engine.matfile import actions_from_mat, parse_mat
from games.models import Game, Turn
from tests.helpers import current_match, play_out, play_turns, queries_of, secret_forms

pytestmark = pytest.mark.django_db

MATCH_TO_3 = MatchRules(format=Format.MATCH, length=3)


def mat_url(room) -> str:
    return reverse("games:match_file", args=[room.slug])


def download(client, room):
    response = client.get(mat_url(room))
    assert response.status_code == 200, response.content[:500]
    return response


def turn_history(match) -> list[list[tuple]]:
    """Per game, what a .mat records of the Turn rows: rolls with their play, cube actions."""
    games = []
    for game in Game.objects.filter(match=match).order_by("number"):
        entries, dice = [], None
        for turn in Turn.objects.filter(game=game).order_by("number"):
            if turn.kind == "roll":
                dice = (max(turn.dice), min(turn.dice))
                if turn.steps == []:  # no legal play: the roll is the whole turn
                    entries.append(("roll", turn.side, dice, ()))
            elif turn.kind == "play":
                entries.append(("roll", turn.side, dice, tuple(map(tuple, turn.steps))))
            elif turn.kind in ("double", "take", "drop"):
                entries.append((turn.kind, turn.side))
        games.append(entries)
    return games


def recorded_moves(record) -> list[list[tuple]]:
    return [
        [
            (m.kind, m.side, m.dice, m.play) if m.kind == "roll" else (m.kind, m.side)
            for m in game.moves
            if m.kind != "win"
        ]
        for game in record.games
    ]


@pytest.mark.parametrize("rules", [MATCH_TO_3])
def test_a_played_match_reads_back_into_the_moves_of_its_history(room, alice, bob, carol):
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    services.game_double(seat=bob.seat, version=2)
    services.game_take(seat=alice.seat, version=3)
    match = play_out(room, alice, bob)

    text = download(carol.client, room).content.decode()
    record = parse_mat(text)

    assert record.length == 3 and record.names == ("alice", "bob")
    assert recorded_moves(record) == turn_history(match)
    assert ("double", 1) in recorded_moves(record)[0] and ("take", 0) in recorded_moves(record)[0]
    # The file carries the whole match: replayed, it ends at the stored score.
    replayed = MatchState.replay(MATCH_TO_3, actions_from_mat(record, MATCH_TO_3))
    assert replayed.score == MatchState.from_json(match.state).score
    assert [game.score for game in record.games][0] == (0, 0)


@pytest.mark.parametrize(
    ("rules", "length_line"),
    [(MatchRules(), " 1 point match"), (MatchRules(format=Format.SESSION), " 0 point match")],
    ids=["partida-simple", "session"],
)
def test_a_partida_simple_is_one_point_and_a_session_money_play(room, carol, length_line):
    text = download(carol.client, room).content.decode()
    assert length_line in text.splitlines()


def test_a_spectator_downloads_it_as_an_attachment(room, carol):
    response = download(carol.client, room)
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="mesa-alice-bob-2026-03-02.mat"'
    )
    assert "no-cache" in response["Cache-Control"]


def test_a_rematch_file_has_its_number_and_the_swapped_sides(room, alice, bob, carol):
    services.match_resign(seat=alice.seat, version=1)
    services.rematch_offer(seat=alice.seat)
    services.rematch_accept(seat=bob.seat)
    response = download(carol.client, room)
    assert response["Content-Disposition"].endswith('filename="mesa-bob-alice-2026-03-02-2.mat"')
    assert parse_mat(response.content.decode()).names == ("bob", "alice")


def test_a_running_game_never_leaks_its_seed(room, alice, bob, carol):
    services.game_play(seat=alice.seat, version=1, play=[[8, 5], [6, 5]])
    game = current_match(room).games.get()
    assert not game.revealed
    text = download(carol.client, room).content.decode()
    assert "31: 8/5 6/5" in text
    assert not any(secret in text for secret in secret_forms(game))
    assert game.commitment not in text


def test_an_unknown_room_is_not_found(carol):
    response = carol.client.get(reverse("games:match_file", args=["no-such-room"]))
    assert response.status_code == 404


def test_a_room_waiting_for_its_rival_has_nothing_to_download(alice, carol):
    assert carol.client.get(mat_url(alice.seat.room)).status_code == 404


def test_only_get_is_allowed(room, carol):
    assert carol.client.post(mat_url(room)).status_code == 405


MAT_QUERIES = 4  # room, its seats, the current match, its turns


def test_the_download_costs_the_same_queries_however_long_the_match(room, alice, bob, carol):
    short = queries_of(lambda: download(carol.client, room))
    play_turns(room, alice, bob, 40)
    assert current_match(room).version > 40
    assert short == queries_of(lambda: download(carol.client, room)) == MAT_QUERIES
