"""A worker that stops taking messages stops itself, for its supervisor to restart it.

A real worker on a Redis of its own (tests/private_redis.py) probes itself
through its own queue (config/liveness.py) every second here, not every 30 s.
While the broker answers, the heartbeat stays fresh and the worker runs on;
when Redis hangs (SIGSTOP: sockets open, no answer, the way a wedged
connection looks), no probe runs, and the worker exits by itself.
"""

import os
import subprocess
import sys
import time

from tests.celery_worker import ROOT, celery_worker
from tests.private_redis import PrivateRedis

LIMIT = 4  # seconds without a probe before the worker calls itself wedged


def check(hostname, env):
    """The healthcheck compose runs: `python -m config.worker_health <name>`."""
    return subprocess.run(
        [sys.executable, "-m", "config.worker_health", hostname],
        cwd=ROOT,
        env=env,
        capture_output=True,
    ).returncode


def test_a_worker_whose_broker_hangs_exits_by_itself_and_not_before(tmp_path):
    heartbeats = tmp_path / "heartbeats"
    with PrivateRedis() as broker:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "SECRET_KEY": "liveness-test-key-" + "x" * 40,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
            "CELERY_BROKER_URL": broker.url,
            "MESA_WORKER_PROBE_SECONDS": "1",
            "MESA_WORKER_WEDGED_SECONDS": str(LIMIT),
            "MESA_WORKER_EXIT_GRACE_SECONDS": "3",
            "MESA_WORKER_HEARTBEAT_DIR": str(heartbeats),
        }
        with celery_worker(env) as worker:
            deadline = time.monotonic() + 30
            while not (heartbeats.is_dir() and any(heartbeats.iterdir())):
                assert worker.poll() is None, "the worker exited while the broker answered"
                assert time.monotonic() < deadline, "no probe ever ran"
                time.sleep(0.2)
            [hostname] = [path.name for path in heartbeats.iterdir() if path.suffix != ".tmp"]
            time.sleep(LIMIT + 2)  # longer than the limit, with a broker that answers
            assert worker.poll() is None
            assert check(hostname, {**env, "MESA_WORKER_WEDGED_SECONDS": str(LIMIT)}) == 0

            broker.pause()
            hung = time.monotonic()
            worker.wait(timeout=60)
            took = time.monotonic() - hung
        output = worker.output

    assert "ran no probe for" in output, output
    assert took < 45, took
    assert check(hostname, env) == 1  # stale: the healthcheck says so too


def test_an_idle_worker_that_leaves_its_probe_waiting_is_wedged_in_seconds():
    from config.liveness import not_consuming_for

    limits = {"limit": 300, "idle_limit": 30}
    # Idle, a probe the broker took waiting 31 s: it stopped consuming.
    assert not_consuming_for(1000, 969, 969, **limits) == 31
    assert not_consuming_for(1000, 990, 975, **limits) is None  # 25 s: not yet
    # Busy with a long task (nothing owed while busy): only the long limit judges.
    assert not_consuming_for(1000, 760, None, **limits) is None
    assert not_consuming_for(1000, 699, None, **limits) == 301
    # The broker away: no probe was taken, nothing is owed; the long limit again.
    assert not_consuming_for(1000, 950, None, **limits) is None
