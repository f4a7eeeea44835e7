"""A word with each move: sent alone or with a turn, read by the two players only.

alice and bob sit at a partida simple (alice opened with 3-1 and must play);
carol watches. A message shows in the room and the JSON for the two players,
never for a spectator; it travels in "Es tu turno"; it is escaped in every
page and email; a player may mute the opponent for good.
"""

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from config.settings import base
from games import mail, selectors, services
from games.engine import MatchRules
from games.lib.errors import BadInput, Conflict, NotSeatHolder
from games.models import Message, Mute, Seat, Turn
from games.selectors import talk as talk_reads
from games.web import longpoll
from tests.games.test_challenges import make_player
from tests.helpers import action_url, bind, current_match, post_json, state_url, version_of

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('hola')</script>"


def message_url(room):
    return reverse("games:api_message", args=[room.slug])


def test_a_message_on_its_own_reaches_both_players_and_wakes_the_long_poll(room, alice, bob):
    before, beat = version_of(room), longpoll.pulse(room.slug)
    message = services.message_send(seat=bob.seat, text="  ¡Suerte!  ")
    assert message.text == "¡Suerte!" and not message.with_turn
    # The version stays (the turn email owed for it still goes); the pulse moves.
    assert version_of(room) == before and longpoll.pulse(room.slug) != beat
    for persona in (alice, bob):
        state = selectors.room_state(room, persona.seat)
        [line] = state["talk"]["messages"]
        assert (line["nickname"], line["text"], line["mine"]) == ("bob", "¡Suerte!", persona is bob)


def test_a_spectators_state_never_holds_a_message(room, alice, bob, carol):
    services.message_send(seat=alice.seat, text="solo para bob")
    state = selectors.room_state(room, None)
    assert "talk" not in state
    assert "solo para bob" not in json.dumps(state)
    response = carol.client.get(state_url(room))
    assert "talk" not in response.json() and "solo para bob" not in response.content.decode()
    page = carol.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert "solo para bob" not in page


def test_a_word_with_a_turn_is_written_with_the_play(room, alice, bob):
    bind(alice, room)
    response = post_json(
        alice.client,
        action_url(room, "play"),
        {"version": 1, "play": [[8, 5], [6, 5]], "message": "Ahí va"},
    )
    assert response.status_code == 200
    [line] = response.json()["talk"]["messages"]
    assert line["text"] == "Ahí va" and line["with_turn"] is True
    assert line["version"] == response.json()["version"] == 2


def test_a_refused_play_keeps_no_message_and_a_bad_message_plays_nothing(room, alice):
    bind(alice, room)
    refused = post_json(
        alice.client, action_url(room, "play"), {"version": 1, "play": [[24, 1]], "message": "hola"}
    )
    assert refused.status_code == 422 and Message.objects.count() == 0
    too_long = post_json(
        alice.client,
        action_url(room, "play"),
        {"version": 1, "play": [[8, 5], [6, 5]], "message": "x" * 201},
    )
    assert too_long.status_code == 400
    assert too_long.json()["error"]["code"] == "bad_message"
    assert version_of(room) == 1 and not Turn.objects.filter(kind="play").exists()


@pytest.mark.parametrize("text", ["", "   ", "x" * 201, "a\x00b", None, 12, ["hola"]])
def test_a_message_must_be_1_to_200_characters_of_text(room, alice, text):
    with pytest.raises(BadInput) as refused:
        services.message_send(seat=alice.seat, text=text)
    assert refused.value.code == "bad_message"
    assert Message.objects.count() == 0


def test_200_characters_is_still_a_message(room, alice):
    assert len(services.message_send(seat=alice.seat, text="y" * 200).text) == 200


def test_a_spectator_cannot_send_a_message(room, alice, carol):
    response = post_json(carol.client, message_url(room), {"text": "hola"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_seat_holder"
    with pytest.raises(NotSeatHolder):
        services.message_send(seat=None, text="hola")
    assert Message.objects.count() == 0


def test_the_json_endpoint_answers_the_new_state_in_the_players_language(room, alice):
    bind(alice, room)
    response = post_json(alice.client, message_url(room), {"text": "hola"})
    assert response.status_code == 201
    assert response.json()["talk"]["messages"][0]["text"] == "hola"
    bad = post_json(alice.client, message_url(room), {"text": ""}, HTTP_ACCEPT_LANGUAGE="en")
    assert bad.status_code == 400
    assert bad.json()["error"] == {
        "code": "bad_message",
        "message": "Write a message of 1 to 200 characters.",
    }


def test_nobody_writes_to_the_computer(db, clock, dice):
    seat = services.room_create(rules=MatchRules(), nickname="ana", bot="domador")
    with pytest.raises(Conflict) as refused:
        services.message_send(seat=seat, text="hola")
    assert refused.value.code == "bot_reads_nothing"
    assert "talk" not in selectors.room_state(seat.room, seat)


def consent(persona):
    Seat.objects.filter(pk=persona.seat.pk).update(email_consent=True)


def test_a_script_is_escaped_on_the_page_and_in_the_emails(room, alice, bob, mailoutbox, clock):
    consent(bob)
    bind(alice, room)
    bind(bob, room)
    post_json(
        alice.client,
        action_url(room, "play"),
        {"version": 1, "play": [[8, 5], [6, 5]], "message": SCRIPT},
    )
    page = bob.client.get(reverse("games:room", args=[room.slug])).content.decode()
    assert SCRIPT not in page
    assert "&lt;script&gt;alert(&#x27;hola&#x27;)&lt;/script&gt;" in page
    # The JSON carries the text as data; json_script on the page escapes "<" too.
    assert bob.client.get(state_url(room)).json()["talk"]["messages"][0]["text"] == SCRIPT
    clock.tick(timedelta(minutes=5))
    match = current_match(room)
    assert mail.send_your_turn(match_id=match.pk, version=match.version) == 1
    [email] = mailoutbox
    html = email.alternatives[0][0]
    assert SCRIPT not in html and "&lt;script&gt;" in html
    assert f"«{SCRIPT}»" in email.body  # the plain text part is not HTML: as written


def test_the_turn_email_carries_the_opponents_words_since_the_last_move(
    room, alice, bob, mailoutbox, clock
):
    consent(bob)
    services.message_send(seat=bob.seat, text="de antes")  # bob wrote before alice's play
    clock.tick(timedelta(minutes=1))
    services.game_play(seat=alice.seat, version=version_of(room), play=[[8, 5], [6, 5]])
    clock.tick(timedelta(minutes=1))
    services.message_send(seat=alice.seat, text="te toca, bob")
    clock.tick(timedelta(minutes=5))
    match = current_match(room)
    assert mail.send_your_turn(match_id=match.pk, version=match.version) == 1
    [email] = mailoutbox
    assert email.to == ["bob@example.com"]
    assert "«te toca, bob»" in email.body and "de antes" not in email.body


def test_muting_hides_the_opponents_words_for_good(room, alice, bob, mailoutbox, clock):
    services.message_send(seat=alice.seat, text="uno")
    services.messages_mute(seat=bob.seat)
    services.messages_mute(seat=bob.seat)  # twice is once
    assert Mute.objects.count() == 1
    services.message_send(seat=alice.seat, text="dos")
    services.message_send(seat=bob.seat, text="de bob")
    bobs = selectors.room_state(room, bob.seat)["talk"]
    assert bobs["muted"] is True
    assert [line["text"] for line in bobs["messages"]] == ["de bob"]
    alices = selectors.room_state(room, alice.seat)["talk"]
    assert [line["text"] for line in alices["messages"]] == ["uno", "dos", "de bob"]
    assert alices["muted"] is False
    match = current_match(room)
    assert talk_reads.messages_for_email(bob.seat, match) == []


def test_between_accounts_a_mute_holds_in_every_room_they_share(db, clock, dice):
    ana, beto = make_player("ana"), make_player("beto")
    first = services.challenge_accept(
        challenge=services.challenge_post(author=ana, rules=MatchRules()), user=beto
    )
    services.messages_mute(seat=first)
    second = services.challenge_accept(
        challenge=services.challenge_post(author=ana, rules=MatchRules()), user=beto
    )
    anas_seat = second.room.seats.get(number=1)
    services.message_send(seat=anas_seat, text="otra vez yo")
    state = selectors.room_state(second.room, second)
    assert state["talk"]["muted"] is True and state["talk"]["messages"] == []


def test_the_page_form_sends_a_message_and_mutes(room, alice, bob):
    bind(bob, room)
    sent = bob.client.post(reverse("games:message", args=[room.slug]), {"text": "buenas"})
    assert sent.status_code == 302
    assert Message.objects.get().text == "buenas"
    page = alice.client.get(reverse("games:room", args=[room.slug]))
    assert "buenas" not in page.content.decode()  # alice's browser holds no seat yet
    bind(alice, room)
    assert "buenas" in alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    muted = alice.client.post(reverse("games:mute", args=[room.slug]))
    assert muted.status_code == 302
    assert (
        "buenas" not in alice.client.get(reverse("games:room", args=[room.slug])).content.decode()
    )


@override_settings(
    MESA_RATE_LIMITS={
        **base.MESA_RATE_LIMITS,
        "message": {"address": (100, 600), "session": (2, 600)},
    }
)
def test_messages_on_their_own_are_rate_limited(room, alice):
    cache.clear()
    bind(alice, room)
    codes = [
        post_json(alice.client, message_url(room), {"text": "hola"}).status_code for _ in range(3)
    ]
    assert codes == [201, 201, 429]
    assert Message.objects.count() == 2
    cache.clear()
