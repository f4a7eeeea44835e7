"""Rate limits on what writes: creating rooms, joining them, game actions.

Each kind of request is counted per client address and per session in
Django's cache (accounts.ratelimit.allow, the log-in limit's counter), so
every web worker sees the same counts. The limits live in
settings.MESA_RATE_LIMITS and are generous: a person taking a turn every
second never meets them; a script opening dozens of rooms a second does.
Past a limit the JSON API answers 429 in JSON, the pages a short 429 page;
nothing is written either way.
"""

import hashlib
import secrets
from functools import wraps

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render

from accounts.ratelimit import allow, client_address
from games.lib.errors import RequestError, public_message
from games.web.http_errors import error_payload, is_api

SESSION_ID = "mesa_client"


def within_limits(request, kind: str) -> bool:
    """Count this request of `kind`; False when its address or its session is over a limit."""
    limits = settings.MESA_RATE_LIMITS[kind]
    by_address = allow(f"{kind}:address", client_address(request), **_limit(limits["address"]))
    by_session = allow(f"{kind}:session", session_id(request), **_limit(limits["session"]))
    return by_address and by_session


def session_id(request) -> str:
    """A name for this session that outlives its key: taking a seat cycles the
    session key (games.web.seats.remember_seat), and the count must go on."""
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
    ident = request.session[SESSION_ID] = secrets.token_urlsafe(12)
    return ident


def _limit(pair) -> dict:
    count, seconds = pair
    return {"limit": count, "window": seconds}


def too_many_requests(request, kind: str):
    retry_after = str(max(seconds for _count, seconds in settings.MESA_RATE_LIMITS[kind].values()))
    message = public_message(RequestError("too_many_requests", status=429))
    if is_api(request):
        response = JsonResponse(error_payload("too_many_requests", message), status=429)
    else:
        response = render(request, "games/too_many_requests.html", {"message": message}, status=429)
    response["Retry-After"] = retry_after
    return response


def rate_limited(kind: str):
    """Refuse a POST of `kind` past its limits before the view reads or writes anything."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method == "POST" and not within_limits(request, kind):
                return too_many_requests(request, kind)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
