"""Errors that never reach a view, answered in JSON under /api/.

Django turns an exception raised anywhere in a request (a view, a middleware
reading the body, the URL resolver) into a response through its handler400,
403, 404 and 500 views. config/urls.py points them here, so a client of the
JSON API reads {"error": {"code", "message"}} for every failure, whatever
raised it: a body over DATA_UPLOAD_MAX_MEMORY_SIZE, a multipart body without
its boundary, a path that names nothing (/api/ itself), an unexpected bug.
Pages keep Django's own handlers and the site's 404.html.
"""

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.utils.functional import Promise
from django.views import defaults

from games.lib.errors import RequestError, public_message

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
    if not is_api(request):
        return defaults.server_error(request)
    return json_error(request, "server_error", 500)
