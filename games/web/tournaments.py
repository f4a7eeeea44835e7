"""Tournament pages: the list, one tournament (bracket or standings), hosting one,
and the join, leave and withdraw buttons. Thin: parse, call one service, render.

A private tournament is not listed; its page's address is the link to join it.
A refusal (full, out of the band, already started) is the service's error with
its status and its sentence, and nothing written.
"""

from collections.abc import Callable
from datetime import timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from games import services
from games.lib import clock
from games.lib.errors import ServiceError, public_message
from games.models import Tournament
from games.selectors import lobby
from games.selectors import tournaments as read
from games.services.tournaments import HOSTED_AT_ONCE, HOSTED_PLAYERS_MAX
from games.web.forms import (
    MATCH_LENGTHS,
    days_per_move_field,
    match_length_choices,
    match_length_field,
    rating_band_fields,
)
from games.web.seats import signed_in_user
from games.web.throttle import rate_limited


class TournamentForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Nombre"), max_length=60)
    kind = forms.ChoiceField(
        label=gettext_lazy("Tipo"),
        choices=[
            (Tournament.Kind.KNOCKOUT.value, gettext_lazy("Eliminatoria")),
            (Tournament.Kind.LEAGUE.value, gettext_lazy("Liga (todos contra todos)")),
        ],
    )
    capacity = forms.IntegerField(
        label=gettext_lazy("Jugadores"), min_value=4, max_value=HOSTED_PLAYERS_MAX, initial=8
    )
    length = match_length_field(required=True)
    final_length = forms.TypedChoiceField(
        label=gettext_lazy("Puntos de la final (eliminatoria)"),
        choices=[("", "—"), *match_length_choices()],
        coerce=int,
        empty_value=None,
        required=False,
    )
    days_per_move = days_per_move_field(required=True)
    rating_min, rating_max = rating_band_fields()
    starts_in_days = forms.IntegerField(
        label=gettext_lazy("Empieza dentro de (días), si no se llena antes"),
        min_value=1,
        max_value=14,
        initial=7,
    )
    private = forms.BooleanField(label=gettext_lazy("Privado: solo con el enlace"), required=False)


def _tournament_or_404(slug: str) -> Tournament:
    try:
        return read.tournament_by_slug(slug)
    except ServiceError:
        raise Http404 from None


def _number(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() and len(value) < 6 else None


@never_cache
def tournaments_page(request: HttpRequest) -> HttpResponse:
    """Open to join, running, finished; filtered by length and by a rating the band admits."""
    length = _number(request.GET.get("puntos"))
    rating = _number(request.GET.get("puntuacion"))
    user = signed_in_user(request)
    context = {
        "lists": read.listed(length=length, rating=rating),
        "length": length,
        "rating": rating,
        "lengths": MATCH_LENGTHS,
        "mine": read.of_player(user) if user is not None else [],
    }
    return render(request, "games/tournaments.html", context)


@never_cache
@require_http_methods(["GET", "POST"])
@rate_limited("create")
def tournament_new(request: HttpRequest) -> HttpResponse:
    """Host a tournament (signed-in players)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    form = TournamentForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            lengths = [data["length"]]
            if data["kind"] == Tournament.Kind.KNOCKOUT and data["final_length"]:
                lengths.append(data["final_length"])
            try:
                tournament = services.tournament_create(
                    host=request.user,
                    name=data["name"],
                    kind=data["kind"],
                    capacity=data["capacity"],
                    lengths=lengths,
                    days_per_move=data["days_per_move"],
                    rating_min=data["rating_min"],
                    rating_max=data["rating_max"],
                    private=data["private"],
                    starts_at=clock.now() + timedelta(days=data["starts_in_days"]),
                )
            except ServiceError as error:
                form.add_error(None, public_message(error))
                status = error.status
            else:
                messages.success(request, _("Tu torneo está abierto. Comparte su enlace."))
                return redirect("games:tournament", slug=tournament.slug)
        else:
            status = 400
    context = {"form": form, "at_once": HOSTED_AT_ONCE, "players_max": HOSTED_PLAYERS_MAX}
    return render(request, "games/tournament_new.html", context, status=status)


@never_cache
def tournament_page(request: HttpRequest, slug: str, *, status: int = 200) -> HttpResponse:
    tournament = _tournament_or_404(slug)
    user = signed_in_user(request)
    context = read.page(tournament, user)
    rating = lobby.rating_for(user) if user is not None else None
    context["fits"] = rating is None or (
        (tournament.rating_min is None or rating >= tournament.rating_min)
        and (tournament.rating_max is None or rating <= tournament.rating_max)
    )
    context["rating"] = rating
    return render(request, "games/tournament.html", context, status=status)


@require_POST
@rate_limited("join")
def tournament_join(request: HttpRequest, slug: str) -> HttpResponse:
    return _act(
        request, slug, services.tournament_join, _("Estás dentro. Te avisamos de cada encuentro.")
    )


@require_POST
@rate_limited("join")
def tournament_leave(request: HttpRequest, slug: str) -> HttpResponse:
    return _act(request, slug, services.tournament_leave, _("Ya no estás apuntado."))


@require_POST
@rate_limited("join")
def tournament_withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    return _act(
        request,
        slug,
        services.tournament_withdraw,
        _("Te retiraste: tus encuentros se dan por perdidos."),
    )


def _act(
    request: HttpRequest, slug: str, service: Callable[..., object], done: str
) -> HttpResponse:
    tournament = _tournament_or_404(slug)
    if not request.user.is_authenticated:
        # Back to the tournament's page after logging in (the button is there).
        return redirect_to_login(reverse("games:tournament", args=[slug]))
    try:
        service(tournament=tournament, user=request.user)
    except ServiceError as error:
        messages.error(request, public_message(error))
        return tournament_page(request, slug, status=error.status)
    messages.success(request, done)
    return redirect("games:tournament", slug=slug)
