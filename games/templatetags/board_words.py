"""The board's words that change with a number, for static/js/board/texts.js.

The script picks "one" or "other" with Intl.PluralRules; the forms come from
the catalogs' ngettext entries, so "1 punto" / "2 puntos" and "1 point" /
"2 points" are translated like every other text. (Spanish and English have
these two categories; a language with more would need a form per category.)
"""

from collections.abc import Callable
from typing import Any

from django import template
from django.utils.translation import gettext, ngettext

register = template.Library()


def _forms(words: Callable[[int], str]) -> dict[str, str]:
    # `words(n)` calls ngettext with the literal strings, so makemessages finds them.
    return {"one": words(1), "other": words(2)}


@register.simple_tag
def board_plurals() -> dict[str, dict[str, str]]:
    """{key: {one, other}}, each form with a "{count}" placeholder."""
    return {
        "score": _forms(lambda n: ngettext("{count} punto", "{count} puntos", n)),
        "needed": _forms(lambda n: ngettext("le falta {count}", "le faltan {count}", n)),
        "pips": _forms(lambda n: ngettext("{count} pip", "{count} pips", n)),
        "proof_ok": _forms(
            lambda n: ngettext(
                "Comprobado en tu navegador: la semilla da el compromiso publicado y la"
                " tirada de la partida.",
                "Comprobado en tu navegador: la semilla da el compromiso publicado y las"
                " {count} tiradas de la partida, una por una.",
                n,
            )
        ),
        "match_to": _forms(
            lambda n: ngettext("Match a {count} punto", "Match a {count} puntos", n)
        ),
    }


@register.filter
def dice_records(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each game's rolls in order, the opening roll(s) first, from presenters.history_lines:
    what static/js/proof.js compares with the rolls a revealed seed gives."""
    return [
        {
            "game": group["number"],
            "rolls": [
                line["turn"]["dice"] for line in group["turns"] if line["turn"]["kind"] == "roll"
            ],
        }
        for group in history
    ]


@register.simple_tag
def proof_strings() -> dict[str, object]:
    """The words of the in-page dice check (static/js/dice.js), the board's own."""
    return {
        "proof_verify": gettext("Comprobar los dados aquí"),
        "proof_checking": gettext("Comprobando…"),
        "proof_unavailable": gettext(
            "Tu navegador no puede hacer la comprobación aquí: hace falta una conexión segura"
            " (https)."
        ),
        "proof_bad_commitment": gettext("La semilla no da el compromiso publicado."),
        "proof_bad_count": gettext(
            "El registro tiene {recorded} tiradas y la mesa dice que sacó {drawn}."
        ),
        "proof_bad_roll": gettext(
            "La tirada {n} no coincide: el registro dice {recorded} y la semilla da {derived}."
        ),
        "proof_ok": board_plurals()["proof_ok"],
    }
