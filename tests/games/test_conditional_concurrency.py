"""A written answer racing with the opponent's double, on a real PostgreSQL.

Each thread has its own connection and transaction. Whichever takes the
Match row lock first, the story is one of two: the answer was written and
the double found it (taken in the double's own transaction), or the double
came first and the late answer was refused, leaving the double to the
player. Never a double waiting with an answer written beside it, and the
note never makes the doubler's version stale.
"""

from collections import Counter

import pytest

from games import services
from games.engine import Format, MatchRules
from games.lib.errors import Conflict
from games.models import Turn
from tests.helpers import current_match, first_legal_play, needs_postgresql, race, when_published

pytestmark = needs_postgresql("SQLite locks the whole database, not the row")

ROUNDS = 8


@pytest.fixture(autouse=True)
def no_tasks(monkeypatch):
    # The transactions commit for real here: keep their follow-up off the broker.
    from games import tasks

    when_published(monkeypatch, tasks.turn_email, lambda *args: None)
    when_published(monkeypatch, tasks.bot_turn, lambda *args: None)


def bob_to_roll(dice):
    rules = MatchRules(format=Format.MATCH, length=5)
    alice = services.room_create(rules=rules, nickname="alice")
    dice.push((3, 1))
    bob = services.room_join(room=alice.room, nickname="bob")
    room = alice.room
    match = current_match(room)
    services.game_play(seat=alice, version=match.version, play=first_legal_play(room, 0))
    return room, alice, bob


def test_an_answer_written_while_the_opponent_doubles_tells_one_story(clock, dice):
    stories = Counter()
    for _ in range(ROUNDS):
        room, alice, bob = bob_to_roll(dice)
        version = current_match(room).version
        dice.push((6, 2))
        answered, doubled = race(
            lambda a=alice, v=version: services.game_conditional_answer(
                seat=a, version=v, answer="take"
            ),
            lambda b=bob, v=version: services.game_double(seat=b, version=v),
        )
        assert not isinstance(doubled, Exception), doubled  # the note never made it stale
        match = current_match(room)
        kinds = [
            (t.kind, t.automatic) for t in Turn.objects.filter(game__match=match).order_by("number")
        ][2:]  # after the opening roll and alice's play
        if isinstance(answered, Exception):
            # The double moved the version; and no answer can be written to a double made.
            assert isinstance(answered, Conflict) and answered.status == 409
            assert kinds == [("double", False)]
            assert match.state["phase"] == "doubled" and match.state["cube_answers"] == [None, None]
            stories["double first"] += 1
        else:
            assert kinds == [
                ("cond_answer", False),
                ("double", False),
                ("take", True),
                ("roll", True),
            ]
            assert match.state["phase"] == "move" and match.state["cube_owner"] == 0
            stories["answer first"] += 1
    assert sum(stories.values()) == ROUNDS
    print(dict(stories))
