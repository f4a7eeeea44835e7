"""Players: the public profile, the leaderboard and vacations, as pages and as JSON.

These live in games (not in accounts) because they read the matches, the
analysis and the rooms, and accounts never imports games; the account's own
settings page (accounts) only links here. A profile shows nothing private:
no email, no seat link; its rooms in play link to the public room page,
where anyone watches.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.safestring import mark_safe
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_GET

from accounts.models import Rating
from games.lib import clock
from games.lib.errors import NotSeatHolder, ServiceError, public_message
from games.selectors import dice_stats, ratings, vacations
from games.services import vacations as vacation_service
from games.web.api import json_endpoint, read_json_body
from games.web.sparkline import sparkline
from games.web.throttle import rate_limited


def _player_or_404(username: str) -> User:
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise Http404("no such player")
    return user


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def format_label(fmt: str, length: int) -> str:
    if fmt == "match":
        return _("Match a %(length)d") % {"length": length}
    if fmt == "session":
        return _("Sesión libre")
    return _("Partida simple")


def rating_picture(profile: dict[str, Any]) -> str:
    """The SVG of the rating history, with words for those who do not see it."""
    history = profile["history"]
    values = [history[0]["before"]] + [row["after"] for row in history] if history else []
    title = _("Puntuación de %(name)s") % {"name": profile["name"]}
    if history:
        desc = ngettext(
            "De %(first).0f a %(last).0f en una partida puntuada.",
            "De %(first).0f a %(last).0f en %(count)d partidas puntuadas.",
            len(history),
        ) % {
            "first": values[0],
            "last": values[-1],
            "count": len(history),
        }
    else:
        desc = _("Todavía no hay partidas puntuadas.")
    return sparkline(values, title=title, desc=desc)


# --- pages ----------------------------------------------------------------------


@require_GET
def profile_page(request: HttpRequest, username: str) -> HttpResponse:
    user = _player_or_404(username)
    profile = ratings.profile(user, request.user)
    for row in profile["record"]:
        row["label"] = format_label(row["format"], row["length"])
    context = {
        "player": user,
        "profile": profile,
        # Escaped inside (games.web.sparkline): safe to embed as it is.
        "picture": mark_safe(rating_picture(profile)),  # noqa: S308
        "recent": list(reversed(profile["history"]))[:20],
        "is_me": request.user.is_authenticated and request.user.pk == user.pk,
        "dice": dice_stats.player_table(user, profile["name"]),
    }
    return render(request, "games/player.html", context)


@require_GET
def leaderboard_page(request: HttpRequest) -> HttpResponse:
    rows = [_board_row(rating) for rating in ratings.leaderboard()]
    return render(request, "games/leaderboard.html", {"rows": rows})


def _board_row(rating: Rating) -> dict[str, Any]:
    return {
        "name": ratings.rating_name(rating),
        "username": rating.user.get_username() if rating.user else None,
        "is_bot": bool(rating.bot),
        "rating": rating.rating,
        "experience": rating.experience,
        "matches": rating.matches,
    }


@never_cache
@login_required
@rate_limited("action")
def vacation_page(request: HttpRequest) -> HttpResponse:
    """See this year's days, go on vacation, or come back early."""
    user = request.user
    assert isinstance(user, User)
    if request.method == "POST":
        try:
            if request.POST.get("end"):
                vacation_service.vacation_end(user=user)
                messages.success(
                    request, _("Has vuelto de vacaciones. Tus relojes corren otra vez.")
                )
            else:
                row = vacation_service.vacation_start(user=user, days=request.POST.get("days"))
                messages.success(
                    request,
                    _("Estás de vacaciones hasta el %(until)s. Tus relojes están parados.")
                    % {"until": date_format(localtime(row.ends_at), "j F, H:i")},
                )
        except ServiceError as error:
            messages.error(request, public_message(error))
        return redirect("games:vacation")
    context = {
        "current": vacations.current(user.pk),
        "allowance": vacations.allowance(user.pk),
        "now": clock.now(),
    }
    return render(request, "games/vacation.html", context)


# --- JSON -------------------------------------------------------------------------


@json_endpoint(("GET",))
def profile_json(request: HttpRequest, username: str) -> JsonResponse:
    user = _player_or_404(username)
    profile = ratings.profile(user, request.user)
    for row in profile["history"]:
        row["at"] = _iso(row["at"])
    for room in profile["playing"]:
        room["last_move_at"] = _iso(room["last_move_at"])
        # The spectator's link: it never offers a seat, even to the player themselves.
        room["url"] = request.build_absolute_uri(reverse("games:watch", args=[room["slug"]]))
    return JsonResponse(profile)


@json_endpoint(("GET",))
def leaderboard_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"players": [_board_row(rating) for rating in ratings.leaderboard()]})


@json_endpoint(("GET", "POST"))
@rate_limited("action")
@csrf_protect
def vacation_json(request: HttpRequest) -> JsonResponse:
    """GET: this year's days and the vacation running; POST {"days": n} starts one,
    POST {"end": true} comes back early."""
    if not request.user.is_authenticated:
        raise NotSeatHolder("login_required")
    user = request.user
    assert isinstance(user, User)
    if request.method == "POST":
        body = read_json_body(request)
        if body.get("end") is True:
            vacation_service.vacation_end(user=user)
        else:
            vacation_service.vacation_start(user=user, days=body.get("days"))
    current = vacations.current(user.pk)
    return JsonResponse(
        {
            "on_vacation": current is not None,
            "until": _iso(current.until) if current else None,
            **vacations.allowance(user.pk),
        }
    )
