"""Read side of the dice statistics: a match's and a player's career, beside fair dice.

Every roll is a Turn row ("roll") with the position it was rolled in, from the
roller's side (games.analysis.dice counts them). The opening roll is one die
for each player, so it counts in the match's total but in neither player's
own dice; a player's dice are the rolls of their seats' sides after it.
"""

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Min
from django.utils.translation import gettext_lazy as _

from games.analysis import dice as fair
from games.engine import Position
from games.models import Match, Room, Turn


def _first_plays(game_ids: Iterable[int]) -> dict[int, int]:
    """Each game's first play's turn number: the rolls before it are the opening's."""
    rows = (
        Turn.objects.filter(game_id__in=list(game_ids), kind="play")
        .values("game_id")
        .annotate(first=Min("number"))
    )
    return {row["game_id"]: row["first"] for row in rows}


def _is_opening(turn: Turn, first_plays: dict[int, int]) -> bool:
    first = first_plays.get(turn.game_id)
    return first is None or turn.number < first


def _seen(turn: Turn, opening: bool) -> fair.RollSeen:
    assert turn.dice is not None, "a roll's row keeps its dice"
    high, low = sorted(turn.dice, reverse=True)
    if opening:
        return fair.seen((high, low))
    return fair.seen((high, low), Position.from_position_id(turn.position_before))


def shown(stats: fair.DiceStats) -> dict[str, Any]:
    """The figures a page shows: each count beside what fair dice give for as many rolls."""
    expected = stats.totals_expected()
    return {
        "rolls": stats.rolls,
        "doubles": stats.doubles,
        "doubles_expected": stats.doubles_expected,
        "pips": stats.pips / stats.rolls if stats.rolls else None,
        "pips_expected": float(fair.MEAN_PIPS),
        "totals": [
            {"total": total, "count": stats.totals[total], "expected": expected[total]}
            for total in fair.TOTALS
        ],
        "bar_rolls": stats.bar_rolls,
        "entered": stats.entered,
        "entered_expected": stats.entered_expected,
    }


def match_dice(match: Match) -> dict[str, Any]:
    """{"sides": [side 0's, side 1's], "all": both with the opening rolls} of a match's dice."""
    turns = list(
        Turn.objects.filter(game__match=match, kind="roll")
        .exclude(dice=None)
        .order_by("game__number", "number")
    )
    first_plays = _first_plays({turn.game_id for turn in turns})
    sides = (fair.DiceStats(), fair.DiceStats())
    every = fair.DiceStats()
    for turn in turns:
        opening = _is_opening(turn, first_plays)
        roll = _seen(turn, opening)
        every.add(roll)
        if not opening:
            sides[turn.side].add(roll)
    return {"sides": [shown(sides[0]), shown(sides[1])], "all": shown(every)}


def player_dice(user: User) -> dict[str, Any]:
    """A player's own rolls in every match of their seats (the openings apart)."""
    turns = list(Turn.objects.filter(seat__user=user, kind="roll").exclude(dice=None))
    first_plays = _first_plays({turn.game_id for turn in turns})
    stats = fair.dice_stats(_seen(t, False) for t in turns if not _is_opening(t, first_plays))
    return shown(stats)


def table(columns: list[dict[str, Any]]) -> dict[str, Any]:
    """templates/games/_dice_stats.html's data: the columns, and the totals a row each."""
    totals = [
        {"total": total, "cells": [column["totals"][i] for column in columns]}
        for i, total in enumerate(fair.TOTALS)
    ]
    return {"columns": columns, "totals": totals}


def match_table(room: Room, number: int) -> dict[str, Any] | None:
    """A match's dice table: each player, then every roll with the openings."""
    match = Match.objects.filter(room=room, number=number).first()
    if match is None:
        return None
    names = {match.side_of(seat): seat.nickname for seat in room.seats.all()}
    found = match_dice(match)
    return table(
        [
            {"label": names.get(0, ""), **found["sides"][0]},
            {"label": names.get(1, ""), **found["sides"][1]},
            {"label": str(_("Todas, con la salida")), **found["all"]},
        ]
    )


def player_table(user: User, name: str) -> dict[str, Any] | None:
    """A player's career dice table, their column named ``name``; None before their first roll."""
    stats = player_dice(user)
    if not stats["rolls"]:
        return None
    return table([{"label": name, **stats}])
