"""The connection pool (DB_POOL_MAX, config/settings/base.py): each process holds at most
that many PostgreSQL connections however many threads ask, and none without it."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import database_url_for_the_worker

DATABASE_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRESQL = DATABASE_URL.startswith(("postgres://", "postgresql://"))

# Twelve threads, each asking for its backend's pid twenty times and handing the
# connection back between two (as the end of a request does): the pids they saw.
THREADS = """
import json, threading, django
django.setup()
from django.conf import settings
from django.db import connection
seen = set()
def work():
    for _ in range(20):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            seen.add(cursor.fetchone()[0])
        connection.close()
threads = [threading.Thread(target=work) for _ in range(12)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(json.dumps({"pids": len(seen), "database": settings.DATABASES["default"]}, default=str))
"""


def run(code: str, **env: str) -> dict:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", **env}
    done = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


SETTINGS = """
import json, django
django.setup()
from django.conf import settings
print(json.dumps(settings.DATABASES["default"], default=str))
"""


def test_the_pool_is_configured_from_the_environment():
    database = run(SETTINGS, DATABASE_URL="postgres://u@127.0.0.1:5432/x", DB_POOL_MAX="3")
    assert database["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 3, "timeout": 10.0}
    assert database["CONN_MAX_AGE"] == 0  # the pool keeps the connections, not Django
    assert "pool" not in run(SETTINGS, DATABASE_URL="postgres://u@127.0.0.1:5432/x")["OPTIONS"]
    # SQLite has no pool, whatever the variable says.
    sqlite = run(SETTINGS, DATABASE_URL="sqlite:///x.sqlite3", DB_POOL_MAX="3")
    assert "pool" not in sqlite.get("OPTIONS", {})


@pytest.mark.skipif(not ON_POSTGRESQL, reason="needs PostgreSQL (DATABASE_URL=postgres://...)")
def test_twelve_threads_share_the_pools_three_connections():
    pooled = run(THREADS, DB_POOL_MAX="3")
    assert 1 <= pooled["pids"] <= 3
    # Without the pool each connection is a new one: a new server process each time.
    assert run(THREADS)["pids"] > 3


# The live waits read the database outside any request (games.web.live.database): three
# reads in the sync thread, then a request's thread asks for the pool's one connection.
OUTSIDE_A_REQUEST = """
import asyncio, json, threading, django
django.setup()
from django.db import connection
from games.web.live import database as live

def pulse(slug):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
    return None

live.room_pulse = pulse

def a_request():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    connection.close()  # request_finished

async def main():
    for _ in range(3):
        await live.database_pulse("a-room")
    await asyncio.wait_for(asyncio.to_thread(a_request), 10)
    return "served"

print(json.dumps({"request": asyncio.run(main())}))
"""


@pytest.mark.skipif(not ON_POSTGRESQL, reason="needs PostgreSQL (DATABASE_URL=postgres://...)")
def test_a_live_waits_database_read_hands_the_pooled_connection_back():
    # Kept by the sync thread, the one connection left the request waiting out
    # DB_POOL_TIMEOUT and failing.
    assert run(OUTSIDE_A_REQUEST, DB_POOL_MAX="1", DB_POOL_TIMEOUT="2") == {"request": "served"}


# One connection lent twenty times, its backend then terminated by another session
# while idle in the pool (as a restart does), then lent again.
TERMINATED = """
import json, time, django, psycopg
django.setup()
from django.conf import settings
from django.db import connection
from psycopg_pool import ConnectionPool
full_checks = []
real = ConnectionPool.check_connection
def counted(conn):
    full_checks.append(1)
    real(conn)
ConnectionPool.check_connection = staticmethod(counted)
def pid():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        found = cursor.fetchone()[0]
    connection.close()  # request_finished: back to the pool
    return found
first = {pid() for _ in range(20)}
healthy_checks = len(full_checks)
database = settings.DATABASES["default"]
with psycopg.connect(host=database["HOST"], port=database["PORT"], user=database["USER"],
                     dbname=database["NAME"], autocommit=True) as other:
    other.execute("SELECT pg_terminate_backend(%s)", [next(iter(first))])
time.sleep(0.3)
after = pid()
print(json.dumps({
    "engine": database["ENGINE"], "first": len(first), "healthy_checks": healthy_checks,
    "changed": after not in first, "checks_after": len(full_checks) - healthy_checks,
}))
"""


@pytest.mark.skipif(not ON_POSTGRESQL, reason="needs PostgreSQL (DATABASE_URL=postgres://...)")
def test_the_pool_checks_a_lent_connection_only_when_the_server_spoke():
    # psycopg_pool's own check is an empty query before each request's first one;
    # config.postgresql polls the socket and checks only a connection with news.
    seen = run(TERMINATED, DB_POOL_MAX="1", DB_POOL_MIN="1")
    assert seen["engine"] == "config.postgresql" and seen["first"] == 1
    assert seen["healthy_checks"] == 0, "a round trip before each lending"
    # The terminated backend's last word was on its socket: checked, replaced, no error.
    assert seen["changed"] and seen["checks_after"] == 1


def test_the_pooled_engine_is_the_checking_one_and_only_with_the_pool():
    pooled = run(SETTINGS, DATABASE_URL="postgres://u@127.0.0.1:5432/x", DB_POOL_MAX="3")
    assert pooled["ENGINE"] == "config.postgresql" and pooled["CONN_HEALTH_CHECKS"] is True
    plain = run(SETTINGS, DATABASE_URL="postgres://u@127.0.0.1:5432/x")
    assert plain["ENGINE"] == "django.db.backends.postgresql"


# A state GET through the test client, which leaves request_finished's close out:
# whether the connection is still held by the thread once the answer is made.
STATE_GET = """
import json, django
django.setup()
from django.db import connection
from django.test import Client
answer = Client().get("/api/rooms/no-such-room/")
print(json.dumps({"status": answer.status_code, "held": connection.connection is not None}))
"""


@pytest.mark.skipif(not ON_POSTGRESQL, reason="needs PostgreSQL (DATABASE_URL=postgres://...)")
@pytest.mark.django_db
def test_a_state_get_hands_its_pooled_connection_back_once_its_answer_is_made():
    url = database_url_for_the_worker()  # the test database: its tables are there
    # games.web.lean: three connections serve a process's twenty threads.
    assert run(STATE_GET, DATABASE_URL=url, DB_POOL_MAX="1") == {"status": 404, "held": False}
    # Without the pool the connection is the thread's to keep (CONN_MAX_AGE).
    assert run(STATE_GET, DATABASE_URL=url) == {"status": 404, "held": True}
