"""The processes of the run: the site's own (nginx, gunicorn, uvicorn, the Celery
workers, beat), supervised as systemd would; Redis; a PostgreSQL of the run's own."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import psycopg

from bench import front
from scripts.chaos.env import (
    HTTP,
    PG,
    PUBLISH,
    REDIS,
    ROOT,
    SETTINGS,
    WEB,
    log,
    wait_until,
)

# --- processes ------------------------------------------------------------------


class Processes:
    """Everything this run starts, each in its own process group, stopped at the end.

    Like systemd's Restart=always for the site's own processes: one that exits
    by itself (not killed here) is started again, and counted.
    """

    SUPERVISED = ("web", "live", "bots", "sweeps", "mail", "analysis", "beat", "beat2")

    def __init__(self, folder: Path):
        self.folder = folder
        self.running: dict[str, subprocess.Popen] = {}
        self.argv: dict[str, list[str]] = {}
        self.env: dict[str, dict[str, str]] = {}  # a unit's own Environment= lines
        # What systemd does before each start of a unit (its RuntimeDirectory made anew).
        self.before_start: dict[str, Callable[[], None]] = {}
        self.restarts = Counter()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        threading.Thread(target=self._supervise, daemon=True).start()

    def _supervise(self):
        while not self.stopping.wait(1):
            with self.lock:
                died = [
                    name
                    for name, process in self.running.items()
                    if name in self.SUPERVISED and process.poll() is not None
                ]
                for name in died:
                    log(
                        f"{name} exited by itself "
                        f"(code {self.running[name].returncode}): restarting"
                    )
                    self.restarts[name] += 1
                    self._start(name, self.argv[name], self.env[name])

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None):
        with self.lock:
            return self._start(name, argv, env or {})

    def _start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        if name in self.before_start:
            self.before_start[name]()
        out = open(self.folder / f"{name}.log", "ab")  # closed with the process
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**os.environ, **SETTINGS, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.running[name] = process
        self.argv[name] = argv
        self.env[name] = env
        return process

    def kill(self, name: str, sig=signal.SIGKILL) -> None:
        with self.lock:
            process = self.running.pop(name, None)
        if process is None:
            return
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def children(self, name: str) -> list[int]:
        """The processes `name` forked (gunicorn's workers)."""
        pid = self.running[name].pid
        try:
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def stop_all(self) -> None:
        self.stopping.set()
        for name in list(self.running):
            self.kill(name, signal.SIGTERM)


def celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", *args, "--loglevel=WARNING"]


def worker(name: str, queues: str, concurrency: int) -> list[str]:
    return celery(
        "worker", "-n", f"{name}@chaos", "-Q", queues, f"--concurrency={concurrency}",
        "--without-gossip", "--without-mingle",
    )  # fmt: skip


def beat(processes: Processes, name: str) -> None:
    schedule = processes.folder / f"{name}-schedule"
    processes.start(name, celery("beat", "--schedule", str(schedule)))


def redis_argv(processes: Processes) -> list[str]:
    return [
        "redis-server",
        "--port", str(REDIS), "--bind", "127.0.0.1",
        "--dir", str(processes.folder / "redis"),
        "--save", "", "--appendonly", "yes", "--appendfsync", "always",
    ]  # fmt: skip


def start_redis(processes: Processes) -> None:
    (processes.folder / "redis").mkdir(exist_ok=True)
    processes.start("redis", redis_argv(processes))
    wait_until(lambda: port_open(REDIS), 10, 0.1)


# The workers as the deploy kit's units start them (deploy/systemd/mesa-worker-*.service):
# the same queues, concurrency and environment.


def start_bots_worker(processes: Processes) -> None:
    """mesa-worker-bots: the computer's turns only, two processes of one search thread."""
    processes.start("bots", worker("bots", "bots", 2), {"BGBOT_MULTIPLY_THREADS": "1"})


def start_sweeps_worker(processes: Processes) -> None:
    """mesa-worker-sweeps: the beat's sweeps (the re-drive, the bots' nudge), one process."""
    processes.start("sweeps", worker("sweeps", "sweeps", 1))


def start_mail_worker(processes: Processes) -> None:
    """mesa-worker-mail: every email and push, two processes."""
    processes.start("mail", worker("mail", "mail", 2))


def start_analysis_worker(processes: Processes) -> None:
    """mesa-worker-analysis: the review of each finished game, one process."""
    processes.start("analysis", worker("analysis", "analysis", 1))


# The front as the deploy kit runs it (bench/front.py, shared with `make load`):
# nginx rendered from deploy/nginx/mesa.conf.template, gunicorn and uvicorn with
# mesa-web.service's and mesa-live.service's own ExecStart= and Environment=,
# their /run/... sockets in the run's folder.


def site_node(processes: Processes) -> front.Node:
    return front.Node(
        folder=processes.folder,
        https_port=WEB,
        http_port=HTTP,
        reference_port=None,
        publish_port=PUBLISH,
    )


def start_unit(processes: Processes, name: str, unit: str) -> None:
    """`unit` (deploy/systemd) as systemd starts it; mesa.env is the run's settings."""
    argv, env = front.unit_command(unit, site_node(processes), {**os.environ, **SETTINGS}, {})
    processes.start(name, argv, env)


def start_web(processes: Processes) -> None:
    """mesa-web: gunicorn, 3 workers of 20 threads, on its unix socket."""
    start_unit(processes, "web", "mesa-web.service")


def live_socket(processes: Processes) -> Path:
    return Path(site_node(processes).run_path("/run/mesa-live/uvicorn.sock"))


def start_live(processes: Processes) -> None:
    """mesa-live: uvicorn, 2 processes holding the boards' waits, on its unix socket.
    The socket file a killed uvicorn left goes before each start (uvicorn would not
    bind over it), as systemd removes the unit's RuntimeDirectory when it stops."""
    processes.before_start["live"] = lambda: live_socket(processes).unlink(missing_ok=True)
    start_unit(processes, "live", "mesa-live.service")


def live_up(processes: Processes) -> bool:
    """uvicorn accepts on its socket (nginx would quietly send the waits to gunicorn)."""
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(str(live_socket(processes))) == 0


def start_nginx(processes: Processes) -> None:
    conf = front.write_nginx(site_node(processes), live=True)
    processes.start("nginx", [front.NGINX, "-p", str(processes.folder), "-c", str(conf),
                              "-g", "daemon off;"])  # fmt: skip


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


# --- a PostgreSQL of the run's own ------------------------------------------------


class Postgres:
    """initdb in the run's folder, started on PG; restarted and stopped with pg_ctl."""

    def __init__(self, folder: Path):
        self.data = folder / "pg"
        self.log = folder / "postgres.log"
        bin_dir = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.bin = Path(bin_dir)
        # PostgreSQL refuses to run as root: then it runs as the postgres user.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *argv: str, check: bool = True) -> None:
        subprocess.run(
            [*self.as_user, *argv], check=check, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )

    def init(self) -> None:
        self.data.mkdir()
        if self.as_user:
            os.chmod(self.data.parent, 0o755)
            shutil.chown(self.data, "postgres", "postgres")
            self.log.touch()
            shutil.chown(self.log, "postgres", "postgres")
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
            "--auth=trust", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        self.ctl("start")
        with psycopg.connect(self.url("postgres"), autocommit=True) as server:
            server.execute("CREATE DATABASE mesa_chaos")

    def ctl(self, *action: str) -> None:
        options = (
            f"-p {PG} -c listen_addresses=127.0.0.1 -k {self.data} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
            "-o", options, *action,
        )  # fmt: skip

    def url(self, name: str = "mesa_chaos") -> str:
        return f"postgres://postgres@127.0.0.1:{PG}/{name}"

    def terminate_backends(self) -> int:
        with psycopg.connect(self.url("postgres"), autocommit=True) as server:
            rows = server.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = 'mesa_chaos' AND pid <> pg_backend_pid()"
            ).fetchall()
        return len(rows)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop",
                check=False,
            )  # fmt: skip
