"""Django's PostgreSQL backend whose connection pool checks a connection before
lending it without a round trip, unless the server has spoken since.

With CONN_HEALTH_CHECKS, Django gives psycopg_pool its `check_connection`, an
empty query before every request's first one. Through gunicorn that round
trip was a ninth of a state GET's time (py-spy, docs/LOAD.md), and the bare
Django project it is compared with does not make it. A connection the server
has closed (a restart, a killed backend, an idle timeout) has something to
read: the server's last message, or the end of the stream. So the socket is
polled, at no cost, and only a connection with something waiting is checked
the full way; it fails that check and the pool lends another one, as before.

settings.base names this engine where the pool is on (DB_POOL_MAX > 0).
"""

import select
from typing import Any

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


def has_word_from_server(conn: Any) -> bool:
    """Whether the idle connection's socket has anything to read (or cannot be polled)."""
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return True  # closed, or no socket to ask: the full check says which


def check_if_spoken(conn: Any) -> None:
    """psycopg_pool's check, asked only of a connection the server wrote to while idle."""
    if conn.closed or has_word_from_server(conn):
        ConnectionPool.check_connection(conn)


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> Any:
        pool = super().pool  # type: ignore[misc]  # Django 5.1+; not in django-stubs
        if pool is not None and self.settings_dict.get("CONN_HEALTH_CHECKS"):
            # Django passes its check to the constructor; psycopg_pool keeps it here.
            pool._check = check_if_spoken
        return pool
