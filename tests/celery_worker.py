"""Start a real Celery worker process for a test, and stop it whatever happens."""

import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def celery_worker(env: dict, app: str = "config"):
    """Run `celery -A <app> worker` (one process, no remote control) with `env`.

    Yields the Popen; after the block, `worker.output` holds what it printed.
    """
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            app,
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
            f"--queues={settings.CELERY_QUEUE_NAMES}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield worker
    finally:
        worker.send_signal(signal.SIGQUIT)  # cold shutdown: the task is done or failed
        worker.output, _ = worker.communicate(timeout=30)
