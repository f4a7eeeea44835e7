"""Server-Timing for `make load` only (bench/web/settings.py): how long Django took.

The load generator shares the machine's two cores with the server, so the time
it measures from sending an action to reading its answer includes its own
event loop's lag. Each answer here says what the server spent on it, from the
first middleware in to the last out (`Server-Timing: app;dur=<ms>`, the W3C
header browsers' devtools show); the report gives both. Not in the site's
settings: the production answer tells nobody how long it took.
"""

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class ServerTimingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        response["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
        return response
