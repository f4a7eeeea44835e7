"""The board's words that change with a number, for static/js/board/texts.js, and
the URLs it talks to.

The script picks "one" or "other" with Intl.PluralRules; the forms come from
the catalogs' ngettext entries, so "1 punto" / "2 puntos" and "1 point" /
"2 points" are translated like every other text. (Spanish and English have
these two categories; a language with more would need a form per category.)
"""

import time
from collections.abc import Callable
from typing import Any

from django import template
from django.urls import reverse
from django.utils.http import http_date
from django.utils.translation import gettext, ngettext

from games.services import live

register = template.Library()


@register.simple_tag
def board_config(slug: str) -> dict[str, str | None]:
    """The board's URLs (static/js/types.js BoardConfig); `channelUrl`, where it waits
    for its room's next change, only where nginx holds the waits (LIVE_NCHAN_URL),
    and `channelSince`, the first wait's starting point (static/js/channel.js): a
    second before now, when the page's state is read (a message of the same second
    comes at once: a read too many rather than a move missed)."""
    channel = live.channel_url(slug)
    # nginx's clock, not the game's (games.lib.clock, which tests move): nchan
    # stamps its messages with the machine's time.
    since = http_date(time.time() - 1) if channel else None
    return {
        "stateUrl": reverse("games:api_state", args=[slug]),
        "stepsUrl": reverse("games:api_steps", args=[slug]),
        "actionUrl": reverse("games:api_action", args=[slug, "__action__"]),
        "reviewUrl": reverse("games:review", args=[slug, 90001, 90002]),
        "channelUrl": channel,
        "channelSince": since,
    }


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
