"""Pages and JSON API of the lobby, invitations by name and the words between players.

Thin like the rest of the web layer: parse, call one service, render or
answer JSON. A refusal (your own challenge, one already taken, withdrawn or
expired, a message too long) is the service's error with its status, a
sentence in the player's language, and nothing written.
"""

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from games import services
from games.engine import Format, MatchRules
from games.lib.errors import (
    BadInput,
    Forbidden,
    NotFound,
    NotSeatHolder,
    ServiceError,
    public_message,
)
from games.models import Challenge, Room, Seat
from games.selectors import lobby
from games.services.challenges import MAX_OPEN_CHALLENGES
from games.web.api import json_endpoint, new_room_response, read_json_body, state_response
from games.web.forms import (
    MatchNeedsLength,
    days_per_move_field,
    format_field,
    match_length_field,
    rating_band_fields,
)
from games.web.seats import get_room_or_404, load_room, signed_in_user, viewer_seat
from games.web.throttle import rate_limited


class ChallengeForm(MatchNeedsLength):
    """The format and length of a challenge; the lobby's form adds a clock and a rating band."""

    format = format_field()
    length = match_length_field()

    def match_rules(self) -> MatchRules:
        chosen = Format(self.cleaned_data["format"])
        if chosen == Format.MATCH:
            return MatchRules(format=chosen, length=self.cleaned_data["length"])
        return MatchRules(format=chosen)


class LobbyForm(ChallengeForm):
    days_per_move = days_per_move_field()
    rating_min, rating_max = rating_band_fields()


def _challenge_or_404(slug: str) -> Challenge:
    try:
        return lobby.challenge_by_slug(slug)
    except ServiceError:
        raise Http404 from None


# --- pages -------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
@rate_limited("create")
def lobby_page(request: HttpRequest) -> HttpResponse:
    """The open challenges; a signed-in player posts one here."""
    form = LobbyForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.path)
        if form.is_valid():
            try:
                services.challenge_post(
                    author=request.user,
                    rules=form.match_rules(),
                    rating_min=form.cleaned_data["rating_min"],
                    rating_max=form.cleaned_data["rating_max"],
                    days_per_move=form.cleaned_data["days_per_move"] or None,
                )
            except ServiceError as error:
                form.add_error(None, public_message(error))
                status = error.status
            else:
                messages.success(
                    request, _("Tu desafío está publicado. Te avisamos cuando alguien lo acepte.")
                )
                return redirect("games:lobby")
        else:
            status = 400
    return _render_lobby(request, form, status)


def _render_lobby(
    request: HttpRequest, form: LobbyForm, status: int = 200, error: str | None = None
) -> HttpResponse:
    context = {
        "form": form,
        "challenges": lobby.open_challenges(signed_in_user(request)),
        "max_open": MAX_OPEN_CHALLENGES,
        "error": error,
    }
    return render(request, "games/lobby.html", context, status=status)


@require_POST
@rate_limited("join")
def challenge_accept(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = _challenge_or_404(slug)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("games:lobby"))
    try:
        seat = services.challenge_accept(
            challenge=challenge, user=request.user, language=get_language()
        )
    except ServiceError as error:
        return _refused(request, error)
    return redirect("games:room", slug=seat.room.slug)


@require_POST
@rate_limited("join")
def challenge_withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    return _close(request, slug, services.challenge_withdraw, _("Retiraste el desafío."))


@require_POST
@rate_limited("join")
def invitation_decline(request: HttpRequest, slug: str) -> HttpResponse:
    return _close(request, slug, services.invitation_decline, _("Rechazaste la invitación."))


def _close(
    request: HttpRequest, slug: str, service: Callable[..., Challenge], done: str
) -> HttpResponse:
    challenge = _challenge_or_404(slug)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("games:my_rooms"))
    try:
        service(challenge=challenge, user=request.user)
    except ServiceError as error:
        return _refused(request, error)
    messages.success(request, done)
    return redirect(_back(request))


def _back(request: HttpRequest) -> str:
    return (
        reverse("games:lobby") if request.POST.get("from") == "lobby" else reverse("games:my_rooms")
    )


def _refused(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """The lobby again, with the refusal in words and its status (409, 403...)."""
    return _render_lobby(request, LobbyForm(), status=error.status, error=public_message(error))


@require_POST
@rate_limited("create")
def invite(request: HttpRequest, username: str) -> HttpResponse:
    """The button of a public profile: challenge this player by name."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    form = ChallengeForm(request.POST)
    if not form.is_valid():
        # The form's own sentence ("choose the points"...), on the lobby page.
        said = next(iter(form.errors.values()))[0]
        return _render_lobby(request, LobbyForm(), status=400, error=str(said))
    try:
        services.invitation_send_by_name(
            author=request.user, username=username, rules=form.match_rules()
        )
    except ServiceError as error:
        return _refused(request, error)
    messages.success(request, _("Invitación enviada. Le llega por correo y en «Mis partidas»."))
    return redirect("games:my_rooms")


@require_POST
@rate_limited("message")
def message_post(request: HttpRequest, slug: str) -> HttpResponse:
    room = get_room_or_404(slug)
    try:
        services.message_send(seat=_seat(request, room), text=request.POST.get("text", ""))
    except ServiceError as error:
        messages.error(request, public_message(error))
    return redirect("games:room", slug=slug)


@require_POST
@rate_limited("message")
def mute(request: HttpRequest, slug: str) -> HttpResponse:
    room = get_room_or_404(slug)
    try:
        services.messages_mute(seat=_seat(request, room))
    except ServiceError as error:
        messages.error(request, public_message(error))
    else:
        messages.success(request, _("Ya no verás los mensajes de tu rival."))
    return redirect("games:room", slug=slug)


def _seat(request: HttpRequest, room: Room) -> Seat:
    seat = viewer_seat(request, room)
    if seat is None:
        raise NotSeatHolder("not_seat_holder", "spectators send no messages")
    return seat


# --- JSON API ------------------------------------------------------------------------


def _require_user(request: HttpRequest) -> User:
    user = signed_in_user(request)
    if user is None:
        raise Forbidden("login_required")
    return user


@json_endpoint(("GET", "HEAD", "POST"))
def api_challenges(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return _api_challenge_post(request)
    lines = lobby.open_challenges(signed_in_user(request))
    return JsonResponse(
        {
            "challenges": [
                {
                    **lobby.challenge_json(line),
                    "mine": line["mine"],
                    "can_accept": line["can_accept"],
                }
                for line in lines
            ]
        }
    )


@rate_limited("create")
def _api_challenge_post(request: HttpRequest) -> HttpResponse:
    body = read_json_body(request)
    rules = body.get("rules", {})
    if not isinstance(rules, dict):
        raise BadInput("bad_rules")
    challenge = services.challenge_post(
        author=_require_user(request),
        rules=rules,
        rating_min=body.get("rating_min"),
        rating_max=body.get("rating_max"),
    )
    return _challenge_response(challenge, status=201)


def _challenge_response(challenge: Challenge, status: int = 200) -> JsonResponse:
    line = lobby.challenge_line(lobby.challenge_by_slug(challenge.slug))
    response = JsonResponse({"challenge": lobby.challenge_json(line)}, status=status)
    if status == 201:
        response["Location"] = reverse("games:api_challenge", args=[challenge.slug])
    return response


@json_endpoint(("GET", "HEAD"))
def api_challenge(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = lobby.challenge_by_slug(slug)
    user = signed_in_user(request)
    # An invitation is private to its two players; an open challenge is public.
    if challenge.invitee_id is not None and (
        user is None or user.pk not in (challenge.author_id, challenge.invitee_id)
    ):
        raise NotFound("challenge_not_found")
    return _challenge_response(challenge)


@json_endpoint(("POST",))
@rate_limited("join")
def api_challenge_accept(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = lobby.challenge_by_slug(slug)
    seat = services.challenge_accept(
        challenge=challenge, user=_require_user(request), language=get_language()
    )
    return new_room_response(request, seat)


@json_endpoint(("POST",))
@rate_limited("join")
def api_challenge_withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    return _api_close(request, slug, services.challenge_withdraw)


@json_endpoint(("POST",))
@rate_limited("join")
def api_invitation_decline(request: HttpRequest, slug: str) -> HttpResponse:
    return _api_close(request, slug, services.invitation_decline)


def _api_close(request: HttpRequest, slug: str, service: Callable[..., Challenge]) -> JsonResponse:
    """The JSON twin of _close: the challenge as `service` left it."""
    challenge = service(challenge=lobby.challenge_by_slug(slug), user=_require_user(request))
    return _challenge_response(challenge)


@json_endpoint(("GET", "HEAD", "POST"))
def api_invitations(request: HttpRequest) -> HttpResponse:
    user = _require_user(request)
    if request.method == "POST":
        return _api_invite(request, user)
    mine = lobby.invitations_for(user)
    return JsonResponse(
        {key: [lobby.challenge_json(line) for line in mine[key]] for key in ("received", "sent")}
    )


@rate_limited("create")
def _api_invite(request: HttpRequest, user: User) -> HttpResponse:
    body = read_json_body(request)
    rules = body.get("rules", {})
    if not isinstance(rules, dict):
        raise BadInput("bad_rules")
    challenge = services.invitation_send_by_name(
        author=user, username=body.get("username"), rules=rules
    )
    return _challenge_response(challenge, status=201)


@json_endpoint(("POST",))
@rate_limited("message")
def api_message(request: HttpRequest, slug: str) -> HttpResponse:
    body = read_json_body(request)
    room = load_room(slug)
    services.message_send(seat=viewer_seat(request, room), text=body.get("text"))
    response: HttpResponse = state_response(request, slug)
    response.status_code = 201
    return response


@json_endpoint(("POST",))
@rate_limited("message")
def api_mute(request: HttpRequest, slug: str) -> HttpResponse:
    read_json_body(request)
    room = load_room(slug)
    services.messages_mute(seat=viewer_seat(request, room))
    return state_response(request, slug)
