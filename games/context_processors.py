"""What every page's header needs: how many matches wait for the visitor's move."""

from functools import cache

from games import selectors
from games.presenters import SESSION_SEATS


def waiting_games(request) -> dict:
    """`waiting_count`: matches owing an action from this account or this browser's seats.

    Lazy: a template calls it, so the one query runs only on pages that show
    the number, and once however often they read it.
    """

    @cache
    def count() -> int:
        tokens = request.session.get(SESSION_SEATS, {}) if hasattr(request, "session") else {}
        tokens = {slug: token for slug, token in tokens.items() if isinstance(token, str)}
        return selectors.waiting_for_me(getattr(request, "user", None), tokens)

    return {"waiting_count": count}
