"""SQLite as the settings configure it (make run): a writer waits its turn, never fails.

The services read and then write in one transaction (the match row, then its
Turn). On SQLite a transaction that began by reading and wants to write after
another connection wrote is refused at once ("database is locked"), however
long the timeout: that was the 503 of make run. With the settings' SQLite
options each transaction takes the write lock at BEGIN, so the second one
waits for the first and both succeed. The settings are read by Django itself,
in a process of their own (config.settings.base, as make run reads them).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TWO_WRITERS = """
import json, threading, time, django
django.setup()
from django.db import connection, transaction

with connection.cursor() as cursor:
    cursor.execute("CREATE TABLE counter (n integer)")
    cursor.execute("INSERT INTO counter VALUES (0)")
    cursor.execute("PRAGMA journal_mode")
    journal = cursor.fetchone()[0]
    cursor.execute("PRAGMA synchronous")
    synchronous = cursor.fetchone()[0]
connection.close()

read, errors = threading.Event(), []

def reads_then_writes():  # a service: read the row, decide, write
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT n FROM counter")
            n = cursor.fetchone()[0]
            read.set()
            time.sleep(0.5)  # the other writer comes meanwhile
            cursor.execute("UPDATE counter SET n = %s", [n + 1])
    except Exception as error:
        errors.append(repr(error))
    finally:
        read.set()
        connection.close()

def writes():
    read.wait()
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE counter SET n = n + 1")
    except Exception as error:
        errors.append(repr(error))
    finally:
        connection.close()

threads = [threading.Thread(target=reads_then_writes), threading.Thread(target=writes)]
for thread in threads: thread.start()
for thread in threads: thread.join()
with connection.cursor() as cursor:
    cursor.execute("SELECT n FROM counter")
    n = cursor.fetchone()[0]
print(json.dumps({"errors": errors, "n": n, "journal": journal, "synchronous": synchronous}))
"""


def test_a_transaction_that_reads_then_writes_waits_for_the_other_writer(tmp_path):
    env = {
        **{key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ},
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", TWO_WRITERS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])

    assert result["errors"] == []
    assert result["n"] == 2  # both increments, neither lost
    assert result["journal"] == "wal"  # readers go on while one writes
    assert result["synchronous"] == 2  # FULL: a commit is on disk when it is acknowledged
