"""The site's pages. Thin: parse a form, call a service, render or redirect.

Actions from the HTML forms go through the same table and parsers as the JSON
API (games.web.action_requests.perform), so both ways of playing obey exactly the same checks.
"""

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.csrf import csrf_failure as default_csrf_failure
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games import selectors, services
from games.bots import CHARACTERS
from games.lib import clock
from games.lib.errors import RequestError, ServiceError, public_message
from games.selectors import archive, lobby
from games.web import presenters
from games.web.action_requests import ACTION_SPECS, perform
from games.web.forms import JoinForm, NewRoomForm, form_body
from games.web.http_errors import error_payload
from games.web.push import push_context
from games.web.seats import (
    free_seat_number,
    get_room_or_404,
    remember_seat,
    seat_for_token,
    session_seats,
    viewer_seat,
)
from games.web.throttle import rate_limited


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    template = "games/rules_en.html" if get_language() == "en" else "games/rules_es.html"
    return render(request, "games/rules.html", {"rules_template": template})


@rate_limited("create")
def home(request: HttpRequest) -> HttpResponse:
    form = NewRoomForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            seat = services.room_create(
                rules=form.match_rules(),
                bot=form.bot(),
                rated=form.rated(),
                days_per_move=form.chosen_days(),
                language=get_language(),
                user=form.user,
                **form.player(),
            )
        except ServiceError as error:
            form.add_error(None, public_message(error))
        else:
            remember_seat(request, seat.room, seat.token)
            return redirect("games:room", slug=seat.room.slug)
    context = {"form": form, "opponents": presenters.opponent_radios(form, CHARACTERS)}
    return render(request, "games/home.html", context)


@never_cache
@require_GET
def room(request: HttpRequest, slug: str) -> HttpResponse:
    room = get_room_or_404(slug)
    seat = viewer_seat(request, room)
    if seat is not None:
        services.seat_seen(seat=seat)  # no "your turn" email while the board is open
    state = selectors.room_state(room, seat)
    context = presenters.room_context(request, room, seat, state)
    if seat is None and free_seat_number(room) is not None:
        context["join_form"] = JoinForm(user=request.user)
    context["past_matches"] = archive.room_matches(room, finished_only=True, games=False)
    return render(request, "games/room.html", context)


@never_cache
@require_GET
def watch(request: HttpRequest, slug: str) -> HttpResponse:
    """The spectator's link: the room as a spectator sees it. It never offers the
    free seat, so it can be passed around while the room waits for its guest."""
    room = get_room_or_404(slug)
    state = selectors.room_state(room, None)
    context = presenters.room_context(request, room, None, state)
    context["watching"] = True
    context["past_matches"] = archive.room_matches(room, finished_only=True, games=False)
    return render(request, "games/room.html", context)


@require_POST
@rate_limited("join")
def join(request: HttpRequest, slug: str) -> HttpResponse:
    room = get_room_or_404(slug)
    if viewer_seat(request, room) is not None:
        return redirect("games:room", slug=slug)
    form = JoinForm(request.POST, user=request.user)
    if not form.is_valid():
        # Show the form again with its errors, on the room page it came from.
        context = presenters.room_context(request, room, None, selectors.room_state(room, None))
        context["join_form"] = form
        return render(request, "games/room.html", context, status=400)
    try:
        seat = services.room_join(
            room=room, user=form.user, language=get_language(), **form.player()
        )
    except ServiceError as error:
        messages.error(request, public_message(error))  # e.g. someone took the seat first
    else:
        remember_seat(request, room, seat.token)
    return redirect("games:room", slug=slug)


@never_cache
@require_GET
def seat_link(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    """The private seat link: bind the seat to this browser, then drop the token from the URL."""
    room = get_room_or_404(slug)
    seat = seat_for_token(room, token)
    if seat is None:
        return render(request, "games/seat_link_invalid.html", {"room": room}, status=403)
    remember_seat(request, room, token)
    return redirect("games:room", slug=slug)


@never_cache
@require_GET
def my_seat(request: HttpRequest, slug: str) -> HttpResponse:
    """The link in an account holder's emails: their board, holding their seat.

    Logged in as the seat's account: straight to the room. Otherwise the
    log-in page, which comes back here afterwards, never a spectator's view.
    """
    room = get_room_or_404(slug)
    user = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.path)
    if not room.seats.filter(user=user).exists():
        # Logged in as someone else: the log-in page would send them straight
        # back here, so say which account holds the seat.
        messages.info(request, _("Ese asiento es de otra cuenta: entra con ella para jugar."))
    return redirect("games:room", slug=slug)


@require_POST
@rate_limited("action")
def act(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    """Every form button of the board posts here; errors come back as a message."""
    if action not in ACTION_SPECS:
        raise Http404
    room = get_room_or_404(slug)
    seat = viewer_seat(request, room)
    try:
        perform(action, seat, form_body(request, room, seat, action))
    except ServiceError as error:
        messages.error(request, public_message(error))
    return redirect("games:room", slug=slug)


@never_cache
@require_GET
def my_rooms(request: HttpRequest) -> HttpResponse:
    seats = list(session_seats(request))
    context = {
        "entries": selectors.rooms_for_seats(seats),
        "now": clock.now(),
        **push_context(request),
    }
    if request.user.is_authenticated:
        context["challenges"] = lobby.invitations_for(request.user)
    return render(request, "games/my_rooms.html", context)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """JSON for the API (its clients read JSON errors), Django's page elsewhere."""
    if request.path.startswith("/api/"):
        message = public_message(RequestError("csrf_failed", status=403))
        return JsonResponse(error_payload("csrf_failed", message), status=403)
    return default_csrf_failure(request, reason=reason)
