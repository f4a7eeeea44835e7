"""Template helpers for the board pages: dice faces, labels, phase and result texts.

Every sentence is translatable with Spanish as the source; nothing here knows a
rule of the game, it only puts into words what the turn log says happened.
"""

from collections.abc import Sequence
from datetime import UTC, datetime

from django import template
from django.utils import formats, timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.selectors.board import MatchView
from games.web.presenters import PlayerEntry, Stack

# The history's sentences are written in games.selectors.history, for both boards;
# read here by presenters.

register = template.Library()

DIE_FACES = "⚀⚁⚂⚃⚄⚅"


@register.filter
def die_face(value: int | str) -> str:
    """The Unicode die face for 1..6, for sighted readers next to the number."""
    try:
        return DIE_FACES[int(value) - 1]
    except (TypeError, ValueError, IndexError):
        return ""


@register.simple_tag
def point_label(stack: Stack, viewer_is_player: bool = False) -> str:
    """Screen-reader label of a point: "Punta 13: 5 fichas tuyas"."""
    number, count, owner = stack["number"], stack["count"], stack["owner"]
    if not count or owner is None:  # a stack with checkers has their owner
        return _("Punta %(number)s: vacía") % {"number": number}
    if owner["is_you"]:
        whose = ngettext("%(count)s ficha tuya", "%(count)s fichas tuyas", count)
    else:
        whose = ngettext("%(count)s ficha de %(name)s", "%(count)s fichas de %(name)s", count)
    return _("Punta %(number)s: %(checkers)s") % {
        "number": number,
        "checkers": whose % {"count": count, "name": owner["name"]},
    }


@register.simple_tag
def stack_label(stack: Stack, where: str) -> str:
    """Label of the bar or a tray: "Barra: 1 ficha de bob"."""
    count, owner = stack["count"], stack["owner"]
    assert owner is not None  # the bar and the trays always have theirs
    if owner["is_you"]:
        whose = ngettext("%(count)s ficha tuya", "%(count)s fichas tuyas", count)
    else:
        whose = ngettext("%(count)s ficha de %(name)s", "%(count)s fichas de %(name)s", count)
    place = _("Barra") if where == "bar" else _("Fuera del tablero")
    return f"{place}: {whose % {'count': count, 'name': owner['name']}}"


@register.simple_tag(takes_context=True)
def phase_text(context: template.Context, match: MatchView, turn_player: PlayerEntry | None) -> str:
    """What the table is waiting for, or how it ended, in a sentence."""
    name = turn_player["nickname"] if turn_player else ""
    phase = match["phase"]
    players: Sequence[PlayerEntry] = context.get("players") or []
    if match["status"] == "finished" or phase == "match_over":
        return match_result(match, players)
    if phase == "game_over":
        game = match.get("game")
        winner = _player_of_side(players, game["winner"] if game else None)
        if winner is None:
            return _("La partida terminó. Pueden jugar otra o parar la sesión.")
        points = (game["points"] if game else None) or 0
        worth = ngettext("%(count)s punto", "%(count)s puntos", points) % {"count": points}
        return _("%(name)s ganó la partida: %(points)s. Pueden jugar otra o parar la sesión.") % {
            "name": winner["nickname"],
            "points": worth,
        }
    you = bool(turn_player and turn_player["is_you"])
    texts = {
        "roll": (_("Te toca: dobla o tira los dados."), _("Le toca a %(name)s: doblar o tirar.")),
        "move": (_("Te toca mover."), _("Le toca mover a %(name)s.")),
        "doubled": (
            _("Te doblaron: acepta o rechaza el cubo."),
            _("%(name)s decide si acepta el cubo."),
        ),
        "resign_offered": (
            _("Tu rival ofrece rendirse: acepta o sigue jugando."),
            _("%(name)s decide si acepta la rendición."),
        ),
        "opening": (_("La mesa tira la salida."), _("La mesa tira la salida.")),
    }
    mine, theirs = texts.get(phase, ("", ""))
    return str(mine) if you else theirs % {"name": name}


@register.filter
def moment(value: datetime | None) -> str:
    """A moment as every page writes it: <time data-moment>, which static/js/moments.js
    rewrites in the reader's language and time zone; without a script, UTC says so."""
    if value is None:
        return ""
    with timezone.override(UTC):
        fallback = formats.date_format(value, "DATETIME_FORMAT")
    return format_html(
        '<time datetime="{}" data-moment>{} (UTC)</time>', value.isoformat(), fallback
    )


@register.filter
def parse_iso(value: str) -> datetime | None:
    """The ISO 8601 times of the state dict, as datetimes for |timesince and |date."""
    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None


def _player_of_side(players: Sequence[PlayerEntry], side: int | None) -> PlayerEntry | None:
    return next((p for p in players if side is not None and p.get("side") == side), None)


def match_result(match: MatchView, players: Sequence[PlayerEntry]) -> str:
    """The end of a match: who won, and the score when there was one."""
    if match.get("end_reason") in ("resign", "absence") and match.get("outcome"):
        # Who gave it up, the score then, what the winner got: the one sentence.
        return match["outcome"] or ""
    if match["format"] == "session" and len(players) == 2 and "score" in players[0]:
        first, second = sorted(players, key=lambda p: p["side"] or 0)  # both seated
        return _("La sesión terminó: %(a)s %(x)s, %(b)s %(y)s.") % {
            "a": first["nickname"],
            "x": first["score"],
            "b": second["nickname"],
            "y": second["score"],
        }
    won = match.get("winner")
    winner = _player_of_side(players, won)
    loser = _player_of_side(players, None if won is None else 1 - won)
    if won is None or winner is None or loser is None:
        return _("El encuentro terminó.")
    if match["format"] == "single":
        if winner["is_you"]:
            return _("¡Ganaste la partida!")
        if loser["is_you"]:
            return _("Perdiste: %(name)s ganó la partida.") % {"name": winner["nickname"]}
        return _("%(name)s ganó la partida.") % {"name": winner["nickname"]}
    score = match["score"]
    words = {
        "name": winner["nickname"],
        "won": score[won],
        "lost": score[1 - won],
    }
    return _("%(name)s ganó el match, %(won)s a %(lost)s.") % words
