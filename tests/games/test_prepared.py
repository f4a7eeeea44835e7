"""games.selectors.prepared: a queryset compiled once gives what the queryset gives,
row for row, converted as the ORM converts (JSON, moments, annotations), in one
query; and the room state's own prepared reads agree with the ORM's."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.lib import clock, evaluator
from games.models import Game, GameAnalysis, Match, Room, Seat, Turn
from games.selectors import board, review
from games.selectors.prepared import INT_MARKER, TEXT_MARKER, prepared

pytestmark = pytest.mark.django_db


def fields(instance):
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


@pytest.fixture
def analysed(room):
    """The room's first game with a finished analysis of the current version."""
    game = Game.objects.get(match__room=room)
    GameAnalysis.objects.create(
        game=game,
        version=evaluator.current_version(),
        status=GameAnalysis.Status.DONE,
        requested_at=clock.now(),
        summary={"pr": [3.2, 7.5], "words": "ñandú"},
    )
    return room


def test_model_rows_are_the_querysets_own(analysed):
    room = analysed
    match = Match.objects.get(room=room)

    def games(match_id):
        return review.with_analysis(Game.objects.filter(match_id=match_id)).order_by("number")

    query = prepared(("test games", evaluator.current_version()), Game, games)
    with CaptureQueriesContext(connection) as queries:
        found = query.instances(match.pk)
    assert len(queries.captured_queries) == 1
    expected = list(games(match.pk))
    assert [fields(g) for g in found] == [fields(g) for g in expected]
    # The annotations, the JSON one decoded as the ORM decodes it.
    assert found[0].analysis_summary == {"pr": [3.2, 7.5], "words": "ñandú"}
    assert found[0].analysis_status == GameAnalysis.Status.DONE
    assert not found[0]._state.adding and found[0]._state.db == "default"
    # Compiled once: the same thread's next call finds it made.
    assert prepared(("test games", evaluator.current_version()), Game, games) is query


def test_values_rows_are_the_querysets_own(room):
    match = Match.objects.get(room=room)

    def turns(match_id):
        return Turn.objects.filter(game__match_id=match_id).values(*board.TURN_COLUMNS)

    found = prepared("test turns", Turn, turns).dicts(match.pk)
    assert found and sorted(found, key=str) == sorted(turns(match.pk), key=str)
    assert all(isinstance(row["dice"], list | None) for row in found)


def test_a_text_value_and_a_row_that_is_not_there(room):
    query = prepared("test room", Room, lambda slug: Room.objects.filter(slug=slug), TEXT_MARKER)
    [found] = query.instances(room.slug)
    assert fields(found) == fields(Room.objects.get(pk=room.pk))
    assert query.instances("no-such-room") == []


def test_what_it_cannot_rebuild_is_refused(room):
    with pytest.raises(ValueError, match="marker"):
        prepared("test twice", Seat, lambda n: Seat.objects.filter(number=n, room_id=n))
    with pytest.raises(ValueError, match="marker"):
        prepared("test none", Seat, lambda n: Seat.objects.filter(number=1))
    with pytest.raises(ValueError, match="select_related"):
        prepared("test related", Seat, lambda n: Seat.objects.filter(room_id=n).select_related())
    with pytest.raises(ValueError, match="values_list"):
        prepared(
            "test values_list", Seat, lambda n: Seat.objects.filter(room_id=n).values_list("id")
        )
    assert 0 < INT_MARKER < 32_767  # in the range of every integer column


def test_the_room_state_reads_as_the_orm_does(analysed):
    """The state's prepared reads (match, games, turns) against the ORM's."""
    room = analysed
    match = Match.objects.filter(room=room).order_by("-number").first()
    mine = board.current_match(room)
    assert mine is not None and match is not None
    assert fields(mine) == fields(match) and mine.room is room
    games = board._state_games(mine)
    orm = list(review.with_analysis(Game.objects.filter(match=match)).order_by("number"))
    assert [fields(g) for g in games] == [fields(g) for g in orm]
    turns = Turn.objects.filter(game__in=[g.pk for g in orm]).values(*board.TURN_COLUMNS)
    assert sorted(board._state_turns(mine), key=str) == sorted(turns, key=str)


def test_the_rooms_latest_words_are_the_orms(room):
    """games.selectors.talk's prepared read: the newest MESSAGES_SHOWN, newest first,
    ties on the moment broken by id, as the ORM's slice gives them."""
    from datetime import timedelta

    from games.models import Message
    from games.selectors import talk

    seats = list(Seat.objects.filter(room=room).order_by("number"))
    now = clock.now()
    Message.objects.bulk_create(
        Message(
            room=room,
            seat=seats[i % 2],
            text=f"palabra {i} ñ",
            version=i,
            with_turn=i % 3 == 0,
            created_at=now + timedelta(seconds=i // 2),  # two words to each moment
        )
        for i in range(talk.MESSAGES_SHOWN + 5)
    )
    expected = list(
        Message.objects.filter(room=room).order_by("-created_at", "-pk")[: talk.MESSAGES_SHOWN]
    )
    found = talk._latest(room.pk)
    assert [fields(m) for m in found] == [fields(m) for m in expected]
    assert len(found) == talk.MESSAGES_SHOWN and found[-1].text == "palabra 5 ñ"
