"""Helpers for the games tests: read the current match, play turns, play a match out,
race calls on threads.

(The replay check that runs after every test lives in tests/conftest.py.)
"""

import threading

import pytest
from django.db import connection, connections
from django.urls import reverse

from games import services
from games.engine import legal_plays
from games.engine.match import MatchState, Phase
from games.models import Match


def page_urls(room) -> list[str]:
    """Every page a person reads, the room's own board included."""
    return [
        reverse("games:home"),
        reverse("games:rules"),
        reverse("games:my_rooms"),
        reverse("games:room", args=[room.slug]),
    ]


def current_match(room) -> Match:
    return Match.objects.filter(room=room).order_by("-number").first()


def state_of(room) -> MatchState:
    return MatchState.from_json(current_match(room).state)


def version_of(room) -> int:
    return current_match(room).version


def seat_on_turn(room, *personas):
    """The persona whose seat owes the next action."""
    match = current_match(room)
    return next(p for p in personas if p.seat.pk == match.turn_seat_id)


def first_legal_play(room, side) -> list[list[int]]:
    state = state_of(room)
    plays = legal_plays(state.position_for(side), state.dice)
    return [list(step) for step in plays[0]]


def play_out(room, *personas, take=True, limit=5000):
    """Play the current match to its end: roll, take, play the first legal play.

    A sesión libre is stopped after its first game. Returns the finished match.
    """
    for _ in range(limit):
        match = current_match(room)
        if match.status == Match.Status.FINISHED:
            return match
        state = MatchState.from_json(match.state)
        if state.phase is Phase.GAME_OVER:
            services.session_stop(seat=personas[0].seat, version=match.version)
            continue
        persona = seat_on_turn(room, *personas)
        side = match.side_of(persona.seat)
        if state.phase is Phase.ROLL:
            services.game_roll(seat=persona.seat, version=match.version)
        elif state.phase is Phase.DOUBLED:
            answer = services.game_take if take else services.game_drop
            answer(seat=persona.seat, version=match.version)
        elif state.phase is Phase.RESIGN_OFFERED:
            services.game_resign_decline(seat=persona.seat, version=match.version)
        else:
            services.game_play(
                seat=persona.seat, version=match.version, play=first_legal_play(room, side)
            )
    raise AssertionError("the match did not end")


def race(*calls):
    """Start every call at once on its own thread; return what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test checks
            outcomes[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def needs_postgresql(why: str) -> list:
    """The marks of a race test module: transactions that really commit, on PostgreSQL only."""
    return [
        pytest.mark.django_db(transaction=True),
        pytest.mark.skipif(
            connection.vendor != "postgresql",
            reason=f"needs PostgreSQL: {why} (run with DATABASE_URL=postgres://...)",
        ),
    ]
