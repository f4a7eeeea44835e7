"""`python -m bench.state_get` itself, tiny: it seeds a room, serves the state GET and
the bare project's view through Django's WSGIHandler in child processes, has two
players take turns by POSTs, and drops its database. Nothing timed: every answer
a 200, Mesa's the room's whole state, every action one a player could take."""

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.helpers import missing

ROOT = Path(__file__).resolve().parent.parent


def test_the_in_process_comparison_runs_both_sides_and_cleans_up(tmp_path):
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        missing("bench.state_get runs on PostgreSQL (DATABASE_URL=postgres://...)")
    parts = urlsplit(url)
    database = urlunsplit(parts._replace(path=parts.path.rstrip("/") + "_stateget"))
    redis_url = os.environ.get("MESA_LOAD_REDIS_URL", "redis://127.0.0.1:6379/12")
    output = tmp_path / "figures.json"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-m", "bench.state_get", "--requests", "24", "--warmup", "4"]
        + ["--runs", "1", "--database-url", database, "--redis-url", redis_url]
        + ["--output", str(output), "--miss", "--action", "30"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(output.read_text())
    for side in ("mesa", "bare", "player", "computed"):
        [run] = figures[side]
        assert run["answers"] == {"200 OK": 24}, side
        assert run["cpu_us"] > 0 and run["least_block_us"] > 0
    # The bare view answers a room's three columns; Mesa the board's whole state.
    assert figures["mesa"][0]["bytes"] > 10 * figures["bare"][0]["bytes"] > 0
    # A player's tab: the seat found by the session, so the talk is in the state.
    assert figures["player"][0]["bytes"] > figures["mesa"][0]["bytes"]
    # Computed at every request (the cache off), the same state as the cache's.
    assert figures["computed"][0]["bytes"] == figures["mesa"][0]["bytes"]
    assert "bare ÷ Mesa" in done.stdout and "computed ÷ a hit" in done.stdout
    # Thirty actions after three untimed, each accepted: the players' turns in order.
    [run] = figures["action"]
    assert sum(run["answers"].values()) == 30
    assert all(key.endswith(" 200 OK") for key in run["answers"]), run["answers"]
    assert run["answers"].get("play 200 OK", 0) >= 20
    assert run["median_us"] > 0 and run["bytes"] > figures["mesa"][0]["bytes"] // 2
    assert "an action's median CPU" in done.stdout
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        name = urlsplit(database).path.lstrip("/")
        left = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
        assert left.fetchone() is None
