"""Rate limits on what writes: creating rooms, joining them, game actions.

Each kind of request is counted per client (an address; for IPv6 its /64,
accounts.client.client_key) and per session in
Django's cache (accounts.ratelimit.allow, the log-in limit's counter), so
every web worker sees the same counts. The limits live in
settings.MESA_RATE_LIMITS and are generous: a person taking a turn every
second never meets them; a script opening dozens of rooms a second does.
Past a limit the JSON API answers 429 in JSON, the pages a short 429 page;
nothing is written either way: no count, no session, no row. A request that
comes without a session counts by its address, and its session (if the view
kept one) gets the id it is counted by from then on.

The counts fail open: with Redis away the cache (config/cache.py) answers
every read as empty and every count as the first, so nobody is limited for
the while; with the database cache, a database error after the view wrote
is logged and the answer stands.
"""

import hashlib
import logging
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from accounts.ratelimit import allow_all, client_key
from games.lib.errors import RequestError, public_message
from games.lib.outage import Outage
from games.web.http_errors import error_payload, is_api

SESSION_ID = "mesa_client"

log = logging.getLogger(__name__)
counting_outage = Outage("the rate limits' counter", log, meanwhile="answered without counting")

P = ParamSpec("P")
View = Callable[Concatenate[HttpRequest, P], HttpResponse]


def within_limits(request: HttpRequest, kind: str, ident: str | None) -> bool:
    """Count this request of `kind` (its session named `ident`, see session_id);
    False, with nothing written, when its address or its session is at a limit."""
    limits = settings.MESA_RATE_LIMITS[kind]
    counters = [(f"{kind}:address", client_key(request), *limits["address"])]
    if ident is not None:
        counters.append((f"{kind}:session", ident, *limits["session"]))
    return allow_all(counters)


def session_id(request: HttpRequest) -> str | None:
    """A name for this session that outlives its key, read without writing.

    Taking a seat cycles the session key (games.web.seats.remember_seat), so
    the count goes by an id kept in the session (`count_new_session` stores it
    once a request was answered). A request without a session has none: it
    counts by its address only, and gets one when it is answered.
    """
    ident = request.session.get(SESSION_ID)
    if isinstance(ident, str):
        return ident
    cookie = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if cookie and request.session.session_key is None:
        # Sent with a key the store no longer knows: most often one a seat link
        # of this same browser has just cycled. Writing the id would save a new
        # session whose cookie replaces the browser's newer one, seats and all;
        # count this request under its old key instead.
        return "gone:" + hashlib.sha256(cookie.encode()).hexdigest()[:16]
    if request.session.session_key is not None:
        return "key:" + hashlib.sha256(request.session.session_key.encode()).hexdigest()[:16]
    return None


def count_new_session(request: HttpRequest, kind: str, ident: str | None) -> None:
    """After an answered request, give the session its lasting id, counting
    this request under it if it came without one. Only a session the
    request kept anyway: a refused or rejected request saves none."""
    session = request.session
    if SESSION_ID in session or (ident or "").startswith("gone:"):
        return
    if session.session_key is None and not session.modified:
        return
    if ident is None:
        ident = secrets.token_urlsafe(12)
        limits = settings.MESA_RATE_LIMITS[kind]
        allow_all([(f"{kind}:session", ident, *limits["session"])])
    session[SESSION_ID] = ident


def _limit(pair: tuple[int, int]) -> dict[str, int]:
    count, seconds = pair
    return {"limit": count, "window": seconds}


def too_many_requests(request: HttpRequest, kind: str) -> HttpResponse:
    retry_after = str(max(seconds for _count, seconds in settings.MESA_RATE_LIMITS[kind].values()))
    message = public_message(RequestError("too_many_requests", status=429))
    response: HttpResponse
    if is_api(request):
        response = JsonResponse(error_payload("too_many_requests", message), status=429)
    else:
        response = render(request, "games/too_many_requests.html", {"message": message}, status=429)
    response["Retry-After"] = retry_after
    return response


def rate_limited(kind: str) -> Callable[[View[P]], View[P]]:
    """Refuse a POST of `kind` past its limits before the view reads or writes anything."""

    def decorate(view: View[P]) -> View[P]:
        @wraps(view)
        def wrapper(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
            if request.method != "POST":
                return view(request, *args, **kwargs)
            ident = session_id(request)
            if not within_limits(request, kind, ident):
                return too_many_requests(request, kind)
            response = view(request, *args, **kwargs)
            if response.status_code < 400:
                try:
                    count_new_session(request, kind, ident)
                except DatabaseError as error:  # the database cache, after the view committed
                    counting_outage.failed(error)
            return response

        return wrapper

    return decorate
