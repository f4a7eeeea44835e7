"""Read side of the analysis after the game: the review page's data and the PR figures.

Nothing here writes (games.services.analysis does), and nothing here imports
the writes: which analyses are current is games.lib.evaluator's. Positions for the board
are given from side 0's chair, like a spectator's board: `me` is side 0.
"""

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from django.contrib.auth.models import User
from django.db.models import JSONField, OuterRef, QuerySet, Subquery
from django.utils.translation import gettext_lazy as _

from games import analysis
from games.engine import Position
from games.lib import evaluator
from games.models import Game, GameAnalysis, Match, Room, Seat, Turn, TurnAnalysis

THRESHOLDS = {"doubtful": analysis.DOUBTFUL, "error": analysis.ERROR, "blunder": analysis.BLUNDER}
RECENT_GAMES = 50  # the profile's average PR covers this many analysed games

# A cube decision in words: the analysis stores its kind ("no_double"), a player reads this.
DECISION_WORDS = {
    "no_double": _("no dobla"),
    "double": _("dobla"),
    "take": _("acepta"),
    "drop": _("rechaza"),
    "beaver": _("castor"),
}


def decision_text(code: str) -> str:
    """A cube decision's kind in the request's language; a play's notation as it is."""
    word = DECISION_WORDS.get(code)
    return str(word) if word is not None else code


def dice_text(dice: Sequence[int]) -> str:
    """A roll as players write it, the higher die first: "5-1"."""
    high, low = sorted(dice, reverse=True)
    return f"{high}-{low}"


def pr_shown(summary: dict[str, Any]) -> float | None:
    """A player's PR, or None when they made no unforced decision (no "PR 0,0" then)."""
    return summary["pr"] if summary.get("decisions") else None


def current_analyses(games: Iterable[Game]) -> dict[int, GameAnalysis]:
    """The analysis of each game with the evaluator's current settings, by game id (one query)."""
    rows = GameAnalysis.objects.filter(game__in=list(games), version=evaluator.current_version())
    return {row.game_id: row for row in rows}


def shown_analyses(rows: Iterable[GameAnalysis]) -> dict[int, GameAnalysis]:
    """Of these rows, the one whose figures each game's pages show, by game id: the
    full pass's when it is DONE, else the quick first pass's (games.services.analysis
    runs_quick) when that is. A game with neither is left out."""
    full, quick = evaluator.current_version(), evaluator.quick_version()
    shown: dict[int, GameAnalysis] = {}
    for row in rows:
        if row.status != GameAnalysis.Status.DONE or row.version not in (full, quick):
            continue
        if row.version == full or row.game_id not in shown:
            shown[row.game_id] = row
    return shown


def done_rows() -> "QuerySet[GameAnalysis]":
    """The DONE rows the pages may show: the full pass's and the quick pass's."""
    return GameAnalysis.objects.filter(
        version__in=[evaluator.current_version(), evaluator.quick_version()],
        status=GameAnalysis.Status.DONE,
    )


class _AnalysisColumns(TypedDict):
    analysis_status: str | None
    analysis_summary: Any  # GameAnalysis.summary, a JSONField: [{"pr": ..., ...}, {...}]
    quick_summary: Any  # the quick pass's, DONE: shown until the full one is done


if TYPE_CHECKING:
    # For mypy only: at run time WithAnnotations takes one type parameter, not two.
    from django_stubs_ext import WithAnnotations

    AnalysedGame = WithAnnotations[Game, _AnalysisColumns]


class AnalysisLine(TypedDict):
    """One finished game's analysis in the room state."""

    game: int
    status: str | None  # the full pass's
    pr: list[float | None]
    quick: bool  # the PRs are the quick first pass's: the full analysis follows


def with_analysis(games: QuerySet[Game]) -> "QuerySet[AnalysedGame]":
    """Games annotated with their current analysis's status and summary, and their
    quick pass's summary if it is done: no query of its own."""
    rows = GameAnalysis.objects.filter(game=OuterRef("pk"), version=evaluator.current_version())
    quick = GameAnalysis.objects.filter(
        game=OuterRef("pk"), version=evaluator.quick_version(), status=GameAnalysis.Status.DONE
    )
    return games.annotate(
        analysis_status=Subquery(rows.values("status")[:1]),
        analysis_summary=Subquery(rows.values("summary")[:1], output_field=JSONField()),
        quick_summary=Subquery(quick.values("summary")[:1], output_field=JSONField()),
    )


def games_analysis(games: "Sequence[AnalysedGame]") -> list[AnalysisLine]:
    """For the room state: each finished game's analysis status and both players' PR,
    the quick pass's until the full one is done.

    ``games`` come from ``with_analysis``.
    """
    lines: list[AnalysisLine] = []
    for game in games:
        if game.status != Game.Status.FINISHED:
            continue
        status, summary = game.analysis_status, game.analysis_summary
        done = bool(status == GameAnalysis.Status.DONE and summary)
        quick = not done and bool(game.quick_summary)
        shown = summary if done else game.quick_summary if quick else None
        lines.append(
            {
                "game": game.number,
                "status": status,
                "pr": [pr_shown(shown[0]), pr_shown(shown[1])] if shown else [None, None],
                "quick": quick,
            }
        )
    return lines


def page_context(room: Room, game: Game, seat: Seat | None) -> dict[str, object]:
    """What templates/games/review.html shows of a finished game, for a seat or a spectator."""
    row = current_analyses([game]).get(game.pk)
    status = row.status if row is not None else None
    # The full pass's figures, or its quick first pass's until it is done.
    done_row = shown_analyses(done_rows().filter(game=game)).get(game.pk)
    done = done_row is not None
    summary = done_row.summary if done_row is not None else None
    match = game.match
    names = {match.side_of(s): s.nickname for s in room.seats.all()}  # rematches swap sides
    waiting = (GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING)
    summaries = (
        [
            {
                "side": side,
                "name": names.get(side, ""),
                **summary[side],
                "pr": pr_shown(summary[side]),
            }
            for side in (0, 1)
        ]
        if summary is not None
        else []
    )
    return {
        "room": room,
        "game": game,
        "match": match,
        "analysis": row,
        "done": done,
        "quick": done_row is not None and done_row.version == evaluator.quick_version(),
        "running": status in waiting,
        # A finished game is queued by itself; a seat may ask for a missing or failed one.
        "can_request": seat is not None and status in (None, GameAnalysis.Status.FAILED),
        "summaries": summaries,
        # A partida simple has no cube: no column of cube errors for it.
        "has_cube": match.room.rules.get("format") != "single"
        or any(s["cube_decisions"] for s in summaries),
        "review": {
            "steps": review_steps(done_row) if done_row is not None else [],
            "names": [names.get(0, ""), names.get(1, "")],
            "thresholds": THRESHOLDS,
        },
        "thresholds": THRESHOLDS,
    }


def review_steps(row: GameAnalysis) -> list[dict[str, object]]:
    """The review's steps: each rated decision with the boards of the played and best choice."""
    turns = (
        TurnAnalysis.objects.filter(analysis=row).select_related("turn").order_by("turn__number")
    )
    # A play's dice are on the roll turn before it (its own row keeps only the steps).
    rolls = Turn.objects.filter(game_id=row.game_id, kind="roll").values_list("number", "dice")
    dice_before = sorted(rolls)
    steps = []
    for rated in turns:
        if rated.kind == "no_double" and not rated.counted:
            continue  # a quiet roll: nothing was close to a double
        dice = rated.turn.dice
        if rated.kind == "play" and not dice:
            dice = next((d for n, d in reversed(dice_before) if n < rated.turn.number), None)
        steps.append(_step(rated, dice))
    return steps


def _step(rated: TurnAnalysis, dice: list[int] | None) -> dict[str, object]:
    turn = rated.turn
    before = Position.from_position_id(turn.position_before)  # the mover's chair
    step: dict[str, object] = {
        "turn": turn.number,
        "side": rated.side,
        "kind": rated.kind,
        "dice": dice if rated.kind == "play" else None,
        "dice_text": dice_text(dice) if rated.kind == "play" and dice else None,
        "played": turn.notation if rated.kind == "play" else rated.kind,
        "best": rated.best,
        "played_text": decision_text(turn.notation if rated.kind == "play" else rated.kind),
        "best_text": decision_text(rated.best),
        "played_equity": rated.played_equity,
        "best_equity": rated.best_equity,
        "loss": rated.loss,
        "mark": rated.mark,
        "forced": rated.forced,
        "counted": rated.counted,
        "alternatives": rated.alternatives,
        "cube": rated.cube,
        "cube_value": turn.cube_value,
        "before": _seen_by_side0(before, rated.side),
    }
    if rated.kind == "play":
        played = tuple(tuple(s) for s in turn.steps or ())
        step["played_steps"] = _steps_for_side0(played, rated.side)
        step["after_played"] = _seen_by_side0(before.apply(played), rated.side)
        if rated.best_steps is not None:
            best = tuple(tuple(s) for s in rated.best_steps)
            step["best_steps"] = _steps_for_side0(best, rated.side)
            step["after_best"] = _seen_by_side0(before.apply(best), rated.side)
    return step


def _seen_by_side0(position: Position, mover: int) -> dict[str, list[int]]:
    seen = position if mover == 0 else position.flip()
    return {"me": list(seen.me), "them": list(seen.them)}


def _steps_for_side0(play: Sequence[Sequence[int]], mover: int) -> list[list[int]]:
    if mover == 0:
        return [list(step) for step in play]
    return [[_other(src), _other(dst)] for src, dst in play]


def _other(point: int) -> int:
    return point if point in (0, 25) else 25 - point


def average_pr(user: User, last: int = RECENT_GAMES) -> tuple[float | None, int]:
    """The user's mean PR over their last ``last`` analysed games, and how many there were."""
    seats = Seat.objects.filter(user=user).values_list("room_id", "number")
    seat_number = dict(seats)
    rows = (
        GameAnalysis.objects.filter(
            game__match__room_id__in=list(seat_number),
            version=evaluator.current_version(),
            status=GameAnalysis.Status.DONE,
        )
        .select_related("game__match")
        .order_by("-finished_at")[:last]
    )
    prs: list[float] = []
    for row in rows:
        match = row.game.match
        side = 0 if match.side0_seat_number == seat_number[match.room_id] else 1
        pr = row.pr_of(side)  # a number: the row is done, with a summary
        if row.summary and row.summary[side]["decisions"] and pr is not None:
            prs.append(pr)
    return (sum(prs) / len(prs) if prs else None), len(prs)


def match_prs(matches: Iterable[Match]) -> dict[int, dict[int, list[float | None]]]:
    """{match id: {game number: [PR side 0, PR side 1]}} for analysed games (one query)."""
    rows = GameAnalysis.objects.filter(
        game__match__in=[m.pk for m in matches],
        version=evaluator.current_version(),
        status=GameAnalysis.Status.DONE,
    ).select_related("game")
    found: dict[int, dict[int, list[float | None]]] = {}
    for row in rows:
        found.setdefault(row.game.match_id, {})[row.game.number] = [row.pr_of(0), row.pr_of(1)]
    return found


class SeatPR(TypedDict):
    game: int
    mine: float | None
    theirs: float | None


def seat_prs(
    prs: dict[int, dict[int, list[float | None]]], match: Match | None, seat: Seat
) -> list[SeatPR]:
    """For Mis partidas: each analysed game of the match, the seat's PR and the opponent's."""
    if match is None:
        return []
    mine = match.side_of(seat)
    games = prs.get(match.pk, {})
    return [
        {"game": n, "mine": pr[mine], "theirs": pr[1 - mine]} for n, pr in sorted(games.items())
    ]
