"""The move history in words: the only place that writes its sentences.

Both boards read them from here, in the request's language. The form board
(and a past match's page) lists one sentence per turn ("bob tira 6-4", "bob
juega 24/18 13/9"); the SVG board numbers its score sheet by move and writes
a roll together with the play that used it ("bob 64: 24/18 13/9"), so the
state JSON carries that line on each history entry and the script only lays
the lines out. Nothing here knows a rule of the game.
"""

from typing import NotRequired, TypedDict

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import CONDITIONAL, FORCED, ActionKind


class HistoryEntry(TypedDict):
    """One turn of the room state's history (games.selectors.board)."""

    game: int
    number: int
    side: int
    kind: str
    automatic: bool
    dice: list[int] | None
    notation: str
    steps: list[list[int]] | None
    blocked: bool
    value: int | None
    reason: str | None
    cube_value: int
    at: str | None
    plays_written: int | None  # a cond_plays note: how many rolls it writes
    # Written by sheet_lines.
    opening: NotRequired[bool]
    text: NotRequired[str | None]


class _SheetGame(TypedDict):
    opening: bool
    dice: list[int] | None


def describe_turn(
    turn: HistoryEntry, name: str, opening: bool = False, names: dict[int, str] | None = None
) -> str:
    """One line of the move history, e.g. "alice: 24/18 13/10"."""
    kind = turn["kind"]
    dice = turn.get("dice")
    if kind == ActionKind.ROLL:
        assert dice is not None, "a roll always records its dice"
        if opening and names:
            return _("Salida: %(first)s saca %(a)s, %(second)s saca %(b)s") % {
                "first": names.get(0, "?"),
                "a": dice[0],
                "second": names.get(1, "?"),
                "b": dice[1],
            }
        high, low = sorted(dice, reverse=True)  # players say the higher die first
        words = {"name": name, "a": high, "b": low}
        if turn.get("blocked"):
            return _("%(name)s saca %(a)s-%(b)s y no puede mover: pasa el turno") % words
        if turn.get("automatic"):
            return _("%(name)s: la mesa tira %(a)s-%(b)s") % words
        return _("%(name)s tira %(a)s-%(b)s") % words
    if kind == ActionKind.PLAY:
        if not turn.get("notation"):
            return _("%(name)s no puede mover") % {"name": name}
        words = {"name": name, "play": turn["notation"]}
        if turn.get("reason") == FORCED:
            return _("%(name)s juega %(play)s: era la única jugada, la mesa la juega") % words
        if turn.get("reason") == CONDITIONAL:
            return _("%(name)s juega %(play)s, como lo dejó escrito") % words
        return _("%(name)s juega %(play)s") % words
    if kind == ActionKind.DOUBLE:
        return _("%(name)s dobla a %(value)s") % {"name": name, "value": turn["cube_value"] * 2}
    if kind == ActionKind.TAKE:
        words = {"name": name, "value": turn["cube_value"]}
        if turn.get("reason") == CONDITIONAL:
            return _("%(name)s acepta el cubo en %(value)s, como lo dejó escrito") % words
        return _("%(name)s acepta el cubo en %(value)s") % words
    if kind == ActionKind.BEAVER:
        # The beaver's cube value is the taken double; the redouble waits for an answer.
        if turn.get("reason") == CONDITIONAL:
            return _("%(name)s acepta y redobla a %(value)s (castor), como lo dejó escrito") % {
                "name": name,
                "value": turn["cube_value"] * 2,
            }
        return _("%(name)s acepta y redobla a %(value)s (castor)") % {
            "name": name,
            "value": turn["cube_value"] * 2,
        }
    if kind == ActionKind.DROP:
        if turn.get("reason") == CONDITIONAL:
            return _("%(name)s rechaza el cubo, como lo dejó escrito, y pierde la partida") % {
                "name": name
            }
        return _("%(name)s rechaza el cubo y pierde la partida") % {"name": name}
    if kind == ActionKind.CONDITIONAL_ANSWER:
        answer = {
            "take": _("aceptar"),
            "drop": _("rechazar"),
            "beaver": _("aceptar y redoblar (castor)"),
        }.get(turn.get("reason") or "")
        if answer is None:
            return _("%(name)s borra su respuesta escrita al cubo") % {"name": name}
        return _("%(name)s deja escrito qué hacer si le doblan: %(answer)s") % {
            "name": name,
            "answer": answer,
        }
    if kind == ActionKind.CONDITIONAL_PLAYS:
        count = turn.get("plays_written") or 0
        if not count:
            return _("%(name)s borra sus jugadas escritas") % {"name": name}
        return ngettext(
            "%(name)s deja escrita su jugada para %(count)s tirada",
            "%(name)s deja escritas sus jugadas para %(count)s tiradas",
            count,
        ) % {"name": name, "count": count}
    if kind == ActionKind.RESIGN_OFFER:
        return _("%(name)s ofrece rendirse: %(what)s") % {
            "name": name,
            "what": resign_label(turn.get("value"), turn.get("cube_value") or 1),
        }
    if kind == ActionKind.RESIGN_ACCEPT:
        return _("%(name)s acepta la rendición") % {"name": name}
    if kind == ActionKind.RESIGN_DECLINE:
        return _("%(name)s rechaza la rendición y sigue jugando") % {"name": name}
    if kind == ActionKind.FORFEIT:
        if turn.get("reason") == "absence":
            return _("%(name)s pierde por ausencia") % {"name": name}
        return _("%(name)s abandona") % {"name": name}
    if kind == ActionKind.NEXT_GAME:
        return _("Empieza la partida siguiente")
    if kind == ActionKind.STOP:
        return _("%(name)s da por terminada la sesión") % {"name": name}
    return f"{name}: {kind}"


def resign_label(value: int | None, cube_value: int = 1) -> str:
    """The kind of game offered, and the cube it counts with once turned: the
    points themselves are the engine's, shown where the offer is answered."""
    kinds: dict[int | None, str] = {
        1: _("partida simple"),
        2: _("gammon"),
        3: _("backgammon"),
    }
    kind = kinds.get(value, "?")
    if cube_value > 1:
        return _("%(kind)s, con el cubo en %(cube)s") % {"kind": kind, "cube": cube_value}
    return kind


def dice_word(dice: list[int] | tuple[int, ...]) -> str:
    """Dice as the notation writes them: the higher first, "65", "66"."""
    return "".join(str(die) for die in sorted(dice, reverse=True))


def sheet_lines(history: list[HistoryEntry], names: dict[int, str]) -> None:
    """Write on each entry of the state's history its line on the score sheet.

    `text` is the line, or None for a roll that the play after it writes
    ("alice 31: 8/5 6/5"). `opening` marks the opening rolls, which stand
    before the numbered moves (a tie rolls again, so there may be several).
    """
    games: dict[int, _SheetGame] = {}  # game number -> {"opening": bool, "dice": last roll}
    for turn in history:
        game = games.setdefault(turn["game"], {"opening": True, "dice": None})
        name = names.get(turn["side"], "?")
        turn["opening"] = game["opening"] and turn["kind"] == ActionKind.ROLL
        turn["text"] = _sheet_line(turn, name, game, names)


def _sheet_line(
    turn: HistoryEntry, name: str, game: _SheetGame, names: dict[int, str]
) -> str | None:
    if turn["kind"] == ActionKind.ROLL:
        dice = game["dice"] = turn["dice"]
        assert dice is not None, "a roll always records its dice"
        if turn["opening"]:
            game["opening"] = dice[0] == dice[1]
            return describe_turn(turn, name, opening=True, names=names)
        if not turn.get("blocked"):
            return None
        return _play_line(name, turn["dice"], "")
    if turn["kind"] == ActionKind.PLAY:
        return _play_line(name, game["dice"], turn.get("notation"), turn.get("reason"))
    return describe_turn(turn, name)


def _play_line(
    name: str, dice: list[int] | None, notation: str | None, reason: str | None = None
) -> str:
    line = _("{name} {dice}: {play}").format(
        name=name, dice=dice_word(dice) if dice else "", play=notation or _("no puede mover")
    )
    # Say on the score sheet too when the table played it for the player.
    if reason == FORCED:
        return _("{line} (forzada)").format(line=line)
    if reason == CONDITIONAL:
        return _("{line} (escrita)").format(line=line)
    return line
