"""What the templates need to draw a room: the state dict, shaped for the page.

Nothing here decides a rule of the game or queries the database: the state
comes from games.selectors, the viewer's seat from games.web.seats.
"""

from collections.abc import Mapping
from typing import NotRequired, TypedDict

from django.forms import BoundField, Form
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from games.bots import CHARACTERS, Character
from games.engine import Position, format_play, legal_plays
from games.lib import clock
from games.models import Room, Seat
from games.selectors.archive import PastMatch
from games.selectors.board import MatchView, RoomState
from games.selectors.history import describe_turn
from games.web.seats import free_seat_number, session_token

# --- the room page -------------------------------------------------------------

CHECKER_STYLES = ("caps", "tyres")  # side 0 plays brass bottle caps, side 1 small tyres
SHOWN_CHECKERS = 5  # a point draws at most this many checkers; the count says the rest

Context = dict[str, object]


class Owner(TypedDict):
    """Whose checkers a stack is, for the board and its labels."""

    side: int
    style: str
    name: str
    is_you: bool


class Stack(TypedDict):
    """A point, the bar or a tray as the form board draws it."""

    number: int | None
    count: int
    owner: Owner | None
    shown: range
    overflow: bool


class PlayerEntry(TypedDict):
    """One seat in the players' panel (players() says what each key means)."""

    seat: int
    nickname: str
    is_you: bool
    is_bot: bool
    side: int | None
    style: str | None
    pips: NotRequired[int]
    score: NotRequired[int]
    on_turn: NotRequired[bool]
    owns_cube: NotRequired[bool]
    away_until: str | None  # the end of the seat's vacation (the table only sees it)


def bot_card(room: Room) -> dict[str, str] | None:
    """The computer player's strength and style, translated: a person should know who
    they face. None when both seats are people."""
    character = CHARACTERS.get(room.bot or "")
    if character is None:
        return None
    return {
        "name": character.name,
        "label": gettext(character.label),
        "style": gettext(character.style),
    }


def room_context(request: HttpRequest, room: Room, seat: Seat | None, state: RoomState) -> Context:
    """Everything templates/games/room.html needs, from selectors.room_state."""
    match = state["match"]
    token = session_token(request, room) if seat is not None else None
    seated = players(state)
    context: Context = {
        "now": clock.now(),
        "room": room,
        "state": state,
        "seat": seat,
        "match": match,
        "is_spectator": seat is None,
        "invite_url": request.build_absolute_uri(reverse("games:room", args=[room.slug])),
        # To watch, never to sit: the invitation offers the free seat to whoever opens it.
        "watch_url": request.build_absolute_uri(reverse("games:watch", args=[room.slug])),
        # Only the holder sees their private link, rebuilt from their own session.
        "seat_url": (
            request.build_absolute_uri(reverse("games:seat_link", args=[room.slug, token]))
            if token
            else None
        ),
        "players": seated,
        "bot": bot_card(room),
        "waiting_for_rival": free_seat_number(room) is not None,
        "room_config": {
            "stateUrl": reverse("games:api_state", args=[room.slug]),
            "version": state["version"],
        },
    }
    if match is not None:
        allowed = set(match["allowed"])
        context.update(
            board=board_rows(state),
            allowed=allowed,
            history=history_lines(state),
            games=match["games"],
            play_choices=play_choices(match) if "play" in allowed else [],
            turn_player=next((p for p in seated if p["seat"] == match["turn_seat"]), None),
            conditional=conditional_panel(match, seated),
        )
    return context


class AnswerChoice(TypedDict):
    value: str  # "" asks the player when the double comes
    label: str
    checked: bool


class WrittenPlay(TypedDict):
    dice: str  # "6-5"
    line: str  # "Si sacas 6-5: 13/2 13/7"


class ConditionalPanel(TypedDict):
    """What the form-based board shows of the viewer's written answer and plays."""

    may_answer: bool
    answer_legend: str
    answers: list[AnswerChoice]
    answer: str | None  # the label of the answer written, None when none is
    may_plays: bool
    plays_intro: str
    plays: list[WrittenPlay]
    may_greedy: bool
    rolls: list[str]


# The words of the interactive board's panel (templates/games/_board_strings.html),
# shared so that both boards say the same; the JS texts name with {name}.
_ANSWER_LABELS = {
    "": gettext_noop("Pregúntame"),
    "take": gettext_noop("Acepto"),
    "drop": gettext_noop("Rechazo"),
    "beaver": gettext_noop("Acepto y redoblo (castor)"),
}


def conditional_panel(match: MatchView, seated: list[PlayerEntry]) -> ConditionalPanel | None:
    """The viewer's own written notes and what they may write now; None when nothing shows."""
    written = match["conditional"]
    if written is None:
        return None
    plays = written["plays"] or []
    if not (written["may_answer"] or written["may_plays"] or plays):
        return None
    name = next((p["nickname"] for p in seated if not p["is_you"]), "")
    values = ["", "take", "drop"] + (["beaver"] if written["may_beaver"] else [])
    current = written["answer"] or ""
    return {
        "may_answer": written["may_answer"],
        "answer_legend": gettext("Si {name} te dobla en su próximo turno:").format(name=name),
        "answers": [
            {"value": v, "label": gettext(_ANSWER_LABELS[v]), "checked": v == current}
            for v in values
        ],
        "answer": gettext(_ANSWER_LABELS[current]) if current else None,
        "may_plays": written["may_plays"],
        "plays_intro": gettext(
            "{name} ya no puede cambiar tu próxima tirada. Deja escrita tu jugada: "
            "la mesa tirará por ti y la jugará."
        ).format(name=name),
        "plays": [
            {
                "dice": f"{p['dice'][0]}-{p['dice'][1]}",
                "line": gettext("Si sacas {dice}: {play}").format(
                    dice=f"{p['dice'][0]}-{p['dice'][1]}",
                    play=p["notation"] or gettext("no se puede mover"),
                ),
            }
            for p in plays
        ],
        "may_greedy": written["may_greedy"],
        "rolls": [f"{high}-{low}" for high in range(6, 0, -1) for low in range(high, 0, -1)],
    }


def players(state: RoomState) -> list[PlayerEntry]:
    """One entry per seat: name, side, checkers, pips, score, whether on turn."""
    match = state["match"]
    result: list[PlayerEntry] = []
    for seat in state["seats"]:
        side = seat["side"]
        entry: PlayerEntry = {
            "seat": seat["number"],
            "nickname": seat["nickname"],
            "is_you": seat["is_you"],
            "is_bot": seat["is_bot"],
            "side": side,
            "style": CHECKER_STYLES[side] if side is not None else None,
            "away_until": seat.get("away_until"),  # their vacation (shown to the table only)
        }
        if match is not None and side is not None:
            entry.update(
                {
                    "pips": match["pips"][side],
                    "score": match["score"][side],
                    "on_turn": match["turn"] == side,
                    "owns_cube": match["cube"]["owner"] == side,
                }
            )
        result.append(entry)
    # The viewer's own seat first, so "you" read the panel from the top.
    result.sort(key=lambda entry: (not entry["is_you"], entry["seat"]))
    return result


def board_rows(state: RoomState) -> Context:
    """The 24 points, the bar and the trays, laid out from the viewing side.

    Top row: points 13..24 left to right; bottom row: 12..1, so the viewer's home
    board sits bottom right, as on a real table seen from your chair.
    """
    match = state["match"]
    assert match is not None, "a board is drawn for a match"
    position = match["position"]
    side = position["side"]
    me, them = position["me"], position["them"]
    names = {seat["side"]: seat["nickname"] for seat in state["seats"] if seat["side"] is not None}
    viewer_is_player = state["viewer"]["side"] is not None
    mine = _owner(side, names, viewer_is_player)
    theirs = _owner(1 - side, names, viewer_is_player=False)

    def point(number: int) -> Stack:
        if me[number]:
            return _stack(number, me[number], mine)
        if them[25 - number]:
            return _stack(number, them[25 - number], theirs)
        return _stack(number, 0, None)

    return {
        "top": [point(n) for n in range(13, 19)],
        "top_right": [point(n) for n in range(19, 25)],
        "bottom": [point(n) for n in range(12, 6, -1)],
        "bottom_right": [point(n) for n in range(6, 0, -1)],
        "bar": {"mine": _stack(None, me[25], mine), "theirs": _stack(None, them[25], theirs)},
        "off": {"mine": _stack(None, me[0], mine), "theirs": _stack(None, them[0], theirs)},
        "mine": mine,
        "theirs": theirs,
    }


def _owner(side: int, names: dict[int, str], viewer_is_player: bool) -> Owner:
    return {
        "side": side,
        "style": CHECKER_STYLES[side],
        "name": names.get(side, ""),
        "is_you": viewer_is_player,
    }


def _stack(number: int | None, count: int, owner: Owner | None) -> Stack:
    return {
        "number": number,
        "count": count,
        "owner": owner,
        "shown": range(min(count, SHOWN_CHECKERS)),
        "overflow": count > SHOWN_CHECKERS,
    }


def play_choices(match: MatchView) -> list[tuple[str, str]]:
    """The legal plays for the dice on the table: (form value, notation) pairs.

    The engine lists them; this only writes each one for a <select>.
    """
    position = Position(me=tuple(match["position"]["me"]), them=tuple(match["position"]["them"]))
    dice = match["dice"]
    if dice is None:  # "play" is allowed only with the dice on the table
        return []
    plays = legal_plays(position, tuple(dice))
    # Listed like a player reads them: the furthest-back checker first.
    plays.sort(key=lambda play: sorted(((-src, -dst) for src, dst in play)))
    return [
        (" ".join(f"{src}-{dst}" for src, dst in play), format_play(position, play))
        for play in plays
    ]


def history_lines(state: RoomState | PastMatch) -> list[Context]:
    """The move history grouped by game, each line a sentence in the page's language.

    The form board writes one sentence per turn; selectors marked the opening
    rolls (games.selectors.history.sheet_lines), which read "para empezar" here.
    """
    match = state["match"]
    if match is None:
        return []
    names = {seat["side"]: seat["nickname"] for seat in state["seats"] if seat["side"] is not None}
    games: dict[int, list[Context]] = {}
    for turn in match["history"]:
        name = names.get(turn["side"], "?")
        text = describe_turn(turn, name, opening=turn.get("opening", False), names=names)
        games.setdefault(turn["game"], []).append({"turn": turn, "text": text})
    results = {game["number"]: game.get("result") for game in match["games"]}
    return [
        {"number": number, "turns": turns, "result": results.get(number)}
        for number, turns in sorted(games.items())
    ]


def opponent_radios(form: Form, characters: Mapping[str, Character]) -> Context:
    """The home form's opponent radios: the person by link, then each computer player
    with its strength and style (Spanish source text, translated here)."""
    person: object = None
    bots: list[Context] = []
    field = form["opponent"]
    assert isinstance(field, BoundField)
    for radio in field:
        character = characters.get(radio.data["value"])
        if character is None:
            person = radio
        else:
            bots.append(
                {
                    "radio": radio,
                    "name": character.name,
                    "label": gettext(character.label),
                    "style": gettext(character.style),
                }
            )
    return {"person": person, "bots": bots}
