"""`make run`'s processes, started and stopped together: `python -m config.embedded CMD...`.

Each command (one string, split as a shell splits it) runs in a process group
of its own, so a signal to the group of `make run` (Ctrl-C in a terminal,
SIGTERM from a service manager or a test) reaches this process alone, never
a Celery worker's pool processes. Those, killed by the group's SIGTERM, died
holding the pool's queue lock, and their worker hung at exit for good.

On SIGINT, SIGTERM or SIGHUP, or when any of the processes ends by itself
(a worker that died leaves no bots and no mail: better to stop and say so),
each one is sent SIGINT: a Celery worker's warm shutdown (it finishes its
task, hands back what it prefetched and stops its pool), runserver's stop
(its reloader stops the serving process). Whatever still runs after
STOP_GRACE_SECONDS is killed, process group and all: a task cut short comes
back through the outbox (games.services.outbox).
"""

import os
import shlex
import signal
import subprocess
import sys
import time
from types import FrameType

STOP_GRACE_SECONDS = 10.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


signalled: list[str] = []  # the stop signals received, by name


def _stop(signum: int, frame: FrameType | None) -> None:
    signalled.append(signal.Signals(signum).name)


def label(command: str) -> str:
    """A worker's node name (-n), else the command's first words."""
    words = shlex.split(command)
    named = [after for before, after in zip(words, words[1:], strict=False) if before == "-n"]
    return named[0] if named else " ".join(words[:3])


def stop_all(processes: list[tuple[str, subprocess.Popen[bytes]]], grace: float) -> None:
    for _, process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + grace
    for _, process in processes:
        try:
            process.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            pass
    for name, process in processes:
        if process.poll() is None:
            print(f"{name} still running after {grace:.0f} s: killed", file=sys.stderr, flush=True)
        try:
            # The whole group: a worker's pool, runserver's serving process.
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # the group is gone: every process of it ended
        process.wait()


def main(commands: list[str]) -> int:
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop)
    processes: list[tuple[str, subprocess.Popen[bytes]]] = []
    for command in commands:
        if signalled:
            break
        process = subprocess.Popen(shlex.split(command), process_group=0)
        processes.append((label(command), process))
    why = ""
    while not why:
        ended = [(name, p.returncode) for name, p in processes if p.poll() is not None]
        if signalled:
            why = signalled[0]
        elif ended:
            why = "{} ended with {}".format(*ended[0])
        else:
            time.sleep(0.2)
    # A second Ctrl-C while they stop changes nothing: the grace is short.
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    print(f"Stopping ({why})...", file=sys.stderr, flush=True)
    stop_all(processes, STOP_GRACE_SECONDS)
    return 0 if signalled else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
