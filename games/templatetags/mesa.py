"""Template helpers for the board pages: turn sentences, dice faces, labels.

Every sentence is translatable with Spanish as the source; nothing here knows a
rule of the game, it only puts into words what the turn log says happened.
"""

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

register = template.Library()

DIE_FACES = "⚀⚁⚂⚃⚄⚅"


def describe_turn(turn: dict, name: str, opening: bool = False, names=None) -> str:
    """One line of the move history, e.g. "alice: 24/18 13/10"."""
    kind = turn["kind"]
    dice = turn.get("dice")
    if kind == "roll" and opening and names:
        return _("Salida: %(first)s saca %(a)s, %(second)s saca %(b)s") % {
            "first": names.get(0, "?"),
            "a": dice[0],
            "second": names.get(1, "?"),
            "b": dice[1],
        }
    if kind == "roll":
        words = {"name": name, "a": dice[0], "b": dice[1]}
        if turn.get("blocked"):
            return _("%(name)s saca %(a)s-%(b)s y no puede mover: pasa el turno") % words
        if turn.get("automatic"):
            return _("%(name)s: la mesa tira %(a)s-%(b)s") % words
        return _("%(name)s tira %(a)s-%(b)s") % words
    if kind == "play":
        if not turn.get("notation"):
            return _("%(name)s no puede mover") % {"name": name}
        return _("%(name)s juega %(play)s") % {"name": name, "play": turn["notation"]}
    if kind == "double":
        return _("%(name)s dobla a %(value)s") % {"name": name, "value": turn["cube_value"] * 2}
    if kind == "take":
        value = turn["cube_value"]
        return _("%(name)s acepta el cubo en %(value)s") % {"name": name, "value": value}
    if kind == "beaver":
        # The beaver's cube value is the taken double; the redouble waits for an answer.
        return _("%(name)s acepta y redobla a %(value)s (castor)") % {
            "name": name,
            "value": turn["cube_value"] * 2,
        }
    if kind == "drop":
        return _("%(name)s rechaza el cubo y pierde la partida") % {"name": name}
    if kind == "resign_offer":
        return _("%(name)s ofrece rendirse: %(what)s") % {
            "name": name,
            "what": resign_label(turn.get("value")),
        }
    if kind == "resign_accept":
        return _("%(name)s acepta la rendición") % {"name": name}
    if kind == "resign_decline":
        return _("%(name)s rechaza la rendición y sigue jugando") % {"name": name}
    if kind == "forfeit":
        if turn.get("reason") == "absence":
            return _("%(name)s pierde por ausencia") % {"name": name}
        return _("%(name)s abandona") % {"name": name}
    if kind == "next_game":
        return _("Empieza la partida siguiente")
    if kind == "stop":
        return _("%(name)s da por terminada la sesión") % {"name": name}
    return f"{name}: {kind}"


def resign_label(value) -> str:
    return {
        1: _("partida simple (1)"),
        2: _("gammon (2)"),
        3: _("backgammon (3)"),
    }.get(value, "?")


@register.filter
def die_face(value) -> str:
    """The Unicode die face for 1..6, for sighted readers next to the number."""
    try:
        return DIE_FACES[int(value) - 1]
    except (TypeError, ValueError, IndexError):
        return ""


@register.simple_tag
def point_label(stack, viewer_is_player=False) -> str:
    """Screen-reader label of a point: "Punta 13: 5 fichas tuyas"."""
    number, count, owner = stack["number"], stack["count"], stack["owner"]
    if not count:
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
def stack_label(stack, where) -> str:
    """Label of the bar or a tray: "Barra: 1 ficha de bob"."""
    count, owner = stack["count"], stack["owner"]
    if owner["is_you"]:
        whose = ngettext("%(count)s ficha tuya", "%(count)s fichas tuyas", count)
    else:
        whose = ngettext("%(count)s ficha de %(name)s", "%(count)s fichas de %(name)s", count)
    place = _("Barra") if where == "bar" else _("Fuera del tablero")
    return f"{place}: {whose % {'count': count, 'name': owner['name']}}"


@register.simple_tag(takes_context=True)
def phase_text(context, match, turn_player) -> str:
    """What the table is waiting for, or how it ended, in a sentence."""
    name = turn_player["nickname"] if turn_player else ""
    phase = match["phase"]
    if match["status"] == "finished" or phase == "match_over":
        return match_result(match, context.get("players", []))
    if phase == "game_over":
        game = match.get("game") or {}
        winner = _player_of_side(context.get("players", []), game.get("winner"))
        if winner is None:
            return _("La partida terminó. Pueden jugar otra o parar la sesión.")
        points = game.get("points") or 0
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
def parse_iso(value):
    """The ISO 8601 times of the state dict, as datetimes for |timesince and |date."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None


def _player_of_side(players, side):
    return next((p for p in players if side is not None and p.get("side") == side), None)


def match_result(match, players) -> str:
    """The end of a match: who won, and the score when there was one."""
    if match["format"] == "session" and len(players) == 2 and "score" in players[0]:
        first, second = sorted(players, key=lambda p: p["side"])
        return _("La sesión terminó: %(a)s %(x)s, %(b)s %(y)s.") % {
            "a": first["nickname"],
            "x": first["score"],
            "b": second["nickname"],
            "y": second["score"],
        }
    winner = _player_of_side(players, match.get("winner"))
    loser = _player_of_side(players, None if winner is None else 1 - winner["side"])
    if winner is None or loser is None:
        return _("El encuentro terminó.")
    if match["format"] == "single":
        if winner["is_you"]:
            return _("¡Ganaste la partida!")
        if loser["is_you"]:
            return _("Perdiste: %(name)s ganó la partida.") % {"name": winner["nickname"]}
        return _("%(name)s ganó la partida.") % {"name": winner["nickname"]}
    last = match["history"][-1] if match.get("history") else {}
    if last.get("kind") == "forfeit":
        words = {"name": winner["nickname"], "loser": loser["nickname"]}
        if last.get("reason") == "absence":
            return _("%(name)s ganó el match por ausencia de %(loser)s.") % words
        return _("%(name)s ganó el match: %(loser)s abandonó.") % words
    score = match["score"]
    words = {
        "name": winner["nickname"],
        "won": score[winner["side"]],
        "lost": score[loser["side"]],
    }
    return _("%(name)s ganó el match, %(won)s a %(lost)s.") % words
