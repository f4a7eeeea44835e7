"""The JSON API: a room's state and one POST endpoint per action.

Every endpoint answers JSON. Errors look like
{"error": {"code": "stale_version", "message": "<in the request's language>"}}
with 400 (malformed input), 403 (not the seat's holder), 404, 405, 409 (stale
version, out of turn, finished), 413 (too long), 422 (the rules say no) or 429
(games.web.throttle). ServiceError is turned into a response in one place,
`json_endpoint`; whatever fails outside an endpoint is answered in JSON by
games.web.http_errors. The endpoints only parse
and call a service; the services and the engine decide. docs/API.md is the
reference for clients.
"""

import json
from collections.abc import Callable
from functools import wraps

from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import RawPostDataException
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.csrf import csrf_protect

from games import selectors, services
from games.engine import EngineError
from games.lib.errors import (
    BadInput,
    Conflict,
    NotSeatHolder,
    RequestError,
    ServiceError,
    from_engine,
    public_message,
)
from games.models import Seat
from games.services.cleaning import int_from_text
from games.services.rooms import PlayerDetails
from games.web import etags, live_pass, longpoll, state_cache
from games.web.action_requests import ACTION_SPECS, Body, perform
from games.web.http_errors import database_unavailable, error_payload
from games.web.seats import (
    acting_seat,
    load_room,
    remember_seat,
    signed_in_user,
    viewer_seat,
)
from games.web.throttle import P, View, rate_limited

POINTS = range(0, 26)  # 0 = off, 25 = bar
MAX_STEPS = 8  # of a half-made play in ?taken=: anything longer is not a play at all
MAX_BODY = 4096


def error_response(error: ServiceError) -> JsonResponse:
    return JsonResponse(error_payload(error.code, public_message(error)), status=error.status)


def json_endpoint(methods: tuple[str, ...]) -> Callable[[View[P]], View[P]]:
    """Allow `methods`, and turn every ServiceError into its JSON response."""

    def decorate(view: View[P]) -> View[P]:
        @wraps(view)
        def wrapper(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
            try:
                if request.method not in methods:
                    raise RequestError("method_not_allowed", str(request.method), status=405)
                response = view(request, *args, **kwargs)
            except ServiceError as error:
                response = error_response(error)
                if error.status == 405:
                    response["Allow"] = ", ".join(methods)
            patch_vary_headers(response, ("Cookie", "Accept-Language"))
            return response

        return wrapper

    return decorate


# --- reading the body -------------------------------------------------------


def read_json_body(request: HttpRequest) -> Body:
    """The request's JSON object: every JSON endpoint reads its body here and nowhere else."""
    # Refuse a long body by its header, before reading a byte of it.
    if _content_length(request) > MAX_BODY:
        raise RequestError("too_large", "body too large", status=413)
    try:
        raw = request.body
    except RequestDataTooBig:
        raise RequestError("too_large", "body too large", status=413) from None
    except RawPostDataException:
        # Sent as a form (multipart/form-data): the CSRF check has read it as
        # one already, and it is not the JSON object every endpoint takes.
        raise RequestError("bad_json", "a form body, not JSON") from None
    if len(raw) > MAX_BODY:
        raise RequestError("too_large", "body too large", status=413)
    try:
        body = json.loads(raw.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError, RecursionError):
        # RecursionError: "[" * 1100 nests deeper than the parser's stack, well
        # under MAX_BODY. No action takes anything nested more than two deep.
        raise RequestError("bad_json", "not JSON") from None
    if not isinstance(body, dict):
        raise RequestError("bad_json", "not an object")
    return body


def _content_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


# --- endpoints --------------------------------------------------------------


def state_response(request: HttpRequest, slug: str) -> HttpResponse:
    """The viewer's state of room `slug` right after their own change (an action,
    a join, a new room), or 304 when they have it already."""
    answer, seat = state_cache.fresh_viewer_state(request, slug)
    response = answer_response(request, answer)
    response[live_pass.HEADER] = live_pass.issue(request, slug, seat)
    return response


def answer_response(request: HttpRequest, answer: state_cache.Answer) -> HttpResponse:
    if etags.names(request.META.get("HTTP_IF_NONE_MATCH", ""), answer.etag):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(answer.body, content_type="application/json")
    response["ETag"] = answer.etag
    response["Cache-Control"] = "private, no-cache"
    response["Content-Language"] = get_language()
    return response


def new_room_response(request: HttpRequest, seat: Seat) -> HttpResponse:
    """201: the state of the room `seat` was just given, with the room's page as Location."""
    response = state_response(request, seat.room.slug)
    response.status_code = 201
    response["Location"] = reverse("games:room", args=[seat.room.slug])
    return response


def parse_wait(request: HttpRequest) -> int | None:
    """The version the client already has, from "?wait=12"; None without the parameter."""
    text = request.GET.get("wait")
    if text is None:
        return None
    version = int_from_text(text)
    if version is None or version < 0:
        raise BadInput("bad_version", f"wait={text!r}")
    return version


@json_endpoint(("GET", "HEAD"))
def room_state(request: HttpRequest, slug: str) -> HttpResponse:
    wait = parse_wait(request)
    if wait is not None:
        # Long polling: held until the room moves past `wait` (see games.web.longpoll).
        board = etags.board_tag(request.headers.get("If-None-Match", ""), wait)
        longpoll.wait_for_change(slug, wait, serial=board.serial if board else None)
    answer, seat = state_cache.viewer_state(request, slug)  # one query on a hit
    if seat is not None:
        services.seat_seen(seat=seat)  # no "your turn" email while the board is open
    response = answer_response(request, answer)
    # Who this board is, signed: its next wait's wake-up needs no session (games.web.live).
    response[live_pass.HEADER] = live_pass.issue(request, slug, seat)
    return response


@json_endpoint(("POST",))
@rate_limited("action")
@csrf_protect
def room_action(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    if action not in ACTION_SPECS:
        raise RequestError("unknown_action", action)
    body = read_json_body(request)
    perform(action, acting_seat(request, slug), body)
    # Answer with the fresh state so the client needs no second request.
    return after_commit(request, lambda: state_response(request, slug))


def after_commit(request: HttpRequest, answer: Callable[[], HttpResponse]) -> HttpResponse:
    """The answer to an action already committed: when the database went away
    between the commit and reading the state back, say it was saved (a 503
    all the same, as there is no state to show), never that it failed."""
    try:
        return answer()
    except (OperationalError, InterfaceError) as error:
        return database_unavailable(request, error, "saved_unavailable")


def parse_player(body: Body) -> PlayerDetails:
    """Nickname, email and consent, strictly typed; the service checks their content.
    An optional time_zone (an IANA name) is kept when the server knows it."""
    nickname, email = body.get("nickname"), body.get("email", "")
    consent = body.get("email_consent", False)
    if not isinstance(nickname, str):
        raise BadInput("bad_nickname")
    if not isinstance(email, str) or not isinstance(consent, bool):
        raise BadInput("bad_email")
    zone = body.get("time_zone", "")
    return {
        "nickname": nickname,
        "email": email,
        "email_consent": consent,
        "time_zone": zone if isinstance(zone, str) else "",
    }


@json_endpoint(("POST",))
@rate_limited("create")
def room_create(request: HttpRequest) -> HttpResponse:
    body = read_json_body(request)
    rules, bot, rated = body.get("rules", {}), body.get("bot"), body.get("rated", True)
    if not isinstance(rules, dict):
        raise BadInput("bad_rules")
    if not isinstance(rated, bool):
        raise BadInput("bad_rated")
    if bot is not None and not isinstance(bot, str):
        raise BadInput("bad_bot")
    user = signed_in_user(request)
    seat = services.room_create(
        rules=rules,
        bot=bot,
        rated=rated,
        user=user,
        language=get_language(),
        **parse_player(body),
    )
    remember_seat(request, seat.room, seat.token)
    return new_room_response(request, seat)


@json_endpoint(("POST",))
@rate_limited("join")
def room_join(request: HttpRequest, slug: str) -> HttpResponse:
    body = read_json_body(request)
    room = load_room(slug)
    if viewer_seat(request, room) is not None:
        raise Conflict("already_seated")
    user = signed_in_user(request)
    seat = services.room_join(room=room, user=user, language=get_language(), **parse_player(body))
    remember_seat(request, room, seat.token)
    return state_response(request, slug)


def parse_taken(text: str) -> list[tuple[int, int]]:
    """The steps already taken this turn, from "?taken=24-18,18-13"."""
    taken: list[tuple[int, int]] = []
    for word in filter(None, text.split(",")):
        src, _sep, dst = (int_from_text(part) for part in word.partition("-"))
        if src is None or dst is None or src not in POINTS or dst not in POINTS:
            raise BadInput("bad_play", f"bad step {word!r}")
        taken.append((src, dst))
    if len(taken) > MAX_STEPS:
        raise BadInput("bad_play", "too many steps")
    return taken


@json_endpoint(("GET",))
def room_steps(request: HttpRequest, slug: str) -> HttpResponse:
    room = load_room(slug)
    seat = viewer_seat(request, room)
    if seat is None:
        raise NotSeatHolder("not_seat_holder", "spectators have no steps")
    taken = parse_taken(request.GET.get("taken", ""))
    try:
        return JsonResponse(selectors.step_options(room, seat, taken))
    except EngineError as error:
        raise from_engine(error) from None


@json_endpoint(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"))
def not_found(request: HttpRequest, rest: str) -> HttpResponse:
    raise RequestError("not_found", rest, status=404)
