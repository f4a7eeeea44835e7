"""What every page's header needs: how many matches wait for the visitor's move, and
whether the site pushes notifications (then every page registers the service worker)."""

from collections.abc import Callable
from functools import cache

from django.http import HttpRequest

from games import selectors
from games.mail.push import push_enabled
from games.web.seats import session_tokens


def waiting_games(request: HttpRequest) -> dict[str, Callable[[], int]]:
    """`waiting_count`: matches owing an action from this account or this browser's seats.

    Lazy: a template calls it, so the one query runs only on pages that show
    the number, and once however often they read it.
    """

    @cache
    def count() -> int:
        return selectors.waiting_for_me(getattr(request, "user", None), session_tokens(request))

    return {"waiting_count": count}


def push_site(request: HttpRequest) -> dict[str, bool]:
    """`push_site`: the site has a VAPID key pair, so pages register the service worker."""
    return {"push_site": push_enabled()}
