"""Read side of the luck of the dice: each player's luck in a game and in its match, the chart.

The analysis task stores each roll's luck with the game's analysis
(GameAnalysis.luck, written by games.services.analysis); this shapes it for
the review page. The chart and its table follow side 0 (the first name),
like the review's boards: their winning chance in a partida simple, their
match-winning chance in a match, their equity in points in a sesión libre.
"""

from collections.abc import Sequence
from typing import Any, TypedDict

from django.utils.translation import gettext_lazy as _

from games import analysis
from games.models import Game, Match, Room, TurnAnalysis

from .review import dice_text, done_rows, shown_analyses

THRESHOLDS = {"lucky": analysis.LUCKY, "very_lucky": analysis.VERY_LUCKY}
MARK_WORDS = {
    "very_lucky": _("muy buena"),
    "lucky": _("buena"),
    "unlucky": _("mala"),
    "very_unlucky": _("muy mala"),
}
BIG_ROLLS = ("very_lucky", "very_unlucky")  # drawn on the chart
ERRORS = ("error", "blunder")  # the decisions drawn on the chart
ERROR_WORDS = {"error": _("error"), "blunder": _("grave")}


class ChartPoint(TypedDict):
    turn: int
    side: int
    dice: str
    y: float  # side 0's standing before the roll, in the chart's scale
    luck: float
    mark: str
    mark_text: str


class Chart(TypedDict):
    scale: str  # "percent" (winning or match-winning chance) or "points"
    points: list[ChartPoint]
    end: float | None  # side 0's standing once the game is over
    errors: list[dict[str, Any]]  # {turn, side, mark}: the decisions marked on the line


def _side0(level: float, side: int, unit: str) -> float:
    """A roller's standing (their view) as side 0's."""
    if side == 0:
        return level
    return 1 - level if unit == "mwc" else -level


def _shown(value: float, unit: str, single: bool) -> float:
    """Side 0's standing on the chart's scale: a chance in percent, or points."""
    if unit == "mwc":
        return round(100 * value, 2)
    if single:
        return round(50 * (value + 1), 2)  # equity 2·P(win) − 1 as P(win)
    return round(value, 4)


def chart(luck: dict[str, Any], single: bool, errors: list[dict[str, Any]]) -> Chart:
    """The chart of one game: side 0's standing at each roll, the big rolls and the errors."""
    unit = luck["unit"]
    points: list[ChartPoint] = [
        {
            "turn": roll["turn"],
            "side": roll["side"],
            "dice": dice_text(roll["dice"]),
            "y": _shown(_side0(roll["level"], roll["side"], unit), unit, single),
            "luck": roll["luck"],
            "mark": roll["mark"],
            "mark_text": str(MARK_WORDS[roll["mark"]]) if roll["mark"] else "",
        }
        for roll in luck["rolls"]
    ]
    end = luck.get("end")
    return {
        "scale": "percent" if unit == "mwc" or single else "points",
        "points": points,
        "end": None if end is None else _shown(end, unit, single),
        "errors": errors,
    }


def match_luck(match: Match) -> list[dict[str, Any]] | None:
    """Each side's luck summed over the match's analysed games; None with fewer than two."""
    # Each game's shown analysis: the luck is measured alike by the quick pass and the full one.
    rows = shown_analyses(done_rows().filter(game__match=match)).values()
    games = [row.luck for row in rows if row.luck]
    if len(games) < 2:
        return None
    totals: list[dict[str, Any]] = []
    for side in (0, 1):
        found: dict[str, Any] = {"games": len(games), "luck": 0.0, "value": 0.0, "rolls": 0}
        results: list[float] = []
        adjusted: list[float] = []
        for luck in games:
            mine = luck["sides"][side]
            found["luck"] += mine["luck"]
            found["value"] += mine["value"]
            found["rolls"] += mine["rolls"]
            if mine["result"] is not None:
                results.append(mine["result"])
                adjusted.append(mine["adjusted"])
        # A result only when every game has one (a game cut short has none).
        complete = len(results) == len(games)
        found["result"] = sum(results) if complete else None
        found["adjusted"] = sum(adjusted) if complete else None
        totals.append(found)
    return totals


def page_luck(room: Room, game: Game) -> dict[str, Any] | None:
    """What the review page shows of the dice's luck; None before the analysis has it."""
    row = shown_analyses(done_rows().filter(game=game)).get(game.pk)
    if row is None or not row.luck:
        return None
    luck: dict[str, Any] = row.luck
    match = game.match
    names = {match.side_of(s): s.nickname for s in room.seats.all()}  # rematches swap sides
    single = room.rules.get("format") == "single"
    errors = [
        {"turn": turn, "side": side, "mark": mark, "mark_text": str(ERROR_WORDS[mark])}
        for turn, side, mark in TurnAnalysis.objects.filter(analysis=row, mark__in=ERRORS)
        .order_by("turn__number")
        .values_list("turn__number", "side", "mark")
    ]
    drawn = chart(luck, single, errors)
    totals = match_luck(match)
    unit = luck["unit"]
    return {
        "unit": unit,
        "single": single,
        "sides": [_shown_side(s, names.get(s, ""), luck["sides"][s], unit) for s in (0, 1)],
        "match": (
            [_shown_side(s, names.get(s, ""), totals[s], unit) for s in (0, 1)] if totals else None
        ),
        "chart": drawn,
        "rows": table_rows(drawn, [names.get(0, ""), names.get(1, "")]),
        "thresholds": THRESHOLDS,
    }


def _shown_side(side: int, name: str, figures: dict[str, Any], unit: str) -> dict[str, Any]:
    """One side's luck for the page: in a match, MWC in percent."""
    factor = 100 if unit == "mwc" else 1

    def shown(value: float | None) -> float | None:
        return None if value is None else value * factor

    return {
        "side": side,
        "name": name,
        **figures,
        "value_shown": shown(figures["value"]),
        "result_shown": shown(figures["result"]),
        "adjusted_shown": shown(figures["adjusted"]),
    }


def table_rows(drawn: Chart, names: Sequence[str]) -> list[dict[str, Any]]:
    """The chart as a table: one row per roll, with the errors made since it."""
    rows: list[dict[str, Any]] = []
    errors = list(drawn["errors"])
    for index, point in enumerate(drawn["points"]):
        following = drawn["points"][index + 1]["turn"] if index + 1 < len(drawn["points"]) else None
        mine = [
            e
            for e in errors
            if e["turn"] >= point["turn"] and (following is None or e["turn"] < following)
        ]
        rows.append(
            {
                **point,
                "name": names[point["side"]],
                "errors": [f"{names[e['side']]}: {e['mark_text']}" for e in mine],
            }
        )
    return rows
