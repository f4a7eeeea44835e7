"""The room state from cache (games.web.state_cache): the same answer as a fresh
computation, for every viewer and language, after every kind of change; a seat's
private part never reaches anyone else; fewer queries on a hit; a failing cache
is passed by.

alice (seat 1) and bob (seat 2) play a match to 5 in their own browsers; carol
watches. "Fresh" is the state computed now, without the cache.
"""

import logging
import threading
from datetime import timedelta

import pytest
from django.core.cache import caches
from django.db import connection, transaction
from django.utils import translation

from games import services
from games.engine import Format, MatchRules
from games.models import Game
from games.web import state_cache
from games.web.seats import load_room
from tests.helpers import bind, count_queries, current_match, first_legal_play, state_url

MATCH5 = MatchRules(format=Format.MATCH, length=5)
LANGUAGES = ("es", "en")


@pytest.fixture
def rules():
    return MATCH5


@pytest.fixture(autouse=True)
def _empty_cache():
    state_cache.clear()
    yield
    state_cache.clear()
    # The last request of a test may have been in English: LocaleMiddleware leaves
    # it active in this thread, where the next test calls selectors directly.
    translation.deactivate()


@pytest.fixture
def table(room, alice, bob, carol):
    """The three viewers' browsers, the two players' bound to their seats."""
    bind(alice, room)
    bind(bob, room)
    return {"alice": alice, "bob": bob, "carol": carol}


def get(persona, room, language="es", **headers):
    return persona.client.get(state_url(room), HTTP_ACCEPT_LANGUAGE=language, **headers)


def fresh(persona, room, language="es") -> bytes:
    """The viewer's state computed now, without the cache."""
    loaded = load_room(room.slug)
    seat = next((s for s in loaded.seats.all() if persona.seat and s.pk == persona.seat.pk), None)
    with translation.override(language):
        return state_cache.compute(loaded, seat).body


def assert_served_fresh(table, room):
    """Every viewer, in every language, is served what a fresh computation gives,
    the first time (computed) and the second (from the cache)."""
    for persona in table.values():
        for language in LANGUAGES:
            expected = fresh(persona, room, language)
            for _ in range(2):
                response = get(persona, room, language)
                assert response.status_code == 200
                assert response.content == expected, (persona.name, language)


def bodies(table, room) -> dict:
    return {
        (name, language): get(persona, room, language).content
        for name, persona in table.items()
        for language in LANGUAGES
    }


def play_first(room, persona):
    match = current_match(room)
    side = match.side_of(persona.seat)
    services.game_play(seat=persona.seat, version=match.version, play=first_legal_play(room, side))


# -- the same answer ------------------------------------------------------------------


def test_every_viewer_and_language_is_served_the_fresh_state(table, room):
    assert_served_fresh(table, room)
    served = bodies(table, room)
    # Six different answers: three viewers, two languages, none served to another.
    assert len(set(served.values())) == 6


# Each change, after its setup (cached first), moves what the state says; most
# of them move no version.
def nothing(room, alice, bob, clock):
    pass


def a_move(room, alice, bob, clock):
    play_first(room, alice)


def a_message(room, alice, bob, clock):
    services.message_send(seat=alice.seat, text="suerte")


def a_mute(room, alice, bob, clock):
    services.messages_mute(seat=bob.seat)


def a_written_answer(room, alice, bob, clock):
    version = current_match(room).version
    services.game_conditional_answer(seat=alice.seat, version=version, answer="take")
    assert current_match(room).version == version


def two_days_after_a_move(room, alice, bob, clock):
    play_first(room, alice)
    clock.tick(timedelta(hours=48))  # alice may keep waiting only from the deadline on


def keep_waiting(room, alice, bob, clock):
    services.absence_keep_waiting(seat=alice.seat, version=current_match(room).version)


CHANGES = [
    (nothing, a_move),
    (nothing, a_message),
    (a_message, a_mute),
    (a_move, a_written_answer),  # bob may double: alice writes her answer
    (two_days_after_a_move, keep_waiting),
]


@pytest.mark.parametrize(("setup", "change"), CHANGES, ids=lambda c: c.__name__)
def test_a_change_is_served_at_once(table, room, alice, bob, clock, setup, change):
    setup(room, alice, bob, clock)
    before = bodies(table, room)
    change(room, alice, bob, clock)
    assert_served_fresh(table, room)
    assert bodies(table, room) != before


def test_a_mute_after_the_message_was_read(table, room, alice, bob):
    services.message_send(seat=alice.seat, text="suerte")
    assert b"suerte" in get(bob, room).content
    services.messages_mute(seat=bob.seat)
    assert b"suerte" not in get(bob, room).content
    assert_served_fresh(table, room)


def test_a_join_is_served_at_once(alice, carol, dice):
    room = alice.seat.room
    bind(alice, room)
    viewers = {"alice": alice, "carol": carol}
    assert_served_fresh(viewers, room)
    dice.push((3, 1))
    services.room_join(room=room, nickname="bob")
    assert_served_fresh(viewers, room)
    assert b'"nickname":"bob"' in get(carol, room).content


def test_a_rematch_offer_and_an_analysis_queued_are_served_at_once(table, room, alice, bob, carol):
    services.match_resign(seat=bob.seat, version=current_match(room).version)
    assert_served_fresh(table, room)
    match = services.rematch_offer(seat=alice.seat)
    assert match.rematch_offered_by_id == alice.seat.pk
    assert_served_fresh(table, room)
    game = Game.objects.filter(match=current_match(room)).order_by("number").first()
    services.game_analysis_queue(game=game)
    assert_served_fresh(table, room)
    assert b'"status":"pending"' in get(carol, room).content


def test_an_analysis_that_fails_is_served_at_once(table, room, alice, bob, carol, monkeypatch):
    from games.services import analysis

    services.match_resign(seat=bob.seat, version=current_match(room).version)
    game = Game.objects.filter(match=current_match(room)).order_by("number").first()
    row = services.game_analysis_queue(game=game)
    assert_served_fresh(table, room)

    def broken(game, settings):
        # Read while it runs (that state cached), then the evaluator falls over.
        assert b'"status":"running"' in get(carol, room).content
        raise RuntimeError("the evaluator fell over")

    monkeypatch.setattr(analysis, "_rate", broken)
    with pytest.raises(RuntimeError):
        services.game_analysis_run(analysis_id=row.pk)
    assert_served_fresh(table, room)
    assert b'"status":"failed"' in get(carol, room).content


def test_a_claimed_seat_and_an_expired_room_are_served_at_once(alice, carol, ben, clock):
    room = alice.seat.room
    bind(alice, room)
    viewers = {"alice": alice, "carol": carol}
    assert_served_fresh(viewers, room)
    services.seats_claim_for_user(user=ben, seat_ids=[alice.seat.pk])
    assert_served_fresh(viewers, room)
    clock.tick(timedelta(days=8))
    assert services.room_expire(room_id=room.pk) is not None  # nobody ever joined
    assert_served_fresh(viewers, room)
    assert b'"status":"expired"' in get(carol, room).content


def test_a_move_by_the_release_before_counting_no_serial_is_served_at_once(
    table, room, alice, monkeypatch, clock
):
    # During a deploy the old processes still move: no serial, but the room's last move.
    from games.models import Room
    from games.services import live

    def no_serial(room_id, **columns):  # the room's other columns written all the same
        Room.objects.filter(pk=room_id).update(**columns)

    assert_served_fresh(table, room)
    clock.tick(timedelta(seconds=40))  # the tests' clock stands still otherwise
    with monkeypatch.context() as old_release:
        old_release.setattr(live, "room_moved", no_serial)
        play_first(room, alice)
    assert_served_fresh(table, room)


def test_what_the_clock_alone_changes_is_computed_again(table, room, alice, bob, clock):
    play_first(room, alice)  # bob's turn: alice waits
    shown = get(alice, room).json()["match"]["absence"]
    assert (shown["can_claim"], shown["show_deadline"]) == (False, False)
    clock.tick(timedelta(hours=7))
    assert get(alice, room).json()["match"]["absence"]["show_deadline"] is True
    clock.tick(timedelta(hours=42))
    assert get(alice, room).json()["match"]["absence"]["can_claim"] is True
    assert "claim_absence" in get(alice, room).json()["match"]["allowed"]
    assert_served_fresh(table, room)


def test_a_vacation_is_served_at_once(ana, ben, carol, clock, dice):
    from games.services.vacations import vacation_end, vacation_start
    from tests.helpers import Persona

    seat = services.room_create(rules=MATCH5, nickname="ana", user=ana)
    dice.push((3, 1))
    other = services.room_join(room=seat.room, nickname="ben", user=ben)
    room = seat.room
    ana_p, ben_p = Persona("ana", seat=seat), Persona("ben", seat=other)
    ana_p.client.force_login(ana)
    ben_p.client.force_login(ben)
    viewers = {"ana": ana_p, "ben": ben_p, "carol": carol}
    play_first(room, ana_p)
    assert_served_fresh(viewers, room)
    vacation_start(user=ben, days=3)
    assert_served_fresh(viewers, room)
    assert get(ana_p, room).json()["seats"][1]["away_until"] is not None
    clock.tick(timedelta(days=1))
    vacation_end(user=ben)
    assert get(ana_p, room).json()["seats"][1]["away_until"] is None
    assert_served_fresh(viewers, room)
    # ana waits for ben: her own vacation moves no deadline of this match.
    vacation_start(user=ana, days=2)
    assert get(ben_p, room).json()["seats"][0]["away_until"] is not None
    clock.tick(timedelta(hours=1))
    vacation_end(user=ana)
    assert get(ben_p, room).json()["seats"][0]["away_until"] is None
    assert_served_fresh(viewers, room)


# -- private parts -------------------------------------------------------------------


def test_a_seats_private_part_never_reaches_another_viewer(table, room, alice, bob, carol):
    play_first(room, alice)
    services.message_send(seat=alice.seat, text="un secreto entre los dos")
    version = current_match(room).version
    services.game_conditional_answer(seat=alice.seat, version=version, answer="drop")
    mine = get(alice, room).json()  # alice's own state, now in the cache
    assert mine["match"]["conditional"]["answer"] == "drop"
    assert mine["talk"]["messages"]
    for _ in range(2):
        spectator = get(carol, room).json()
        assert "talk" not in spectator
        assert spectator["match"]["conditional"] is None
        assert "cond_answer" not in [h["kind"] for h in spectator["match"]["history"]]
        assert spectator["viewer"] == {"seat": None, "side": None}
        assert not any(seat["is_you"] for seat in spectator["seats"])
        theirs = get(bob, room).json()
        assert theirs["match"]["conditional"]["answer"] is None
        assert "cond_answer" not in [h["kind"] for h in theirs["match"]["history"]]
    # Nothing secret is in any answer: not a token, not the seed of the game running.
    game = Game.objects.filter(match=current_match(room)).order_by("-number").first()
    for persona in table.values():
        body = get(persona, room).content.decode()
        assert alice.token not in body and bob.token not in body
        assert bytes(game.seed).hex() not in body


# -- HTTP ------------------------------------------------------------------------------


def test_an_unchanged_state_is_304_from_the_cache_and_200_after_a_change(table, room, alice):
    first = get(alice, room)
    etag = first["ETag"]
    again = get(alice, room, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag
    play_first(room, alice)
    moved = get(alice, room, HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved["ETag"] != etag


def test_a_hit_makes_fewer_queries(table, room, alice, carol, django_assert_num_queries):
    # A spectator's miss: the seats with the stamp (what a hit needs of them), then
    # the room's row, its seats whole and the state's three (the match, its games,
    # their turns).
    with django_assert_num_queries(6):
        get(carol, room)
    # Its hit: the seats with the stamp.
    with django_assert_num_queries(1):
        assert get(carol, room).status_code == 200
    get(alice, room)  # her "last seen" is written: not a query of the next ones
    state_cache.clear()
    # A guest player's miss: her session, a spectator's six and the words between
    # the two (a mute, the messages); her hit, the session and the stamp. (Players
    # with accounts add their vacations, read once for the state and its clock.)
    miss = count_queries(alice.client, state_url(room))
    hit = count_queries(alice.client, state_url(room))
    assert (miss, hit) == (9, 2)


def test_a_wait_the_room_has_moved_past_reads_the_pulse_then_the_stamp_alone(
    table, room, carol, django_assert_num_queries
):
    get(carol, room)  # computed and kept
    behind = current_match(room).version - 1
    # The room's pulse says it moved; the answer is the cache's, by the stamp:
    # the room is never loaded whole, before the wait or after it.
    with django_assert_num_queries(2):
        response = carol.client.get(state_url(room), {"wait": behind})
    assert response.status_code == 200
    assert response.json()["version"] == behind + 1


def test_the_cache_off_answers_the_same(table, room, settings):
    cached = bodies(table, room)
    settings.MESA_STATE_CACHE = False
    assert bodies(table, room) == cached


# -- a failing cache ------------------------------------------------------------------


class Broken(Exception):
    pass


def broken(*args, **kwargs):
    raise Broken("connection refused")


@pytest.mark.parametrize("method", ["get", "set"])
def test_a_failing_cache_is_passed_by(table, room, alice, monkeypatch, caplog, method, settings):
    settings.MESA_STATE_LOCAL_ENTRIES = 0  # every request asks the failing cache
    state_cache._outage.reset()
    monkeypatch.setattr(caches[state_cache.ALIAS], method, broken)
    with caplog.at_level(logging.WARNING, logger="games.web.state_cache"):
        for _ in range(3):
            response = get(alice, room)
            assert response.status_code == 200
            assert response.content == fresh(alice, room)
    warnings = [r for r in caplog.records if r.name == "games.web.state_cache"]
    assert len(warnings) == 1  # once a minute, not once a request
    assert "Broken" in warnings[0].getMessage()
    assert state_cache._outage.failures >= 3  # each counted, one logged


# -- one snapshot ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the snapshot is PostgreSQL's")
def test_a_move_committed_while_the_state_is_read_is_not_half_in_it(
    table, room, alice, carol, monkeypatch
):
    """The state's reads are one snapshot: a move committed after the match was
    read and before its turns were is in neither (the board would otherwise show
    the old position beside the new history until the next move)."""
    from games.selectors import board

    version = current_match(room).version
    before = state_cache.compute(load_room(room.slug), None).body
    read_match = board.current_match

    def then_a_move(room_):
        match = read_match(room_)
        if match is not None and match.version == version:

            def move():
                try:
                    services.game_play(
                        seat=alice.seat, version=version, play=first_legal_play(room, 0)
                    )
                finally:
                    connection.close()

            mover = threading.Thread(target=move)
            mover.start()
            mover.join()
        return match

    monkeypatch.setattr(board, "current_match", then_a_move)
    torn = state_cache.compute(load_room(room.slug), None)
    assert current_match(room).version == version + 1  # the move did commit meanwhile
    assert torn.body == before


# -- one snapshot, as it opens: one read-only REPEATABLE READ transaction (that it
# is one view of the database is the test above). Outside a test's own
# transaction (transaction=True), where the production code opens it.


def _show(setting: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW {setting}")
        return str(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the snapshot is PostgreSQL's")
def test_the_snapshot_is_one_begin_and_the_connection_is_itself_again_after():
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries, state_cache.one_snapshot():
        assert (_show("transaction_isolation"), _show("transaction_read_only")) == (
            "repeatable read",
            "on",
        )
    # Django's log of the transaction around the two SHOWs: the isolation came with
    # psycopg's BEGIN (sent with the first SHOW), no SET TRANSACTION of its own.
    assert [q["sql"] for q in queries.captured_queries] == [
        "BEGIN",
        "SHOW transaction_isolation",
        "SHOW transaction_read_only",
        "COMMIT",
    ]
    raw = connection.connection
    assert (raw.isolation_level, raw.read_only) == (None, None)
    assert (_show("transaction_isolation"), _show("transaction_read_only")) == (
        "read committed",
        "off",
    )
    with pytest.raises(RuntimeError), state_cache.one_snapshot():
        _show("transaction_isolation")
        raise RuntimeError("a read that failed")
    assert (raw.isolation_level, raw.read_only) == (None, None)
    with transaction.atomic():  # a read-only BEGIN left behind would refuse this
        Game.objects.update(rolls_drawn=0)


def test_an_action_writes_its_room_once_and_answers_without_the_cache(
    room, alice, bob, monkeypatch
):
    """An action's round trips: the room's serial and last move in one UPDATE, and
    the answer computed from rows read after the commit, neither looked up nor kept
    (the move has just changed its key). It is the answer the cache then gives."""
    from django.test.utils import CaptureQueriesContext

    from tests.helpers import action_url, post_json, version_of

    bind(alice, room)

    def through_the_cache(*args):
        raise AssertionError("an action's answer went through the state cache")

    monkeypatch.setattr(state_cache, "_get", through_the_cache)
    monkeypatch.setattr(state_cache, "_set", through_the_cache)
    side = current_match(room).side_of(alice.seat)
    body = {"version": version_of(room), "play": first_legal_play(room, side)}
    with CaptureQueriesContext(connection) as queries:
        answer = post_json(alice.client, action_url(room, "play"), body)
    assert answer.status_code == 200
    assert answer.json()["version"] == version_of(room)
    writes = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "games_room"')]
    assert len(writes) == 1
    assert "state_serial" in writes[0] and "last_move_at" in writes[0]
    monkeypatch.undo()
    again = alice.client.get(state_url(room), HTTP_IF_NONE_MATCH=answer["ETag"])
    assert again.status_code == 304
