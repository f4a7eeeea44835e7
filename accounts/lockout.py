"""Log-in lockouts on every way into an account.

django-axes counts failed log-ins per username over every path that calls
`authenticate()` (the site's log-in, the admin's, any later one) and its
backend refuses a locked username before the password is checked; the
numbers are accounts.ratelimit's. The per-address count stays ours
(accounts.ratelimit), because it allows more failures than the per-username
one: several people behind one router mistype too. Both use the client
address of accounts.client.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from . import ratelimit
from .client import client_key


def username(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str:
    """AXES_USERNAME_CALLABLE: one count per username whatever its case."""
    return str((credentials or {}).get("username") or "").strip().lower()


def failure_limit(request: HttpRequest | None, credentials: dict[str, Any] | None) -> int:
    """AXES_FAILURE_LIMIT."""
    return ratelimit.MAX_FAILURES_PER_USERNAME


def cool_off(request: HttpRequest | None = None) -> timedelta:
    """AXES_COOLOFF_TIME: the window of accounts.ratelimit."""
    return timedelta(seconds=ratelimit.WINDOW_SECONDS)


def too_many_attempts_message() -> str:
    return _(
        "Demasiados intentos fallidos. Espera 15 minutos y vuelve a probar, "
        "o recupera tu clave por correo."
    )


def is_blocked(request: HttpRequest, name: str) -> bool:
    """Whether a log-in as `name` from this request must be refused unchecked."""
    if ratelimit.address_is_blocked(client_key(request)):
        return True
    locked: bool = AxesProxyHandler.is_locked(request, {"username": name})  # axes ships no types
    return locked


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the answer to the attempt that locked an account.

    Under /api/ it is the API's JSON 429. A log-in form keeps its own answer
    (the password did not match); the next attempt meets the lock in the
    form, with the sentence above.
    """
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"error": {"code": "too_many_requests", "message": too_many_attempts_message()}},
            status=429,
        )
    elif original_response is not None:
        return original_response
    else:
        response = render(
            request,
            "accounts/locked_out.html",
            {"message": too_many_attempts_message()},
            status=429,
        )
    response["Retry-After"] = str(ratelimit.WINDOW_SECONDS)
    return response


@receiver(user_login_failed)
def count_the_address(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    """Every failed log-in, whichever form it came through, counts for its address."""
    if request is not None:
        ratelimit.login_failed(address=client_key(request))
