"""The run's database, its servers' start and stop, and their memory from /proc."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import psycopg

from bench import front
from bench.load.options import ROOT, Options
from tests.deploy import nginxconf


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def admin_url(url: str) -> str:
    """The same server's maintenance database, for CREATE DATABASE and the samples."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/postgres"))


def make_nodes(options: Options, folder: Path) -> list[front.Node]:
    return [
        front.Node(
            folder=folder / f"node{n}",
            https_port=options.port + 10 * n,
            http_port=options.port + 10 * n + 1,
            reference_port=options.port + 2 if n == 0 else None,
            publish_port=options.port + 10 * n + 3,
        )
        for n in range(options.nodes)
    ]


def settings_env(options: Options, nodes: list[front.Node]) -> dict[str, str]:
    """What /etc/mesa/mesa.env holds for this run (the units' Environment= wins)."""
    env = dict(os.environ)
    for name in ("DJANGO_SETTINGS_MODULE", "CI", "PYTEST_CURRENT_TEST", "DB_POOL_MAX"):
        env.pop(name, None)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.web.settings",
            "DEBUG": "false",
            "SECRET_KEY": "mesa-load-benchmark-only-" + "x" * 40,
            "DATABASE_URL": options.database_url,
            "CACHE_URL": options.redis_url,
            "CELERY_BROKER_URL": options.redis_url,
            "SITE_URL": nodes[0].base,
            "CSRF_TRUSTED_ORIGINS": ",".join(node.base for node in nodes),
            "ALLOWED_HOSTS": front.HOST,
            "TRUSTED_PROXIES": "127.0.0.1",
            # Every player and board comes from 127.0.0.1: one address, a club's.
            "MESA_RATE_LIMIT_SCALE": "1000",
            "MESA_STATE_CACHE": "1" if options.state_cache else "0",
            "LOG_LEVEL": "WARNING",
            # Every node's processes publish to every node's nginx (mesa.env).
            "LIVE_NCHAN_URL": ",".join(nginxconf.publish_url(n.publish_port) for n in nodes),
        }
    )
    return env


def web_overrides(options: Options) -> dict[str, str]:
    """The benchmark's own sizes over the web unit's, as an operator's drop-in."""
    found = {}
    if options.web_workers is not None:
        found["WEB_CONCURRENCY"] = str(options.web_workers)
    if options.threads is not None:
        found["GUNICORN_THREADS"] = str(options.threads)
    if options.pool is not None:
        found["DB_POOL_MAX"] = str(options.pool)
    return found


def live_overrides(options: Options) -> dict[str, str]:
    return {"DB_POOL_MAX": str(options.live_pool)} if options.live_pool is not None else {}


def prepare_database(options: Options) -> bool:
    """Migrate the run's database, created if missing: True when this run created it
    (and drops it at the end), False for one that was there before (kept)."""
    name = database_name(options.database_url)
    with psycopg.connect(admin_url(options.database_url), autocommit=True) as admin:
        found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if found is None:
            admin.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=settings_env(options, make_nodes(options, Path("/nonexistent"))),
        check=True,
    )
    import redis

    redis.Redis.from_url(options.redis_url).flushdb()  # this run's cache, limits and queue
    return found is None


def drop_database(options: Options) -> None:
    with psycopg.connect(admin_url(options.database_url), autocommit=True) as admin:
        name = database_name(options.database_url)
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


async def wait_until_up(
    url: str, processes: dict[str, subprocess.Popen[bytes]], log: Path, context: ssl.SSLContext
) -> None:
    """Until `url` answers anything but a 5xx through nginx."""
    deadline = time.monotonic() + 90
    connector = aiohttp.TCPConnector(ssl=context)
    async with aiohttp.ClientSession(connector=connector) as session:
        while time.monotonic() < deadline:
            for name, process in processes.items():
                if process.poll() is not None:
                    raise RuntimeError(f"{name} stopped at start:\n{log.read_text()[-3000:]}")
            try:
                async with session.get(url) as response:
                    if response.status < 500:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.3)
    raise RuntimeError(f"{url} did not answer in 90 s:\n{log.read_text()[-3000:]}")


async def wait_for_socket(path: Path, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until uvicorn answers on its unix socket (nginx would quietly fall back without it)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn stopped at start:\n{log.read_text()[-3000:]}")
        if path.exists():
            try:
                async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(str(path))) as s:
                    async with s.get("http://127.0.0.1/healthz") as response:
                        if response.status < 500:
                            return
            except aiohttp.ClientError:
                pass
        await asyncio.sleep(0.3)
    raise RuntimeError(f"uvicorn did not answer in 90 s:\n{log.read_text()[-3000:]}")


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    found = [int(word) for word in text.split()]
    return found + [grand for child in found for grand in children(child)]


CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """The process's user and system CPU so far (/proc/<pid>/stat), None once gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # After the command's ")" (a command may hold spaces): state is field 3, utime 14.
    fields = text.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def named_processes(names: tuple[str, ...]) -> dict[int, str]:
    """Every process whose command is one of `names` (/proc/<pid>/comm): the
    machine's PostgreSQL and Redis, shared with nothing else during a run."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if command in names:
            found[int(entry.name)] = command
    return found


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None
