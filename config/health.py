"""Liveness and readiness for the orchestrator, the load balancer and the operator.

`/healthz` answers 200 as long as the process serves requests: it touches
nothing, so a database outage never gets healthy web processes restarted.
`/readyz` says whether this process can do its work: the database answers,
every migration is applied, the cache takes a write, the broker accepts a
connection, and the outbox has nothing due for more than five minutes (a
backlog that old means no beat or no broker is publishing). JSON either way,
200 when every check passed, 503 naming what failed.

Why a check failed (its error names hosts, ports, the database's words) is
for the operator: it goes to the log, and into the answer only for a client
in settings.READYZ_DETAIL_NETWORKS (the machine itself by default). Anyone
else reads each check's status and nothing more.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from accounts.client import address_within, client_address

logger = logging.getLogger(__name__)

OUTBOX_BACKLOG_MAX = timedelta(minutes=5)


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _migrations() -> str:
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        raise RuntimeError(f"{len(plan)} migrations not applied")
    return "ok"


def _cache() -> str:
    key, value = "mesa:readyz", secrets.token_hex(8)
    # The site's Redis cache fails open (config/cache.py); here its errors count.
    loudly = getattr(cache, "failing_loudly", contextlib.nullcontext)
    with loudly():
        cache.set(key, value, timeout=30)
        if cache.get(key) != value:
            raise RuntimeError("the cache did not keep a value")
    return "ok"


def _broker() -> str:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=3)
    return "ok"


def _outbox() -> str:
    from games.lib import clock
    from games.models import FollowUp

    oldest = (
        # Not done: unpublished, or published and not run by its re-drive deadline.
        FollowUp.objects.filter(done_at__isnull=True, failed_at__isnull=True)
        .order_by("due_at")
        .values_list("due_at", flat=True)
        .first()
    )
    if oldest is not None and clock.now() - oldest > OUTBOX_BACKLOG_MAX:
        late = int((clock.now() - oldest).total_seconds())
        raise RuntimeError(f"a follow-up has been due for {late} s: is beat or the broker down?")
    return "ok"


CHECKS: dict[str, Callable[[], str]] = {
    "database": _database,
    "migrations": _migrations,
    "cache": _cache,
    "broker": _broker,
    "outbox": _outbox,
}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    results: dict[str, dict[str, object]] = {}
    for name, check in CHECKS.items():
        started = time.monotonic()
        try:
            # Each in its own transaction: one failed query must not abort the others'.
            with transaction.atomic():
                results[name] = {"status": check()}
        except Exception as error:  # every failure is a 503 with its reason
            logger.warning("readyz: %s failed: %s: %s", name, type(error).__name__, error)
            results[name] = {"status": "failing", "error": f"{type(error).__name__}: {error}"}
        results[name]["ms"] = round((time.monotonic() - started) * 1000, 1)
    ready = all(result["status"] == "ok" for result in results.values())
    if not address_within(client_address(request), settings.READYZ_DETAIL_NETWORKS):
        results = {name: {"status": result["status"]} for name, result in results.items()}
    return JsonResponse(
        {"status": "ok" if ready else "failing", "checks": results}, status=200 if ready else 503
    )
