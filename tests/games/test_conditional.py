"""What a player leaves written for the table to play, through the services and the API.

A written answer to the opponent's next double, written plays for a turn
the opponent cannot change, and forced plays made at once for who wants
them. Every test's match also replays from its Turn rows (autouse check).
"""

from datetime import timedelta

import pytest
from celery import current_app
from django.contrib.auth import get_user_model

from accounts.models import Profile
from games import selectors, services, tasks
from games.engine import Format, MatchRules
from games.lib.errors import BadInput, Conflict, IllegalMoveError
from games.models import FollowUp, Turn
from tests.helpers import Persona, action_url, bind, current_match, first_legal_play, post_json

MATCH5 = MatchRules(format=Format.MATCH, length=5)

# From the opening 3-1 (alice, side 0, starts), each side playing its first
# legal play: after these rolls alice has two checkers on the bar and 5-4 can
# only be played bar/21 bar/20.
TO_FORCED = [(2, 4), (3, 3), (5, 3), (5, 4)]
# After these, contact is broken: a race, with bob (side 1) the last to move.
TO_RACE = [(5, 5), (6, 5), (4, 4), (5, 5), (5, 5)]


def turns(room, **filters):
    return list(Turn.objects.filter(game__match=current_match(room), **filters).order_by("number"))


def play_first(room, persona):
    match = current_match(room)
    side = match.side_of(persona.seat)
    return services.game_play(
        seat=persona.seat, version=match.version, play=first_legal_play(room, side)
    )


# -- a written answer to the opponent's double ------------------------------------------


@pytest.fixture
def rules():
    return MATCH5


@pytest.fixture
def bob_to_roll(room, alice, bob, dice):
    """Alice played the opening 3-1; bob may double or roll."""
    play_first(room, alice)
    return current_match(room)


def test_a_written_take_is_played_in_the_same_transaction_as_the_double(
    room, alice, bob, dice, bob_to_roll
):
    version = bob_to_roll.version
    started = bob_to_roll.turn_started_at
    services.game_conditional_answer(seat=alice.seat, version=version, answer="take")
    match = current_match(room)
    # A private note: bob's clock and the version he saw do not move.
    assert match.version == version and match.turn_started_at == started

    dice.push((6, 2))
    match = services.game_double(seat=bob.seat, version=version)

    state = selectors.room_state(room, bob.seat)["match"]
    assert state["cube"] == {"value": 2, "owner": 0}
    # Bob may not redouble a cube alice holds: the table rolled for him at once.
    assert (state["phase"], state["turn"], state["dice"]) == ("move", 1, [6, 2])
    assert match.version == version + 1
    record = [(t.kind, t.side, t.automatic, t.reason) for t in turns(room)][-4:]
    assert record == [
        ("cond_answer", 0, False, "take"),
        ("double", 1, False, ""),
        ("take", 0, True, "conditional"),
        ("roll", 1, True, ""),
    ]


def test_the_opponent_never_learns_a_written_answer_before_it_is_played(
    room, alice, bob, bob_to_roll
):
    services.game_conditional_answer(seat=alice.seat, version=bob_to_roll.version, answer="drop")
    mine = selectors.room_state(room, alice.seat)["match"]
    theirs = selectors.room_state(room, bob.seat)["match"]
    spectator = selectors.room_state(room, None)["match"]
    assert mine["conditional"]["answer"] == "drop"
    assert theirs["conditional"]["answer"] is None  # bob's own notes: none
    assert spectator["conditional"] is None
    assert [h["kind"] for h in mine["history"]][-1] == "cond_answer"
    assert "cond_answer" not in [h["kind"] for h in theirs["history"] + spectator["history"]]
    assert "rechazar" in mine["history"][-1]["text"]


def test_a_written_pass_ends_the_game_when_the_double_comes(room, alice, bob, bob_to_roll):
    version = bob_to_roll.version
    services.game_conditional_answer(seat=alice.seat, version=version, answer="drop")
    services.game_double(seat=bob.seat, version=version)
    match = current_match(room)
    first = match.games.get(number=1)
    assert first.winner_side == 1 and first.points == 1
    drop = Turn.objects.get(game=first, kind="drop")
    assert drop.automatic and drop.reason == "conditional"
    state = selectors.room_state(room, bob.seat)["match"]
    assert any("como lo dejó escrito" in h["text"] for h in state["history"] if h["text"])


def test_the_last_answer_written_counts_and_a_cleared_one_asks_again(room, alice, bob, bob_to_roll):
    version = bob_to_roll.version
    for answer in ("take", "drop", None):
        services.game_conditional_answer(seat=alice.seat, version=version, answer=answer)
    assert selectors.room_state(room, alice.seat)["match"]["conditional"]["answer"] is None
    services.game_double(seat=bob.seat, version=version)
    state = selectors.room_state(room, alice.seat)["match"]
    assert state["phase"] == "doubled" and state["turn"] == 0
    assert {"take", "drop"} <= set(state["allowed"])


def test_an_answer_that_is_not_take_drop_or_beaver_writes_nothing(alice, bob_to_roll):
    before = Turn.objects.count()
    with pytest.raises(BadInput) as info:
        services.game_conditional_answer(seat=alice.seat, version=bob_to_roll.version, answer="x")
    assert info.value.code == "bad_answer" and Turn.objects.count() == before


def test_no_answer_can_be_written_once_the_opponent_has_rolled(room, alice, bob, bob_to_roll):
    match = services.game_roll(seat=bob.seat, version=bob_to_roll.version)
    with pytest.raises(Conflict) as info:
        services.game_conditional_answer(seat=alice.seat, version=match.version, answer="take")
    assert info.value.code == "no_double_ahead" and info.value.status == 409


def test_the_api_records_changes_and_clears_the_answer(room, alice, bob, bob_to_roll):
    bind(alice, room)
    url = action_url(room, "cond_answer")
    version = bob_to_roll.version
    answer = post_json(alice.client, url, {"version": version, "answer": "take"})
    assert answer.status_code == 200
    assert answer.json()["match"]["conditional"]["answer"] == "take"
    changed = post_json(alice.client, url, {"version": version, "answer": "drop"})
    assert changed.json()["match"]["conditional"]["answer"] == "drop"
    cleared = post_json(alice.client, url, {"version": version, "answer": None})
    assert cleared.json()["match"]["conditional"]["answer"] is None
    bad = post_json(alice.client, url, {"version": version, "answer": 3})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_answer"
    assert "castor" in bad.json()["error"]["message"]
    assert len(turns(room, kind="cond_answer")) == 3


# -- forced plays ---------------------------------------------------------------------------


def account_at_the_table(rules, dice, **profile):
    """alicia (an account, side 0) hosts and bob (a guest) joins; the opening 3-1 is hers."""
    user = get_user_model().objects.create_user("alicia", "alicia@example.com", "pw")
    if profile:
        Profile.objects.update_or_create(user=user, defaults=profile)
    alice = Persona("alice", seat=services.room_create(rules=rules, nickname="alicia", user=user))
    dice.push((3, 1))
    bob = Persona("bob", seat=services.room_join(room=alice.seat.room, nickname="bob"))
    return alice.seat.room, alice, bob


@pytest.mark.parametrize("rules", [MatchRules()])
def test_a_forced_play_is_played_at_once_for_an_account_by_default(rules, db, clock, dice):
    room, alice, bob = account_at_the_table(rules, dice)
    dice.push(*TO_FORCED)
    for persona in (alice, bob, alice, bob):
        play_first(room, persona)
    forced = turns(room, side=0, kind="play")[-1]
    assert (forced.notation, forced.automatic, forced.reason) == ("bar/21 bar/20", True, "forced")
    state = selectors.room_state(room, alice.seat)["match"]
    assert state["turn"] == 1  # bob's turn again
    assert any("bar/21 bar/20 (forzada)" in (h["text"] or "") for h in state["history"])


@pytest.mark.parametrize("rules", [MatchRules()])
def test_forced_plays_wait_for_a_player_who_turned_them_off(rules, db, clock, dice):
    room, alice, bob = account_at_the_table(rules, dice, forced_plays=False)
    dice.push(*TO_FORCED)
    for persona in (alice, bob, alice, bob):
        play_first(room, persona)
    state = selectors.room_state(room, alice.seat)["match"]
    assert (state["phase"], state["turn"], state["dice"]) == ("move", 0, [5, 4])


@pytest.mark.parametrize("rules", [MatchRules()])
def test_a_guest_plays_forced_moves_by_hand(rules, room, alice, bob, dice):
    dice.push(*TO_FORCED)
    for persona in (alice, bob, alice, bob):
        play_first(room, persona)
    state = selectors.room_state(room, alice.seat)["match"]
    assert (state["phase"], state["turn"], state["dice"]) == ("move", 0, [5, 4])


# -- written plays when the opponent cannot change them ------------------------------------


@pytest.fixture
def race_bob_just_moved(room, alice, bob, dice):
    """A partida simple: the table rolls for both; after bob's play contact is broken."""
    dice.push(*TO_RACE)
    for persona in (alice, bob, alice, bob, alice, bob):
        play_first(room, persona)
    return current_match(room)


@pytest.mark.parametrize("rules", [MatchRules()])
def test_written_plays_are_played_when_their_roll_comes(
    rules, room, alice, bob, dice, race_bob_just_moved
):
    mine = selectors.room_state(room, bob.seat)["match"]["conditional"]
    assert mine["may_plays"] and not mine["may_greedy"]
    version = race_bob_just_moved.version
    # Alice's roll is on the table already; bob writes his plays for two rolls.
    services.game_conditional_plays(
        seat=bob.seat,
        version=version,
        plays=[{"dice": [6, 5], "play": "11/5 8/3"}, {"dice": [1, 2], "play": [[11, 9], [9, 8]]}],
    )
    written = selectors.room_state(room, bob.seat)["match"]["conditional"]["plays"]
    assert [(p["dice"], p["notation"]) for p in written] == [([2, 1], "11/8"), ([6, 5], "11/5 8/3")]
    assert selectors.room_state(room, alice.seat)["match"]["conditional"]["plays"] is None
    dice.push((5, 6))
    play_first(room, alice)
    played = turns(room, side=1, kind="play")[-1]
    assert (played.automatic, played.reason) == (True, "conditional")
    assert sorted(map(tuple, played.steps)) == [(8, 3), (11, 5)]
    assert current_match(room).state["play_tables"] == [None, None]


@pytest.mark.parametrize("rules", [MatchRules()])
def test_plays_cannot_be_written_while_the_opponent_can_still_change_them(
    rules, room, alice, bob, dice
):
    with pytest.raises(IllegalMoveError) as info:
        services.game_conditional_plays(
            seat=bob.seat, version=current_match(room).version, plays=[]
        )
    assert info.value.code == "opponent_can_change"


@pytest.mark.parametrize("rules", [MatchRules()])
def test_the_greedy_bear_off_needs_every_checker_at_home(
    rules, room, alice, bob, race_bob_just_moved
):
    with pytest.raises(IllegalMoveError) as info:
        services.game_conditional_greedy(seat=bob.seat, version=race_bob_just_moved.version)
    assert info.value.code == "not_bearing_off"


@pytest.mark.parametrize("rules", [MatchRules()])
def test_a_written_play_in_notation_must_be_legal(rules, room, alice, bob, race_bob_just_moved):
    with pytest.raises(IllegalMoveError):
        services.game_conditional_plays(
            seat=bob.seat,
            version=race_bob_just_moved.version,
            plays=[{"dice": [6, 5], "play": "8/2 6/1 6/1"}],
        )
    assert turns(room, kind="cond_plays") == []


def test_the_writer_hears_once_by_email_that_the_answer_was_played(
    room, alice, bob, bob_to_roll, clock, mailoutbox
):
    version = bob_to_roll.version
    services.game_conditional_answer(seat=alice.seat, version=version, answer="take")
    clock.tick(timedelta(hours=3))  # alice left the board long ago
    services.game_double(seat=bob.seat, version=version)
    [take] = turns(room, kind="take")
    owed = FollowUp.objects.filter(task="games.tasks.answer_played_email")
    assert [row.args for row in owed] == [[take.pk]]

    assert tasks.answer_played_email(take.pk) == 1
    assert tasks.answer_played_email(take.pk) == 0  # a second delivery sends nothing
    [email] = mailoutbox
    assert email.to == ["alice@example.com"]
    assert email.subject == "bob dobló y la mesa respondió por ti"
    assert "Aceptaste, como lo dejaste escrito" in email.body and "cubo en 2" in email.body


def deliver_mail(clock):
    """Run every email the outbox owes, as a worker would once the turn email's pause passed."""
    clock.tick(timedelta(minutes=5))
    for row in FollowUp.objects.filter(task__endswith="_email").order_by("pk"):
        current_app.tasks[row.task](*row.args, **row.kwargs)
        row.delete()


def test_a_written_pass_that_hands_the_writer_the_next_game_is_told_in_one_email(
    room, alice, bob, bob_to_roll, clock, dice, mailoutbox
):
    version = bob_to_roll.version
    deliver_mail(clock)
    mailoutbox.clear()
    services.game_conditional_answer(seat=alice.seat, version=version, answer="drop")
    clock.tick(timedelta(hours=3))  # alice left the board long ago
    dice.push((5, 2))  # alice opens the second game
    match = services.game_double(seat=bob.seat, version=version)
    assert match.turn_seat == alice.seat
    assert not FollowUp.objects.filter(task="games.tasks.answer_played_email").exists()

    deliver_mail(clock)
    [email] = [message for message in mailoutbox if message.to == ["alice@example.com"]]
    assert email.subject.startswith("Empieza la partida 2 contra bob")
    assert email.body.startswith(
        "bob te dobló a 2 y rechazaste, como lo dejaste escrito. "
        "Empieza la partida 2 contra bob. Salida: tú sacas 5 y bob 2"
    )


@pytest.mark.parametrize("rules", [MatchRules(format=Format.MATCH, length=1)])
def test_a_written_pass_that_ends_the_match_is_told_by_the_end_email_alone(
    room, alice, bob, bob_to_roll, clock, mailoutbox
):
    version = bob_to_roll.version
    deliver_mail(clock)
    mailoutbox.clear()
    services.game_conditional_answer(seat=alice.seat, version=version, answer="drop")
    clock.tick(timedelta(hours=3))
    match = services.game_double(seat=bob.seat, version=version)
    assert match.status == match.Status.FINISHED

    deliver_mail(clock)
    [email] = [message for message in mailoutbox if message.to == ["alice@example.com"]]
    assert email.body.startswith(
        "bob te dobló a 2 y rechazaste, como lo dejaste escrito. bob ganó la partida."
    )


def test_after_the_answer_email_the_next_turn_email_does_not_repeat_the_double(
    room, alice, bob, bob_to_roll, clock, dice, mailoutbox
):
    version = bob_to_roll.version
    deliver_mail(clock)
    services.game_conditional_answer(seat=alice.seat, version=version, answer="take")
    clock.tick(timedelta(hours=3))
    dice.push((6, 2))
    services.game_double(seat=bob.seat, version=version)  # the table rolls for bob
    deliver_mail(clock)
    mailoutbox.clear()
    play_first(room, bob)  # the turn comes back to alice: an email of its own
    deliver_mail(clock)
    [email] = [message for message in mailoutbox if message.to == ["alice@example.com"]]
    assert email.body.startswith("bob jugó 6-2")


def test_a_written_take_then_the_doublers_forced_play_is_told_in_one_email(
    db, clock, dice, mailoutbox
):
    # alicia (an account: her forced plays are made at once) doubles; bob wrote a take.
    user = get_user_model().objects.create_user("alicia", "alicia@example.com", "pw")
    seat = services.room_create(rules=MATCH5, nickname="alicia", user=user)
    dice.push((3, 1))
    guest = services.room_join(
        room=seat.room, nickname="bob", email="bob@example.com", email_consent=True
    )
    room = seat.room
    alicia, bob = Persona("alicia", seat=seat), Persona("bob", seat=guest)
    play_first(room, alicia)
    for persona, roll in ((bob, (2, 4)), (alicia, (3, 3)), (bob, (5, 3))):
        dice.push(roll)
        services.game_roll(seat=persona.seat, version=current_match(room).version)
        play_first(room, persona)
    deliver_mail(clock)
    mailoutbox.clear()
    version = current_match(room).version
    services.game_conditional_answer(seat=guest, version=version, answer="take")
    clock.tick(timedelta(hours=3))
    dice.push((5, 4))  # alicia, on the bar, can only play bar/21 bar/20
    match = services.game_double(seat=seat, version=version)
    assert match.turn_seat == guest  # the take, her roll and her forced play, at once
    assert not FollowUp.objects.filter(task="games.tasks.answer_played_email").exists()

    deliver_mail(clock)
    [email] = [message for message in mailoutbox if message.to == ["bob@example.com"]]
    assert email.body.startswith(
        "alicia te dobló a 2 y aceptaste, como lo dejaste escrito. alicia jugó 5-4: bar/21 bar/20."
    )
