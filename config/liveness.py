"""A worker's liveness, checked end to end through the broker, and its way out.

A worker can look alive (its process runs, its socket is open) and do
nothing: the consumer lost the broker and never took a message again, or
can no longer acknowledge what it took. `celery inspect ping` would tell,
but it needs remote control, which stays off (on Redis its pub/sub
subscription killed workers, see the settings). So each worker probes
itself the way its tasks come:

- every MESA_WORKER_PROBE_SECONDS a thread of the worker's main process
  publishes the probe task to this worker's own queue (`worker_direct`:
  `<name>.dq2`, which only it reads);
- the probe, run by the worker's pool like any task, writes the time to the
  heartbeat file `<MESA_WORKER_HEARTBEAT_DIR>/<name>`;
- when no probe has run for MESA_WORKER_WEDGED_SECONDS, the thread logs it
  and stops the worker (a warm shutdown, then a hard exit after
  MESA_WORKER_EXIT_GRACE_SECONDS), so that its supervisor (systemd `Restart=always`,
  compose `restart: always`) starts a fresh one.

The wedge limit stays above the longest hard time limit (230 s, the digest
and the analysis): a worker of one process busy with a long task takes its
probe only after it, and must not be taken for wedged. `python -m
config.worker_health <name>` exits 1 when that worker's heartbeat is older
than the limit: compose's healthcheck and a person use it.

Nothing of this runs on the embedded brokers (filesystem, memory) of `make
run` and the tests, nor with MESA_WORKER_PROBE_SECONDS=0.
"""

from __future__ import annotations

import logging
import os
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from celery import Celery, shared_task, signals
from celery.utils.nodenames import worker_direct

log = logging.getLogger(__name__)

PROBE_TASK = "config.liveness.probe"


def exit_grace() -> float:
    """How long the warm shutdown may take before the watchdog exits the process."""
    return float(os.environ.get("MESA_WORKER_EXIT_GRACE_SECONDS", "30"))


def probe_every() -> float:
    return float(os.environ.get("MESA_WORKER_PROBE_SECONDS", "30"))


def wedged_after() -> float:
    return float(os.environ.get("MESA_WORKER_WEDGED_SECONDS", "300"))


def heartbeat_file(hostname: str) -> Path:
    folder = os.environ.get("MESA_WORKER_HEARTBEAT_DIR") or os.path.join(
        tempfile.gettempdir(), "mesa-workers"
    )
    return Path(folder) / hostname


def heartbeat_age(hostname: str) -> float | None:
    """Seconds since the worker's last probe ran; None if it never did."""
    try:
        return time.time() - float(heartbeat_file(hostname).read_text())
    except (OSError, ValueError):
        return None


@shared_task(name=PROBE_TASK, ignore_result=True, acks_late=False)
def probe(hostname: str) -> None:
    """The worker took a message from the broker and ran it: note the time."""
    path = heartbeat_file(hostname)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(f"{time.time():.3f}")
    partial.replace(path)


def _watch(app: Celery, hostname: str, started: float) -> None:
    every, limit = probe_every(), wedged_after()
    # By name: the publish declares the queue again, should Redis have
    # restarted empty and forgotten it.
    queue = worker_direct(hostname).name
    while True:
        time.sleep(every)
        try:
            app.send_task(PROBE_TASK, args=(hostname,), queue=queue, expires=limit)
        except Exception:  # the broker is away: the heartbeat says how long
            log.warning("liveness: the probe of %s could not be published", hostname)
        age = heartbeat_age(hostname)
        quiet = age if age is not None else time.time() - started
        if quiet <= limit:
            continue
        log.critical(
            "liveness: %s ran no probe for %.0f s (limit %.0f s): stopping for the "
            "supervisor to start it again",
            hostname,
            quiet,
            limit,
        )
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(exit_grace())
        log.critical("liveness: %s did not stop by itself: exiting", hostname)
        os._exit(70)


def _uses_a_real_broker(app: Celery) -> bool:
    url = str(app.conf.broker_url or "")
    return not url.startswith(("memory://", "filesystem://"))


@signals.worker_ready.connect
def _start_watching(sender: Any = None, **kwargs: Any) -> None:
    app: Celery = sender.app
    if probe_every() <= 0 or not _uses_a_real_broker(app) or not app.conf.worker_direct:
        return
    hostname: str = sender.hostname
    thread = threading.Thread(
        target=_watch, args=(app, hostname, time.time()), name="mesa-liveness", daemon=True
    )
    thread.start()
    log.info(
        "liveness: probing %s every %.0f s; wedged after %.0f s",
        hostname,
        probe_every(),
        wedged_after(),
    )
