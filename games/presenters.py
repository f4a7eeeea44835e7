"""Who is looking at a room, and what the templates need to draw it.

A browser holds a seat through its session: the private seat link stores the
seat's token there (the database keeps only its hash). A logged-in owner holds
their seats on any device. Everybody else is a spectator. Nothing here decides
a rule of the game; it only reads and arranges.
"""

import re

from django.conf import settings
from django.db.models import Prefetch

from games import clock
from games.errors import NotFound
from games.models import ROOM_SLUG_PATTERN, Room, Seat

SESSION_SEATS = "mesa_seats"  # {room slug: seat token}


def load_room(slug: str) -> Room:
    """The room with its two seats, in two queries; NotFound (404) otherwise."""
    if not isinstance(slug, str) or not re.fullmatch(ROOM_SLUG_PATTERN, slug):
        raise NotFound("not_found", "not a room slug")  # never sent to the database
    try:
        return Room.objects.prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))
        ).get(slug=slug)
    except Room.DoesNotExist:
        raise NotFound("not_found", f"no room {slug!r}") from None


def session_token(request, room: Room) -> str | None:
    token = request.session.get(SESSION_SEATS, {}).get(room.slug)
    return token if isinstance(token, str) else None


def session_tokens(request) -> dict[str, str]:
    """{room slug: seat token} this browser holds (none on a request without a session)."""
    seats = getattr(request, "session", {}).get(SESSION_SEATS, {})
    return {slug: token for slug, token in seats.items() if isinstance(token, str)}


def remember_seat(request, room: Room, token: str) -> None:
    seats = dict(request.session.get(SESSION_SEATS, {}))
    seats.pop(room.slug, None)  # re-remembered: now the newest
    seats[room.slug] = token
    # A bounded list: past the limit the oldest seats drop out of this browser
    # (their private links and an account still hold them).
    for slug in list(seats)[: max(0, len(seats) - settings.MESA_SESSION_SEATS_MAX)]:
        del seats[slug]
    request.session[SESSION_SEATS] = seats
    # A new privilege, like a login: a fresh session key, so a session cookie
    # planted by someone else never ends up holding the seat.
    request.session.cycle_key()


def seat_for_token(room: Room, token: str) -> Seat | None:
    """The seat of this room whose secret is `token` (compared in constant time)."""
    for seat in room.seats.all():
        if seat.check_token(token):
            return seat
    return None


def viewer_seat(request, room: Room) -> Seat | None:
    """The seat this request may act for, or None for a spectator."""
    token = session_token(request, room)
    if token:
        seat = seat_for_token(room, token)
        if seat is not None:
            return seat
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        for seat in room.seats.all():
            if seat.user_id == user.pk:
                return seat
    return None


def free_seat_number(room: Room) -> int | None:
    """The number of the empty seat a guest would take, if the room is still open."""
    if room.bot or room.status != Room.Status.WAITING:
        return None
    taken = {seat.number for seat in room.seats.all()}
    free = [number for number in (1, 2) if number not in taken]
    return free[0] if free else None


def session_seats(request) -> list[Seat]:
    """Every seat this browser holds (by its link's token) or this account owns.

    The session keeps {room slug: token}, and a token may be the seat's own or
    the one its emails carry (Seat.check_token knows both), so seats are found
    by room and checked one by one rather than looked up by hash.
    """
    tokens = session_tokens(request)
    seats = {
        seat.pk: seat
        for seat in Seat.objects.filter(room__slug__in=tokens).select_related("room")
        if seat.check_token(tokens[seat.room.slug])
    }
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        seats.update((seat.pk, seat) for seat in Seat.objects.filter(user=user))
    return list(seats.values())


# --- the room page -------------------------------------------------------------

CHECKER_STYLES = ("caps", "tyres")  # side 0 plays brass bottle caps, side 1 small tyres
SHOWN_CHECKERS = 5  # a point draws at most this many checkers; the count says the rest


def bot_card(room: Room) -> dict | None:
    """The computer player's strength and style, translated: a person should know who
    they face. None when both seats are people."""
    from django.utils.translation import gettext

    from games.bots import CHARACTERS

    character = CHARACTERS.get(room.bot or "")
    if character is None:
        return None
    return {
        "name": character.name,
        "label": gettext(character.label),
        "style": gettext(character.style),
    }


def room_context(request, room: Room, seat: Seat | None, state: dict) -> dict:
    """Everything templates/games/room.html needs, from selectors.room_state."""
    from django.urls import reverse

    match = state["match"]
    token = session_token(request, room) if seat is not None else None
    context = {
        "now": clock.now(),
        "room": room,
        "state": state,
        "seat": seat,
        "match": match,
        "is_spectator": seat is None,
        "invite_url": request.build_absolute_uri(reverse("games:room", args=[room.slug])),
        # Only the holder sees their private link, rebuilt from their own session.
        "seat_url": (
            request.build_absolute_uri(reverse("games:seat_link", args=[room.slug, token]))
            if token
            else None
        ),
        "players": players(state),
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
            turn_player=next(
                (p for p in context["players"] if p["seat"] == match["turn_seat"]), None
            ),
        )
    return context


def players(state: dict) -> list[dict]:
    """One entry per seat: name, side, checkers, pips, score, whether on turn."""
    match = state["match"]
    result = []
    for seat in state["seats"]:
        side = seat["side"]
        entry = {
            "seat": seat["number"],
            "nickname": seat["nickname"],
            "is_you": seat["is_you"],
            "is_bot": seat["is_bot"],
            "side": side,
            "style": CHECKER_STYLES[side] if side is not None else None,
        }
        if match is not None and side is not None:
            entry.update(
                pips=match["pips"][side],
                score=match["score"][side],
                on_turn=match["turn"] == side,
                owns_cube=match["cube"]["owner"] == side,
            )
        result.append(entry)
    # The viewer's own seat first, so "you" read the panel from the top.
    result.sort(key=lambda entry: (not entry["is_you"], entry["seat"]))
    return result


def board_rows(state: dict) -> dict:
    """The 24 points, the bar and the trays, laid out from the viewing side.

    Top row: points 13..24 left to right; bottom row: 12..1, so the viewer's home
    board sits bottom right, as on a real table seen from your chair.
    """
    match = state["match"]
    position = match["position"]
    side = position["side"]
    me, them = position["me"], position["them"]
    names = {seat["side"]: seat["nickname"] for seat in state["seats"]}
    viewer_is_player = state["viewer"]["side"] is not None
    mine = _owner(side, names, viewer_is_player)
    theirs = _owner(1 - side, names, viewer_is_player=False)

    def point(number):
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


def _owner(side: int, names: dict, viewer_is_player: bool) -> dict:
    return {
        "side": side,
        "style": CHECKER_STYLES[side],
        "name": names.get(side, ""),
        "is_you": viewer_is_player,
    }


def _stack(number, count, owner) -> dict:
    return {
        "number": number,
        "count": count,
        "owner": owner,
        "shown": range(min(count, SHOWN_CHECKERS)),
        "overflow": count > SHOWN_CHECKERS,
    }


def play_choices(match: dict) -> list[tuple[str, str]]:
    """The legal plays for the dice on the table: (form value, notation) pairs.

    The engine lists them; this only writes each one for a <select>.
    """
    from games.engine import Position, format_play, legal_plays

    position = Position(me=tuple(match["position"]["me"]), them=tuple(match["position"]["them"]))
    plays = legal_plays(position, tuple(match["dice"]))
    # Listed like a player reads them: the furthest-back checker first.
    plays.sort(key=lambda play: sorted(((-src, -dst) for src, dst in play)))
    return [
        (" ".join(f"{src}-{dst}" for src, dst in play), format_play(position, play))
        for play in plays
    ]


def history_lines(state: dict) -> list[dict]:
    """The move history grouped by game, each line a sentence in the page's language."""
    from games.templatetags.mesa import describe_turn

    match = state["match"]
    names = {seat["side"]: seat["nickname"] for seat in state["seats"]}
    games: dict[int, list] = {}
    opening = {}  # game number -> still in its opening roll (ties roll again)
    for turn in match["history"]:
        number = turn["game"]
        is_opening = opening.setdefault(number, True) and turn["kind"] == "roll"
        tie = is_opening and turn["dice"][0] == turn["dice"][1]
        if turn["kind"] != "next_game" and not tie:
            opening[number] = False
        text = describe_turn(turn, names.get(turn["side"], "?"), opening=is_opening, names=names)
        games.setdefault(number, []).append({"turn": turn, "text": text})
    results = {game["number"]: game.get("result") for game in match["games"]}
    return [
        {"number": number, "turns": turns, "result": results.get(number)}
        for number, turns in sorted(games.items())
    ]


def my_room_entries(seats) -> list[dict]:
    from games.selectors import rooms_for_seats

    return rooms_for_seats(seats)


# --- the HTML forms, read into the JSON API's body shape ---------------------------


def _number_or_text(value: str):
    from games.services import int_from_text

    value = (value or "").strip()
    number = int_from_text(value)
    return value if number is None else number


def form_body(request, room: Room, seat: Seat | None, action: str) -> dict:
    """Read a board form into the body the API takes, so both share one parser.

    A typed play is read by the engine's notation parser against the dice on
    the table; a chosen one comes as "24-18 13-10".
    """
    post = request.POST
    body = {"version": _number_or_text(post.get("version"))}
    if "value" in post:
        body["value"] = _number_or_text(post.get("value"))
    if action == "play":
        choice, typed = post.get("choice", "").strip(), post.get("typed", "").strip()
        if typed:
            body["play"] = _typed_play(room, seat, typed)
        elif choice:
            body["play"] = [
                [_number_or_text(point) for point in step.split("-")] for step in choice.split()
            ]
        else:
            body["play"] = None
    return body


def _typed_play(room: Room, seat: Seat | None, text: str):
    from games.api import RequestError
    from games.engine import EngineError, InvalidInput, parse_play
    from games.engine.match import MatchState
    from games.errors import from_engine
    from games.selectors import current_match

    match = current_match(room)
    if seat is None or match is None:
        return None  # the service refuses with the right status
    state = MatchState.from_json(match.state)
    if state.dice is None:
        return []
    try:
        play = parse_play(state.position_for(match.side_of(seat)), state.dice, text)
    except InvalidInput as error:  # notation it cannot read: the API's own sentence
        raise RequestError(error.code, error.reason) from None
    except EngineError as error:
        raise from_engine(error) from None
    return [list(step) for step in play]


def step_options(room: Room, seat: Seat, taken: list[tuple[int, int]]) -> dict:
    """The legal next steps for the seat on turn, after the steps already taken.

    The interactive board marks only what this returns; the engine decides it.
    """
    from games.engine import legal_steps
    from games.engine.match import MatchState, Phase
    from games.selectors import current_match

    match = current_match(room)
    if match is None:
        return {"version": 0, "options": []}
    state = MatchState.from_json(match.state)
    side = match.side_of(seat)
    if state.phase is not Phase.MOVE or state.turn != side:
        return {"version": match.version, "options": []}
    options = legal_steps(state.position_for(side), state.dice, taken)
    return {
        "version": match.version,
        "taken": [list(step) for step in taken],
        "options": [
            {
                "from": option.src,
                "to": option.dst,
                "dice": list(option.dice),
                "label": option.label,
                "path": [list(step) for step in option.path],
                "hits": option.hits,
            }
            for option in options
        ],
    }


def opponent_radios(form, characters) -> dict:
    """The home form's opponent radios: the person by link, then each computer player
    with its strength and style (Spanish source text, translated here)."""
    from django.utils.translation import gettext

    person, bots = None, []
    for radio in form["opponent"]:
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
