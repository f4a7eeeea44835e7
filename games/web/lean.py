"""The state GET's own short way through the middleware: only what its answer needs.

Thousands of open boards and spectators read `GET /api/rooms/<slug>/`, and on a
cache hit the view itself is one indexed query (games.web.state_cache). Around
it the site's thirteen middleware and the URL resolver did work this answer
never uses: WhiteNoise looks for a static file, CommonMiddleware for a missing
slash, the CSRF middleware reads its cookie for a GET it does not check, the
messages' storage is made and saved, axes looks for a login, and the URL is
matched against every pattern before the API's.

This middleware stands after the ones that only add headers to every answer
(security, CSP, permissions policy; a database error's 503 is theirs too) and
before the rest. A plain state read (GET or HEAD, no query string) goes from
here through what it does need, the same classes the site runs, in the same
order:

- the session (games.web.session_middleware), read only when its cookie came:
  the seat a browser holds is in it; it is never written here (nothing in the
  state GET changes it);
- the language (Django's LocaleMiddleware: the language cookie, else
  Accept-Language, as on every page; Content-Language and Vary);
- the account (AuthenticationMiddleware, lazily: read only for a session);
- X-Frame-Options, as on every answer;

then the view, and the Content-Length CommonMiddleware would add. Everything
else, the long poll (`?wait=`) included, takes the whole stack. The answer is
the same, header for header, as through the whole stack
(tests/games/test_lean_state_get.py compares them); MESA_LEAN_STATE_GET =
False turns this off.
"""

import re
from collections.abc import Callable
from typing import cast

from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.locale import LocaleMiddleware

from games.models import ROOM_SLUG_PATTERN
from games.web import api
from games.web.http_errors import database_unavailable
from games.web.session_middleware import SessionMiddleware

STATE_PATH = re.compile(rf"/api/rooms/(?P<slug>{ROOM_SLUG_PATTERN})/\Z")


class LeanStateGetMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response  # the rest of the stack, for every other request
        lean: Callable[[HttpRequest], HttpResponse] = self.view
        for layer in (
            XFrameOptionsMiddleware,
            AuthenticationMiddleware,
            LocaleMiddleware,
            SessionMiddleware,
        ):
            # Sync here (the site's WSGI, and ASGI's sync thread): a response, no coroutine.
            lean = cast(Callable[[HttpRequest], HttpResponse], layer(lean))
        self.lean = lean

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            request.method in ("GET", "HEAD")
            and not request.META.get("QUERY_STRING")
            and STATE_PATH.match(request.path_info)
            and getattr(settings, "MESA_LEAN_STATE_GET", True)
        ):
            response = self.lean(request)
            if not response.streaming and not response.has_header("Content-Length"):
                response.headers["Content-Length"] = str(len(response.content))
            return response
        return self.get_response(request)

    @staticmethod
    def view(request: HttpRequest) -> HttpResponse:
        found = STATE_PATH.match(request.path_info)
        assert found is not None  # __call__ matched it
        try:
            return api.room_state(request, found["slug"])
        except (OperationalError, InterfaceError) as error:
            # DatabaseUnavailableMiddleware's process_exception on the whole stack.
            return database_unavailable(request, error)
