"""Tournaments, read: the lists, a tournament's page (bracket or standings, who
waits for whom), a player's tournaments, and the replay check.

A tournament's page reads a fixed number of queries whatever its field: the
tournament, its entries with their accounts, its matches with their rooms, and
the rooms' current matches (whose turn it is), one query each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from games.lib.errors import NotFound
from games.models import ROOM_SLUG_PATTERN, Entry, Match, Tournament, TournamentMatch
from games.selectors.lobby import player_name
from games.tournaments import Result, Slot, knockout, standings

# How many finished (or running) tournaments the list shows.
LIST_LENGTH = 30


def tournament_by_slug(slug: object) -> Tournament:
    """The tournament of this slug (private ones too: the link is their key), or 404."""
    if not isinstance(slug, str) or not re.fullmatch(ROOM_SLUG_PATTERN, slug):
        raise NotFound("tournament_not_found")
    found = Tournament.objects.select_related("host__profile").filter(slug=slug).first()
    if found is None:
        raise NotFound("tournament_not_found")
    return found


def listed(*, length: int | None = None, rating: int | None = None) -> dict[str, list[Tournament]]:
    """The public tournaments: open to join (soonest start first), running, finished.

    `length`: only those whose first matches are to this many points; `rating`:
    only those whose band admits this rating.
    """
    public = Tournament.objects.filter(private=False)
    if length is not None:
        public = public.filter(lengths__0=length)
    if rating is not None:
        public = public.filter(
            Q(rating_min__isnull=True) | Q(rating_min__lte=rating),
            Q(rating_max__isnull=True) | Q(rating_max__gte=rating),
        )
    return {
        "open": list(open_to_join(public)[:LIST_LENGTH]),
        "running": list(
            public.filter(status=Tournament.Status.RUNNING).order_by("-started_at")[:LIST_LENGTH]
        ),
        "finished": list(
            public.filter(status=Tournament.Status.FINISHED)
            .select_related("winner__profile")
            .order_by("-ended_at")[:LIST_LENGTH]
        ),
    }


def open_to_join(base: QuerySet[Tournament] | None = None) -> QuerySet[Tournament]:
    """Open tournaments by start, with how many have joined (one query: the count
    is a subquery per listed row, on the entries' index, not a join of them all)."""
    base = Tournament.objects.all() if base is None else base
    joined = (
        Entry.objects.filter(tournament=OuterRef("pk"))
        .order_by()
        .values("tournament")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return (
        base.filter(status=Tournament.Status.OPEN)
        .annotate(joined=Coalesce(Subquery(joined), 0))
        .order_by("starts_at")
    )


@dataclass
class MatchLine:
    """One match on the page: its players, score, room and who it waits for."""

    round: int
    index: int
    group: int
    length: int
    status: str
    a: str | None
    b: str | None
    a_user: int | None
    b_user: int | None
    points_a: int
    points_b: int
    winner: str | None
    walkover: bool
    room_slug: str | None
    waiting_for: str | None
    is_you: bool = False


@dataclass
class RoundBlock:
    number: int
    name: str
    matches: list[MatchLine] = field(default_factory=list)


def page(tournament: Tournament, viewer: User | None = None) -> dict[str, Any]:
    """Everything the tournament's page shows, in four queries whatever the field."""
    entries = list(Entry.objects.filter(tournament=tournament).select_related("user__profile"))  # 1
    names = {entry.pk: player_name(entry.user) for entry in entries}
    users = {entry.pk: entry.user_id for entry in entries}
    rows = list(TournamentMatch.objects.filter(tournament=tournament).select_related("room"))  # 2
    rooms = [row.room_id for row in rows if row.room_id is not None and row.status == "playing"]
    waiting: dict[int, str] = {}
    if rooms:
        # The room's current match: whose turn it is (one query for all of them).
        current = (
            Match.objects.filter(room_id__in=rooms, status=Match.Status.PLAYING)
            .select_related("turn_seat")
            .only("room_id", "turn_seat__nickname")
        )  # 3
        waiting = {match.room_id: match.turn_seat.nickname for match in current if match.turn_seat}
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    lines = [
        MatchLine(
            round=row.round,
            index=row.index,
            group=row.group,
            length=row.length,
            status=row.status,
            a=names.get(row.player_a_id) if row.player_a_id else None,
            b=names.get(row.player_b_id) if row.player_b_id else None,
            a_user=users.get(row.player_a_id) if row.player_a_id else None,
            b_user=users.get(row.player_b_id) if row.player_b_id else None,
            points_a=row.points_a,
            points_b=row.points_b,
            winner=names.get(row.winner_id) if row.winner_id else None,
            walkover=row.decided == TournamentMatch.Decided.WALKOVER,
            room_slug=row.room.slug if row.room is not None else None,
            waiting_for=waiting.get(row.room_id) if row.room_id else None,
            is_you=viewer_id is not None
            and viewer_id in (users.get(row.player_a_id or 0), users.get(row.player_b_id or 0)),
        )
        for row in rows
    ]
    mine = next((entry for entry in entries if entry.user_id == viewer_id), None)
    data: dict[str, Any] = {
        "tournament": tournament,
        "entries": sorted(entries, key=lambda e: (e.seed or 999, e.joined_at)),
        "names": names,
        "joined": len(entries),
        "mine": mine,
        "lines": lines,
    }
    if tournament.kind == Tournament.Kind.KNOCKOUT:
        data["rounds"] = _rounds(tournament, lines, len(entries))
    else:
        data["groups"] = _groups(entries, rows, names)
    return data


def _rounds(tournament: Tournament, lines: list[MatchLine], players: int) -> list[RoundBlock]:
    if tournament.status == Tournament.Status.OPEN or players < 4 or not lines:
        return []
    bracket = knockout(players)
    blocks = [
        RoundBlock(number, bracket.round_name(number)) for number in range(1, bracket.rounds + 1)
    ]
    for line in sorted(lines, key=lambda line: (line.round, line.index)):
        blocks[line.round - 1].matches.append(line)
    return blocks


def _groups(
    entries: list[Entry], rows: list[TournamentMatch], names: dict[int, str]
) -> list[dict[str, Any]]:
    found = []
    for group in sorted({entry.group for entry in entries}):
        members = sorted(
            (entry for entry in entries if entry.group == group),
            key=lambda entry: (entry.seed or 999, entry.joined_at),
        )
        results = [
            Result(row.player_a_id, row.player_b_id, row.winner_id, row.points_a, row.points_b)
            for row in rows
            if row.group == group
            and row.winner_id is not None
            and row.player_a_id is not None
            and row.player_b_id is not None
        ]
        table = standings([entry.pk for entry in members], results)
        found.append(
            {
                "number": group + 1,
                "rows": [
                    {
                        "place": row.place,
                        "name": names[row.player],
                        "played": row.played,
                        "wins": row.wins,
                        "losses": row.losses,
                        "points_for": row.points_for,
                        "points_against": row.points_against,
                        "difference": row.difference,
                        "by_head_to_head": row.by_head_to_head,
                    }
                    for row in table
                ],
            }
        )
    return found


def standings_of(tournament: Tournament) -> list[dict[str, Any]]:
    """A league's groups with their standings, first group first."""
    entries = list(Entry.objects.filter(tournament=tournament).select_related("user__profile"))
    rows = list(TournamentMatch.objects.filter(tournament=tournament))
    return _groups(entries, rows, {entry.pk: player_name(entry.user) for entry in entries})


Pairings = dict[tuple[int, int, int], tuple[int | None, int | None]]


def stored_pairings(tournament: Tournament) -> Pairings:
    """Who sits in each match, as stored: {(group, round, index): (entry, entry)}."""
    return {
        (row.group, row.round, row.index): (row.player_a_id, row.player_b_id)
        for row in TournamentMatch.objects.filter(tournament=tournament)
    }


def replayed_pairings(tournament: Tournament) -> Pairings:
    """The same, rebuilt from the seeds and the results alone (games.tournaments)."""
    stored = stored_pairings(tournament)
    if tournament.kind != Tournament.Kind.KNOCKOUT:
        return stored  # a league's pairings are fixed at its start
    entries = list(Entry.objects.filter(tournament=tournament))
    seed_of = {entry.pk: entry.seed or 0 for entry in entries}
    entry_of = {entry.seed: entry.pk for entry in entries}
    winners = {
        Slot(row.round, row.index): seed_of[row.winner_id]
        for row in TournamentMatch.objects.filter(tournament=tournament)
        if row.winner_id is not None
    }
    pairings = knockout(len(entries)).pairings(winners)
    return {
        (0, slot.round, slot.index): (
            entry_of[a] if a is not None else None,
            entry_of[b] if b is not None else None,
        )
        for slot, (a, b) in pairings.items()
    }


def of_player(user: User) -> list[Entry]:
    """The tournaments a player joined, newest first (the profile, Mis partidas)."""
    return list(
        Entry.objects.filter(user=user)
        .select_related("tournament", "tournament__winner")
        .order_by("-tournament__created_at")[:50]
    )


def room_ids_in_tournaments(room_ids: Iterable[int]) -> dict[int, Tournament]:
    """{room id: its tournament} for those of these rooms that are a tournament's match."""
    rows = TournamentMatch.objects.filter(room_id__in=list(room_ids)).select_related("tournament")
    return {row.room_id: row.tournament for row in rows if row.room_id is not None}


def hosting_count(user: User) -> int:
    return Tournament.objects.filter(host=user, status__in=Tournament.ACTIVE).count()
