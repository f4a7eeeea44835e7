"""The review page of a finished game, and the request to analyse one. Thin.

Anyone who may watch the room may read the review (seats and spectators);
only a seat holder may ask for an analysis (a finished game is queued by
itself; the button is for a game whose analysis is missing or failed).
"""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games import services
from games.lib.errors import NotSeatHolder, ServiceError, public_message
from games.models import Game, Room
from games.selectors import luck, review
from games.web.seats import get_room_or_404, viewer_seat

# The words the review's script shows, in the request's language.
STRINGS = {
    "doubtful": _("dudosa"),
    "error": _("error"),
    "blunder": _("grave"),
    "forced": _("forzada"),
    **review.DECISION_WORDS,
    "played": _("Jugada hecha"),
    "best": _("Mejor jugada"),
    "same": _("Jugaste la mejor."),
    "loss": _("Pierde {loss} de equity."),
    "step": _("Decisión {n} de {total}"),
    "equity": _("Equity"),
    "play": _("Jugada"),
    # The chart of the game (static/js/review/luck.js), on hovering a mark.
    "chart_roll": _("{name} sacó {dice}: suerte {luck} ({mark})"),
    "chart_error": _("{name}: {mark}"),
    "roll_luck": _("Suerte de la tirada {dice}: {luck}"),
}
REFRESH_SECONDS = 5  # while the analysis runs, the page reloads itself this often


def _game(room: Room, match_number: int, game_number: int) -> Game:
    return get_object_or_404(
        Game.objects.select_related("match"),
        match__room=room,
        match__number=match_number,
        number=game_number,
    )


@never_cache
@require_GET
def review_page(
    request: HttpRequest, slug: str, match_number: int, game_number: int
) -> HttpResponse:
    room = get_room_or_404(slug)
    game = _game(room, match_number, game_number)
    if game.status != Game.Status.FINISHED:
        raise Http404  # a running game is not reviewed: its moves are still being made
    context = review.page_context(room, game, viewer_seat(request, room))
    context.update(refresh=REFRESH_SECONDS, strings={k: str(v) for k, v in STRINGS.items()})
    context["luck"] = luck.page_luck(room, game)
    return render(request, "games/review.html", context)


@require_POST
def review_request(
    request: HttpRequest, slug: str, match_number: int, game_number: int
) -> HttpResponse:
    room = get_room_or_404(slug)
    game = _game(room, match_number, game_number)
    try:
        if viewer_seat(request, room) is None:
            raise NotSeatHolder()
        services.game_analysis_queue(game=game)
    except ServiceError as error:
        context = {"room": room, "game": game, "message": public_message(error)}
        return render(request, "games/review_refused.html", context, status=error.status)
    return redirect("games:review", slug=slug, match_number=match_number, game_number=game_number)
