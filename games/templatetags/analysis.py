"""Template tags of the analysis after the game (the profile's average PR).

A tag rather than a line in accounts' view, so accounts needs no import of games.
"""

from django import template
from django.contrib.auth.models import User
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.selectors import review

register = template.Library()


@register.simple_tag
def average_pr(user: User) -> dict[str, float | int | None]:
    """{"pr": mean PR or None, "games": how many} over the user's last 50 analysed games."""
    pr, games = review.average_pr(user)
    return {"pr": pr, "games": games, "last": review.RECENT_GAMES}


@register.simple_tag
def cube_errors_text(summary: dict[str, int]) -> str:
    """ "1 error y 2 graves en 3 decisiones": each count with its own plural."""
    errors = summary["cube_errors"]
    blunders = summary["cube_blunders"]
    decisions = summary["cube_decisions"]
    return _("%(errors)s y %(blunders)s en %(decisions)s") % {
        "errors": ngettext("%(n)s error", "%(n)s errores", errors) % {"n": errors},
        "blunders": ngettext("%(n)s grave", "%(n)s graves", blunders) % {"n": blunders},
        "decisions": ngettext("%(n)s decisión", "%(n)s decisiones", decisions) % {"n": decisions},
    }


@register.filter
def signed(value: float | None, digits: int = 3) -> str:
    """A number with its sign, as the page's language writes it: "+0,327", "−1,5"; "—" for None."""
    if value is None:
        return "—"
    text = number_format(abs(value), decimal_pos=digits)
    if round(value, digits) == 0:
        return text
    return ("+" if value > 0 else "−") + text
