"""Errors that never reach a view, answered in JSON under /api/.

Django turns an exception raised anywhere in a request (a view, a middleware
reading the body, the URL resolver) into a response through its handler400,
403, 404 and 500 views. config/urls.py points them here, so a client of the
JSON API reads {"error": {"code", "message"}} for every failure, whatever
raised it: a body over DATA_UPLOAD_MAX_MEMORY_SIZE, a multipart body without
its boundary, a path that names nothing (/api/ itself), an unexpected bug.
Pages keep Django's own handlers and the site's 404.html.

The database away: a restarted or stopped PostgreSQL, a backend terminated
under the request, a statement timeout, a connection that broke. Django raises
OperationalError or InterfaceError, and left alone each was a 500 with a
traceback in the log (214 of them in one restart). They are answered 503
with `Retry-After` (settings.UNAVAILABLE_RETRY_AFTER): JSON under /api/ in the
player's language, templates/503.html elsewhere, rendered without the request
context (the header's context processors would ask the database again). The
log gets one line per process every 30 seconds saying how many it left out
(games.lib.outage), not a traceback per request. A view's error reaches
`DatabaseUnavailableMiddleware`; one raised in a middleware (the session read
for the user, say) reaches `server_error`. Django drops a connection that
failed at the request's end, and CONN_HEALTH_CHECKS tests a kept one before
use, so the first request after the database is back connects by itself.

The answer never says a move failed: when the connection died during COMMIT
nobody knows whether it was saved. It says the games cannot be reached now
and the board will show whether the move was kept; the board reads the state
again (docs/API.md), and a move sent again carries the old version and is
refused as stale, never played twice.
"""

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import Promise
from django.views import defaults

from games.lib.errors import RequestError, public_message
from games.lib.outage import Outage

log = logging.getLogger(__name__)
database_outage = Outage("the database", log, meanwhile="answering 503")

API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path == API_PREFIX.rstrip("/") or request.path.startswith(API_PREFIX)


def error_payload(code: str, message: str | Promise) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": str(message)}}


def json_error(request: HttpRequest, code: str, status: int) -> JsonResponse:
    # The failure may have happened before LocaleMiddleware chose the language.
    with translation.override(translation.get_language_from_request(request)):
        message = public_message(RequestError(code, status=status))
        response = JsonResponse(error_payload(code, message), status=status)
    response["Content-Language"] = translation.get_language_from_request(request)
    return response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return json_error(request, "too_large", 413)
    return json_error(request, "bad_request", 400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    return json_error(request, "forbidden", 403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.page_not_found(request, exception)
    return json_error(request, "not_found", 404)


def server_error(request: HttpRequest) -> HttpResponse:
    error = sys.exc_info()[1]  # Django calls this inside its except block
    if isinstance(error, OperationalError | InterfaceError):
        return database_unavailable(request, error)
    if not is_api(request):
        return defaults.server_error(request)
    return json_error(request, "server_error", 500)


def database_unavailable(
    request: HttpRequest, error: BaseException, code: str = "unavailable"
) -> HttpResponse:
    """The 503 for a database error, logged once in a while rather than each time.
    `saved_unavailable` when the action was committed and only its answer could not be read."""
    database_outage.failed(error)
    response: HttpResponse
    if is_api(request):
        response = json_error(request, code, 503)
    else:
        language = translation.get_language_from_request(request)
        with translation.override(language):
            page = render_to_string("503.html", {"LANGUAGE_CODE": language})
        response = HttpResponse(page, status=503)
        response["Content-Language"] = language
    response["Retry-After"] = str(settings.UNAVAILABLE_RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    # Django's request log would add an error line with the whole traceback.
    response._has_been_logged = True  # type: ignore[attr-defined] # django.utils.log.log_response reads it
    return response


class DatabaseUnavailableMiddleware:
    """A database error raised in a view becomes the 503 of `database_unavailable`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OperationalError | InterfaceError):
            return database_unavailable(request, exception)
        return None
