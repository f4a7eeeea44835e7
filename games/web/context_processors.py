"""What every page's header needs: how many matches wait for the visitor's move."""

from functools import cache

from games import selectors
from games.web.seats import session_tokens


def waiting_games(request) -> dict:
    """`waiting_count`: matches owing an action from this account or this browser's seats.

    Lazy: a template calls it, so the one query runs only on pages that show
    the number, and once however often they read it.
    """

    @cache
    def count() -> int:
        return selectors.waiting_for_me(getattr(request, "user", None), session_tokens(request))

    return {"waiting_count": count}
