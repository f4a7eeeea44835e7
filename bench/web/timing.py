"""Server-Timing for `make load` only (bench/web/settings.py): how long Django took,
and what of it was the request's own CPU and its wait on the database.

The load generator shares the machine's two cores with the server, so the time
it measures from sending an action to reading its answer includes its own
event loop's lag. Each answer here says what the server spent on it, from the
first middleware in to the last out (`Server-Timing: app;dur=<ms>`, the W3C
header browsers' devtools show); the report gives both. Beside it `cpu;dur=`
is the CPU its thread used meanwhile (time.thread_time), `db;dur=` the wall
time of its queries (execute_wrapper, from sending each to its rows read) and
`pool;dur=` the wait for a connection (Django's connect(), which with
DB_POOL_MAX is the pool's getconn: a queue when the process's threads want more
connections than the pool lends). What is left of `app` is waiting for the core
or the GIL.
Not in the site's settings: the production answer tells nobody how long it took.
"""

import time
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.http import HttpRequest, HttpResponse


class ServerTimingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        in_queries = [0.0]

        def timed(execute: Callable[..., Any], *args: Any) -> Any:
            began = time.perf_counter()
            try:
                return execute(*args)
            finally:
                in_queries[0] += time.perf_counter() - began

        in_pool = [0.0]
        # This thread's own connection object: its connect() is timed for this request.
        own = connections[DEFAULT_DB_ALIAS]
        connect = own.connect

        def timed_connect() -> None:
            began = time.perf_counter()
            try:
                connect()
            finally:
                in_pool[0] += time.perf_counter() - began

        own.connect = timed_connect  # type: ignore[method-assign]
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            with connection.execute_wrapper(timed):
                response = self.get_response(request)
        finally:
            del own.connect  # the class's own again
        took, cpu = time.perf_counter() - started, time.thread_time() - cpu
        metrics = {"app": took, "cpu": cpu, "db": in_queries[0], "pool": in_pool[0]}
        response["Server-Timing"] = ", ".join(
            f"{name};dur={seconds * 1000:.1f}" for name, seconds in metrics.items()
        )
        return response
