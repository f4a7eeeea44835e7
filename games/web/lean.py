"""The state GET's own short way through the middleware: only what its answer needs.

Thousands of open boards and spectators read `GET /api/rooms/<slug>/`, and on a
cache hit the view itself is one indexed query (games.web.state_cache). Around
it the site's thirteen middleware and the URL resolver did work this answer
never uses: WhiteNoise looks for a static file, CommonMiddleware for a missing
slash, the CSRF middleware reads its cookie for a GET it does not check, the
messages' storage is made and saved, axes looks for a login, and the URL is
matched against every pattern before the API's.

This middleware stands after SecurityMiddleware and the database error's 503
and before the rest. A plain state read (GET or HEAD, no query string) goes
from here through what it does need, the same classes the site runs, in the
same order:

- the Content-Security-Policy header, django-csp's, built once per process
  rather than once per answer (a JSON answer takes no nonce and no per-view
  policy; a change of the CSP settings builds it again);
- the Permissions-Policy header;
- the session (games.web.session_middleware), read only when its cookie came:
  the seat a browser holds is in it; it is never written here (nothing in the
  state GET changes it);
- the language, as Django's LocaleMiddleware chooses it (the language cookie,
  else Accept-Language, as on every page; Content-Language and Vary), without
  its language-prefixed URLs, which the site's URL conf does not use
  (PlainLocale; a test holds the URL conf to it);
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
from functools import cache
from typing import Any, cast

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.utils import build_policy
from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.core.signals import setting_changed
from django.db import InterfaceError, OperationalError, connection
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django_permissions_policy import PermissionsPolicyMiddleware

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
            PlainLocale,
            SessionMiddleware,
            PermissionsPolicyMiddleware,
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
            hand_back_pooled_connection()
            if not response.streaming and not response.has_header("Content-Length"):
                response.headers["Content-Length"] = str(len(response.content))
            if not (settings.DEBUG and response.status_code in (404, 500)):  # as django-csp
                for header, value in content_security_policy(request.path_info):
                    response.headers.setdefault(header, value)
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


class PlainLocale:
    """Django's LocaleMiddleware for a URL conf without i18n_patterns, which is the
    site's: the same language and headers, without looking for a language in
    the path twice (20 µs a request instead of 37, docs/LOAD.md)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        translation.activate(translation.get_language_from_request(request))
        request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", translation.get_language())
        return response


def hand_back_pooled_connection() -> None:
    """Give the pool its connection as soon as the answer is made, not after the
    rest of the stack and the writing of the answer (request_finished): three
    connections a process serve twenty threads, and a state GET reads nothing
    more. Only with the pool (a persistent connection would be closed) and
    outside a transaction (a test's)."""
    if (
        getattr(connection, "pool", None) is not None
        and connection.connection is not None
        and not connection.in_atomic_block
    ):
        connection.close()


def content_security_policy(path: str) -> list[tuple[str, str]]:
    """django-csp's headers for an answer of `path` with no nonce and no per-view
    policy: what its middleware builds for the state GET, each time the same."""
    return [
        (header, policy)
        for header, policy, excluded in _policies()
        if not path.startswith(excluded)
    ]


@cache
def _policies() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(header, policy, the path prefixes it is not sent for), built once."""
    found = []
    for header, name, report_only in (
        (HEADER, "CONTENT_SECURITY_POLICY", False),
        (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", True),
    ):
        policy = build_policy(report_only=report_only)
        prefixes = (getattr(settings, name, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
        if policy:
            found.append((header, policy, tuple(prefixes)))
    return tuple(found)


@receiver(setting_changed)
def _policy_changed(setting: str, **kwargs: Any) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _policies.cache_clear()
