"""config/embedded.py, the process that runs `make run`'s five: one stop for all."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from config.embedded import STOP_GRACE_SECONDS

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

# A process that ignores SIGINT and has a child of its own (as a worker has its pool).
STUBBORN = (
    f'{PYTHON} -c "import signal, subprocess, time; signal.signal(signal.SIGINT, signal.SIG_IGN);'
    f" subprocess.Popen(['sleep', '300']); time.sleep(300)\""
)


def start(*commands: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [PYTHON, "-m", "config.embedded", *commands], cwd=ROOT, start_new_session=True
    )


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def group_members(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def wait_for_children(pid: int, count: int) -> list[int]:
    """The launcher's children, once each leads its own group (set between fork and exec)."""
    deadline = time.monotonic() + 20
    while True:
        found = children_of(pid)
        if len(found) == count and all(os.getpgid(child) == child for child in found):
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.1)


def test_sigterm_to_the_group_stops_each_process_and_kills_what_stays():
    run = start("sleep 300", STUBBORN)
    # Each command leads a group of its own: the group's signal skips it.
    children = wait_for_children(run.pid, 2)
    time.sleep(1)  # the stubborn one has started its own child

    signalled = time.monotonic()
    os.killpg(run.pid, signal.SIGTERM)
    assert run.wait(STOP_GRACE_SECONDS + 10) == 0
    took = time.monotonic() - signalled

    assert not any(alive(pid) for pid in children)
    assert not any(group_members(pid) for pid in children)  # the grandchild too
    assert STOP_GRACE_SECONDS - 1 < took < STOP_GRACE_SECONDS + 5  # it had to be killed


def test_when_one_process_ends_by_itself_the_others_stop_at_once():
    run = start("sleep 300", f"{PYTHON} -c 'import sys, time; time.sleep(1); sys.exit(3)'")
    [sleeper, _] = wait_for_children(run.pid, 2)

    assert run.wait(10) == 1
    assert not alive(sleeper)
