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
  compose `restart: always`) starts a fresh one;
- and sooner, after MESA_WORKER_IDLE_WEDGED_SECONDS, when a probe the broker
  took (its publish succeeded) has not run while the worker ran nothing at
  all: an idle worker takes a message in a moment, so one that does not has
  stopped consuming. Celery 5.7 / kombu 5.7 (the newest on PyPI) still
  leave a worker in that state now and then after Redis restarts ("Couldn't
  ack", then nothing): a known problem, celery/celery#8030, #8091, #9054,
  said fixed in kombu 5.4 but seen here since.

The wedge limit stays above the longest hard time limit (230 s, the digest
and the analysis): a worker of one process busy with a long task takes its
probe only after it, and must not be taken for wedged. The idle limit is
above the consumer's longest wait between reconnections (20 s, the
settings): a worker about to reconnect after Redis came back is not
stopped for it, and one that did not is stopped within about half a minute. `python -m
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
    return float(os.environ.get("MESA_WORKER_PROBE_SECONDS", "5"))


def wedged_after() -> float:
    return float(os.environ.get("MESA_WORKER_WEDGED_SECONDS", "300"))


def idle_wedged_after() -> float:
    return float(os.environ.get("MESA_WORKER_IDLE_WEDGED_SECONDS", "30"))


def not_consuming_for(
    now: float,
    last_ran: float,
    owed_since: float | None,
    *,
    limit: float,
    idle_limit: float,
) -> float | None:
    """How long the worker has not consumed, when that makes it wedged; else None.

    `last_ran`: when a probe last ran (or the watch began); `owed_since`: since
    when a published probe has been waiting while the worker ran nothing
    (None: no such probe, or the worker was busy meanwhile)."""
    if now - last_ran > limit:
        return now - last_ran
    if owed_since is not None and now - owed_since > idle_limit:
        return now - owed_since
    return None


def _busy() -> bool:
    """The worker runs a task now (its main process's count of them)."""
    from celery.worker import state

    return bool(state.active_requests)


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
    every, limit, idle_limit = probe_every(), wedged_after(), idle_wedged_after()
    # By name: the publish declares the queue again, should Redis have
    # restarted empty and forgotten it.
    queue = worker_direct(hostname).name
    owed_since: float | None = None
    while True:
        time.sleep(every)
        now = time.time()
        age = heartbeat_age(hostname)
        last_ran = now - age if age is not None else started
        if owed_since is not None and last_ran >= owed_since:
            owed_since = None  # the probe owed since then ran
        if _busy():
            owed_since = None  # a long task may hold the probe back: `limit` judges
        try:
            app.send_task(PROBE_TASK, args=(hostname,), queue=queue, expires=limit)
        except Exception:  # the broker is away: the heartbeat says how long
            log.warning("liveness: the probe of %s could not be published", hostname)
        else:
            if owed_since is None and not _busy():
                owed_since = now
        quiet = not_consuming_for(now, last_ran, owed_since, limit=limit, idle_limit=idle_limit)
        if quiet is None:
            continue
        log.critical(
            "liveness: %s ran no probe for %.0f s (limits %.0f s, %.0f s idle): stopping "
            "for the supervisor to start it again",
            hostname,
            quiet,
            limit,
            idle_limit,
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
        "liveness: probing %s every %.0f s; wedged after %.0f s, or %.0f s idle",
        hostname,
        probe_every(),
        wedged_after(),
        idle_wedged_after(),
    )
