"""What "Es tu turno" says, read from the record: each situation in both languages.

alice hosts, bob joins; the opening roll is scripted. Times come from the
`clock` fixture: Monday 2 March 2026, 09:00 UTC, so a turn passed then may be
played until Wednesday 4 March, 09:00 UTC.
"""

import pytest
from django.utils import translation

from games import services
from games.engine import Format, MatchRules
from games.mail.news import (
    BLOCKED,
    DOUBLED,
    FIRST_GAME,
    MOVED,
    NEW_GAME,
    REMATCH,
    RESIGN_DECLINED,
    RESIGN_OFFERED,
    TOOK,
    turn_news,
    zone_of,
)
from tests.helpers import current_match, version_of

pytestmark = pytest.mark.django_db

MATCH_TO_5 = MatchRules(format=Format.MATCH, length=5)


def seated(rules, dice, opening=(3, 1)):
    alice = services.room_create(rules=rules, nickname="alice")
    dice.push(opening)
    bob = services.room_join(room=alice.room, nickname="bob")
    alice.refresh_from_db()
    return alice, bob


def news(seat, zone=None):
    return turn_news(current_match(seat.room), seat, zone_name=zone)


def words(item, language):
    with translation.override(language):
        return {
            "subject": item.subject(),
            "sentence": item.sentence(),
            "to_do": item.to_do(),
            "score": item.score_line(),
            "deadline": item.deadline_line(),
        }


def test_a_played_move_is_told_in_notation_with_its_dice(clock, dice):
    alice, bob = seated(MatchRules(), dice)
    dice.push((6, 4))  # bob's roll, thrown by the table at once (no cube here)
    services.game_play(seat=alice, version=version_of(alice.room), play=[[8, 5], [6, 5]])
    item = news(bob)
    assert (item.kind, item.dice, item.play, item.my_dice) == (MOVED, "3-1", "8/5 6/5", "6-4")
    es = words(item, "es")
    assert es["subject"] == "Te toca contra alice en la partida simple"
    assert es["sentence"] == "alice jugó 3-1: 8/5 6/5."
    assert es["to_do"] == "La mesa ya tiró tus dados: te toca mover con 6-4."
    assert es["score"] is None  # a partida simple has no score
    en = words(item, "en")
    assert en["subject"] == "Your turn against alice in the single game"
    assert en["sentence"] == "alice played 3-1: 8/5 6/5."
    assert en["to_do"] == "The table already rolled your dice: your move with 6-4."


def test_a_double_to_answer_says_what_the_game_would_be_worth_and_the_score(clock, dice):
    alice, bob = seated(MATCH_TO_5, dice)
    services.game_play(seat=alice, version=version_of(alice.room), play=[[8, 5], [6, 5]])
    services.game_double(seat=bob, version=version_of(alice.room))
    item = news(alice)
    assert (item.kind, item.cube) == (DOUBLED, 2)
    es = words(item, "es")
    assert es["subject"] == "bob te dobla a 2 en el match a 5 puntos (tú 0, bob 0)"
    assert es["sentence"] == "bob te dobla: si aceptas, la partida pasa a valer 2."
    assert es["to_do"] == "Te toca decidir: aceptar el cubo o rechazarlo y perder esta partida."
    assert es["score"] == "Marcador: tú 0, bob 0, en un match a 5 puntos."
    en = words(item, "en")
    assert en["subject"] == "bob doubles you to 2 in the 5-point match (you 0, bob 0)"
    assert en["sentence"] == "bob doubles: if you take, the game is worth 2."
    assert en["score"] == "Score: you 0, bob 0, in a 5-point match."


def test_a_taken_double_and_a_declined_resignation_are_told_as_such(clock, dice):
    alice, bob = seated(MATCH_TO_5, dice)
    room = alice.room
    services.game_play(seat=alice, version=version_of(room), play=[[8, 5], [6, 5]])
    services.game_double(seat=bob, version=version_of(room))
    services.game_take(seat=alice, version=version_of(room))
    item = news(bob)
    assert (item.kind, item.cube) == (TOOK, 2)
    assert words(item, "es")["sentence"] == "alice aceptó tu cubo: la partida vale ahora 2."
    assert words(item, "en")["sentence"] == "alice took your cube: the game is now worth 2."
    assert item.my_dice  # bob may not redouble: the table rolled for him
    services.game_resign_offer(seat=bob, version=version_of(room), value=2)
    item = news(alice)
    assert (item.kind, item.resign_kind, item.resign_points) == (RESIGN_OFFERED, 2, 4)
    es = words(item, "es")
    assert es["sentence"] == "bob ofrece rendirse y darte 4 puntos (gammon)."
    assert es["subject"] == "bob ofrece rendirse en el match a 5 puntos (tú 0, bob 0)"
    assert es["to_do"] == "Te toca decidir: aceptar la rendición o seguir jugando."
    assert words(item, "en")["sentence"] == "bob offers to resign and give you 4 points (gammon)."
    services.game_resign_decline(seat=alice, version=version_of(room))
    item = news(bob)
    assert item.kind == RESIGN_DECLINED
    assert words(item, "es")["sentence"] == "alice rechazó tu rendición: la partida sigue."
    assert words(item, "en")["sentence"] == "alice declined your resignation: the game goes on."


def test_a_resignation_of_a_single_point_says_one_point(clock, dice):
    alice, bob = seated(MATCH_TO_5, dice)
    services.game_play(seat=alice, version=version_of(alice.room), play=[[8, 5], [6, 5]])
    services.game_resign_offer(seat=bob, version=version_of(alice.room), value=1)
    item = news(alice)
    assert words(item, "es")["sentence"] == (
        "bob ofrece rendirse y darte 1 punto (partida simple)."
    )
    assert (
        words(item, "en")["sentence"] == "bob offers to resign and give you 1 point (single game)."
    )


def test_a_roll_that_could_not_move_says_so(clock, dice):
    alice, bob = seated(MatchRules(), dice)
    # A closed board takes long to build: the record of a play that moved nothing
    # has an empty notation, so write alice's that way for the reading.
    services.game_play(seat=alice, version=version_of(alice.room), play=[[8, 5], [6, 5]])
    match = current_match(alice.room)
    last_play = match.games.get().turns.filter(kind="play").last()
    type(last_play).objects.filter(pk=last_play.pk).update(notation="")
    item = news(bob)
    assert (item.kind, item.dice) == (BLOCKED, "3-1")
    assert words(item, "es")["sentence"] == "alice sacó 3-1 y no pudo mover."
    assert words(item, "en")["sentence"] == "alice rolled 3-1 and could not move."
    type(last_play).objects.filter(pk=last_play.pk).update(notation="8/5 6/5")


def test_the_first_game_tells_the_opening_roll_high_die_first(clock, dice):
    alice, bob = seated(MatchRules(), dice, opening=(1, 5))  # bob's 5 beats alice's 1
    item = news(bob)
    assert (item.kind, item.opening) == (FIRST_GAME, (5, 1))
    es = words(item, "es")
    assert es["subject"] == "Empieza la partida 1 contra alice: la partida simple"
    assert es["sentence"] == (
        "Empieza la partida contra alice. Salida: tú sacas 5 y alice 1, así que empiezas tú "
        "con 5-1."
    )
    assert es["to_do"] == "Te toca mover."
    en = words(item, "en")
    assert en["sentence"] == (
        "The game against alice begins. Opening roll: you rolled 5 and alice 1, so you start "
        "with 5-1."
    )


def test_the_next_game_of_a_match_is_a_new_game_not_a_move(clock, dice):
    alice, bob = seated(MatchRules(format=Format.MATCH, length=3), dice)
    room = alice.room
    services.game_play(seat=alice, version=version_of(room), play=[[8, 5], [6, 5]])
    services.game_double(seat=bob, version=version_of(room))
    dice.push((2, 6))  # the second game's opening: bob's 6 starts
    services.game_drop(seat=alice, version=version_of(room))
    item = news(bob)
    assert (item.kind, item.game_number, item.opening, item.mine) == (NEW_GAME, 2, (6, 2), 1)
    es = words(item, "es")
    assert es["subject"] == "Empieza la partida 2 contra alice: el match a 3 puntos (tú 1, alice 0)"
    assert es["sentence"].startswith("Empieza la partida 2 contra alice. Salida: tú sacas 6")
    assert "jugó" not in es["sentence"]
    en = words(item, "en")
    assert en["subject"] == "Game 2 against alice begins: the 3-point match (you 1, alice 0)"


def test_a_rematch_with_only_the_opening_roll_played_says_the_rematch_began(clock, dice):
    # The reported bug: "alice ya jugó" when only the opening roll was on the table.
    alice, bob = seated(MatchRules(), dice)
    room = alice.room
    services.game_play(seat=alice, version=version_of(room), play=[[8, 5], [6, 5]])
    services.match_resign(seat=bob, version=version_of(room))
    services.rematch_offer(seat=alice)
    dice.push((2, 4))  # colours swap: alice is side 1 now and her 4 starts
    services.rematch_accept(seat=bob)
    match = current_match(room)
    starter = alice if match.turn_seat_id == alice.pk else bob
    item = news(starter)
    assert item.kind == REMATCH and item.match_number == 2
    es = words(item, "es")
    other = "bob" if starter == alice else "alice"
    assert es["subject"] == f"Empieza la revancha contra {other}: la partida simple"
    assert es["sentence"].startswith(f"Empieza la revancha contra {other}. Salida: tú sacas 4")
    assert words(item, "en")["sentence"].startswith(f"The rematch against {other} begins.")


def test_the_deadline_is_written_in_the_readers_time_zone_and_language(clock, dice):
    alice, bob = seated(MatchRules(), dice)
    services.game_play(seat=alice, version=version_of(alice.room), play=[[8, 5], [6, 5]])
    item = news(bob, zone="America/Argentina/Buenos_Aires")  # UTC-3
    assert item.deadline.hour == 6 and item.deadline.day == 4
    assert words(item, "es")["deadline"] == (
        "Tienes hasta el 4 de marzo de 2026 a las 06:00 (hora de "
        "America/Argentina/Buenos_Aires) para jugar; después alice podrá cerrar la partida "
        "por ausencia."
    )
    assert words(item, "en")["deadline"] == (
        "You have until March 4, 2026, 6 a.m. (America/Argentina/Buenos_Aires time) to play; "
        "after that alice may close the game for absence."
    )
    assert news(bob, zone="Not/AZone").zone == "UTC"
    assert str(zone_of(None)) == "UTC"
