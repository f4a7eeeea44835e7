"""System checks that keep a production site off the embedded defaults.

The defaults (SQLite, the filesystem broker, the database cache) make
`make run` work on a bare machine, and nowhere else should they be met by
accident: SQLite locks the whole database for each write, the filesystem
broker reaches only workers on the same disk, and the database cache culls
entries past its MAX_ENTRIES (300), silently dropping log-in lockouts, and
its incr() is a read and a write that two workers can interleave. With DEBUG
off each of them is an error unless MESA_ALLOW_EMBEDDED says the operator
means it. `manage.py check` (and gunicorn at start-up, config/gunicorn.conf.py)
runs these.

The cache table check talks to the database, so it is tagged `database`:
`check --database default`, `migrate` and gunicorn's start-up run it.
"""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

HINT_EMBEDDED = (
    "Production uses PostgreSQL (DATABASE_URL), Redis for the broker (CELERY_BROKER_URL) "
    "and for the cache (CACHE_URL): docs/DEPLOY.md. Set MESA_ALLOW_EMBEDDED=1 only if you "
    "mean to run a single small machine on the embedded defaults."
)


def _embedded_allowed() -> bool:
    return settings.DEBUG or settings.MESA_ALLOW_EMBEDDED


@register()
def embedded_defaults(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    if _embedded_allowed():
        return []
    errors = []
    for alias, database in settings.DATABASES.items():
        if database["ENGINE"] == "django.db.backends.sqlite3":
            errors.append(
                Error(
                    f"The database {alias!r} is SQLite while DEBUG is off.",
                    hint=HINT_EMBEDDED,
                    id="mesa.E001",
                )
            )
    broker = settings.CELERY_BROKER_URL.split("://", 1)[0]
    if broker in ("filesystem", "memory"):
        errors.append(
            Error(
                f"The Celery broker is {broker}:// while DEBUG is off.",
                hint=HINT_EMBEDDED,
                id="mesa.E002",
            )
        )
    for alias, cache in settings.CACHES.items():
        backend = cache["BACKEND"].rsplit(".", 2)[-2]
        if alias == "state" and backend == "locmem":
            continue  # the room state's cache: correct per process (games/web/state_cache.py)
        if backend in ("db", "locmem", "filebased", "dummy"):
            errors.append(
                Error(
                    f"The cache {alias!r} is {cache['BACKEND']} while DEBUG is off: the rate "
                    "limits and log-in lockouts need one shared, atomic cache.",
                    hint=HINT_EMBEDDED,
                    id="mesa.E003",
                )
            )
    return errors


@register(Tags.database, Tags.caches)
def cache_table_exists(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[Error]:
    """A database cache without its table answers every limited POST with a 500."""
    if not databases:
        return []
    from django.core.cache import caches
    from django.db import DatabaseError, connections, router

    errors = []
    for alias, cache in settings.CACHES.items():
        if cache["BACKEND"] != "django.core.cache.backends.db.DatabaseCache":
            continue
        table = cache["LOCATION"]
        # The model-like class DatabaseCache hands the router (as createcachetable does).
        model = cast(Any, caches[alias]).cache_model_class  # not in django-stubs
        db = router.db_for_write(model) or "default"
        if db not in databases:
            continue
        try:
            with connections[db].cursor() as cursor:
                tables = connections[db].introspection.table_names(cursor)
        except DatabaseError as error:
            errors.append(
                Error(f"Could not read the tables of database {db!r}: {error}", id="mesa.E011")
            )
            continue
        if table not in tables:
            errors.append(
                Error(
                    f"The cache {alias!r} keeps its entries in the table {table!r}, "
                    "which does not exist: every rate-limited request would fail.",
                    hint="Run `python manage.py createcachetable` (or set CACHE_URL to Redis).",
                    id="mesa.E010",
                )
            )
    return errors


@register(Tags.security)
def sessions_outlive_redis(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Sessions in the cache alone are lost with Redis, and with them every browser's seats."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.cache":
        return []
    return [
        Warning(
            "SESSION_ENGINE keeps sessions in the cache alone: a Redis outage or restart "
            "logs everyone out and loses the seats their browsers hold, and binding a seat "
            "fails while Redis is away.",
            hint="Use games.web.sessions (the default: Django's db store), db or cached_db.",
            id="mesa.W020",
        )
    ]
