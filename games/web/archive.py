"""A room's archive pages: every match it played, one past match, and the .mat files.

Thin: the records are read by games.selectors.archive and games.selectors.records.
"""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from games import selectors
from games.lib.errors import NotFound
from games.models import Match, Room
from games.selectors import archive, dice_stats
from games.web import presenters
from games.web.seats import get_room_or_404


@never_cache
@require_GET
def room_archive(request: HttpRequest, slug: str) -> HttpResponse:
    """Every match the room played: score, winner, each game's commitment and seed, its .mat."""
    room = get_room_or_404(slug)
    context = {"room": room, "matches": archive.room_matches(room)}
    return render(request, "games/room_archive.html", context)


@require_GET
def past_match(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """One finished match of the room, readable: its result, dice proofs and history."""
    room = get_room_or_404(slug)
    try:
        record = archive.past_match(room, number)
    except NotFound:
        raise Http404 from None
    context = {
        "room": room,
        "summary": record["summary"],
        "games": record["match"]["games"],
        "history": presenters.history_lines(record),
        # For the analysis links: each game's PR and its review page.
        "match": record["match"],
        "players": record["seats"],
        # Beside the dice proofs: the match's dice against fair dice.
        "dice": dice_stats.match_table(room, number),
    }
    return render(request, "games/past_match.html", context)


@never_cache
@require_GET
def match_file(request: HttpRequest, slug: str, number: int | None = None) -> HttpResponse:
    """The room's current match (or match `number`) as a .mat file for GNU Backgammon;
    anyone who can watch may download it."""
    room = get_room_or_404(slug)
    try:
        match, text = selectors.match_mat(room, number)
    except NotFound:
        raise Http404 from None  # waiting for its second player: nothing played yet
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{mat_filename(room, match)}"'
    return response


def mat_filename(room: Room, match: Match) -> str:
    """mesa-alice-bob-2026-03-02.mat (a rematch adds its number): plain ASCII, no quotes."""
    names = {seat.number: slugify(seat.nickname) or f"{seat.number}" for seat in room.seats.all()}
    day = timezone.localdate(match.created_at)
    sides = [names[match.seat_number_of(0)], names[match.seat_number_of(1)]]
    parts = ["mesa", *sides, f"{day:%Y-%m-%d}"]
    if match.number > 1:
        parts.append(str(match.number))
    return "-".join(parts) + ".mat"
