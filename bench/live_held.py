"""uvicorn's memory a held wait, as nginx hands it the boards' waits.

    python -m bench.live_held [--waits 2000] [--rooms 50] [--settle 8] [--trace 12]

uvicorn starts as the live unit starts it (deploy/systemd/mesa-live.service:
its flags and environment as systemd reads them, through bench/front.py, as
`make load` starts it), with one worker, on `make load`'s settings, PostgreSQL
and Redis, and a database of its own holding --rooms rooms of two guests. The
waits are made on its unix socket the way nginx makes them: HTTP/1.1, one
connection a wait, nginx's forwarded headers and a board's own (its cookies,
the If-None-Match and X-Mesa-Pass of the room's state answer). Nobody moves,
so every wait is held. It prints the worker's RSS before the waits and
--settle seconds into them, and the difference a held wait.

--trace N runs the worker under tracemalloc (N frames) and lists the lines
that allocated most of what a held wait keeps, in bytes a wait: which object
is whose (uvicorn's, asyncio's, Mesa's). tracemalloc's own bookkeeping
inflates a traced worker's RSS: the figure to quote is an untraced run's.

nginx's share of a board is bench/nginx_held.py's; both together, under the
boards' herds, are `make load`'s. Its database is dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from bench import front
from bench.load import servers
from bench.load.options import ROOT, Options

DATABASE_URL = "postgres://postgres@127.0.0.1:5432/mesa_live_held"
REDIS_URL = "redis://127.0.0.1:6379/11"
# A board's own headers, as aiohttp sends them in `make load` (a browser adds its
# Sec-Fetch-* and a longer User-Agent), beside what nginx adds.
BOARD_HEADERS = {
    "X-Forwarded-For": "127.0.0.1",
    "X-Forwarded-Proto": "https",
    "Accept": "application/json",
    "Accept-Language": "es",
    "Accept-Encoding": "gzip, deflate",
    "User-Agent": "Python/3.11 aiohttp/3.12",
    "Cookie": f"csrftoken={'c' * 32}; django_language=es",
}


@dataclass(frozen=True)
class Held:
    waits: int
    before_kb: int
    during_kb: int
    answered: int  # waits the worker answered before the measure (none, or it says so)

    @property
    def kb_a_wait(self) -> float:
        return (self.during_kb - self.before_kb) / self.waits

    def line(self) -> str:
        return (
            f"uvicorn, one worker: {self.waits} held waits ({self.answered} answered early); "
            f"RSS {self.before_kb} -> {self.during_kb} KB: {self.kb_a_wait:.1f} KB a held wait"
        )


def seed(rooms: int) -> list[str]:
    """In a child with the run's settings: `rooms` rooms of two guests, their slugs."""
    import django

    django.setup()
    from games import services

    slugs = []
    for _ in range(rooms):
        host = services.room_create(rules={}, nickname="anfitriona")
        services.room_join(room=host.room, nickname="invitado")
        slugs.append(host.room.slug)
    return slugs


def trace_worker(dump: str) -> None:
    """The traced worker (`python -X tracemalloc=N -m bench.live_held --worker ...`):
    uvicorn's own command line, and a snapshot written at each SIGUSR1."""
    taken = iter(range(1_000))

    def snapshot(_signum: int, _frame: object) -> None:
        tracemalloc.take_snapshot().dump(f"{dump}.{next(taken)}")

    signal.signal(signal.SIGUSR1, snapshot)
    import uvicorn.main

    uvicorn.main.main()


async def request(
    socket_path: str, path: str, headers: dict[str, str]
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_unix_connection(socket_path)
    lines = [f"GET {path} HTTP/1.1", f"Host: {front.HOST}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()
    return reader, writer


async def answer(reader: asyncio.StreamReader) -> tuple[dict[str, str], bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    if not head[0].startswith("HTTP/1.1 200"):
        raise RuntimeError(f"uvicorn answered {head[0]!r}")
    headers = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return headers, await reader.readexactly(int(headers.get("content-length", "0")))


async def hold(
    socket_path: str, slugs: list[str], waits: int, settle: float, pid: int, trace: bool
) -> Held:
    boards = []
    for slug in slugs:  # each room's version, ETag and pass, from its state answer
        reader, writer = await request(socket_path, f"/api/rooms/{slug}/", BOARD_HEADERS)
        headers, body = await answer(reader)
        writer.close()
        board = {**BOARD_HEADERS, "If-None-Match": headers["etag"]}
        if "x-mesa-pass" in headers:
            board["X-Mesa-Pass"] = headers["x-mesa-pass"]
        boards.append((f"/api/rooms/{slug}/?wait={json.loads(body)['version']}", board))
    await asyncio.sleep(1.0)
    before = servers.rss_kb(pid) or 0
    if trace:
        os.kill(pid, signal.SIGUSR1)
        await asyncio.sleep(3.0)
    held = [await request(socket_path, *boards[n % len(boards)]) for n in range(waits)]
    # Each connection read in the background: a wait answered early shows up here.
    early = [asyncio.ensure_future(reader.read(1)) for reader, _writer in held]
    await asyncio.sleep(settle)
    during = servers.rss_kb(pid) or 0
    if trace:
        os.kill(pid, signal.SIGUSR1)
        await asyncio.sleep(3.0 + waits / 500)
    answered = sum(1 for reading in early if reading.done())
    for reading in early:
        reading.cancel()
    for _reader, writer in held:
        writer.close()
    return Held(waits, before, during, answered)


def top_lines(dump: str, waits: int, count: int = 25) -> list[str]:
    before = tracemalloc.Snapshot.load(f"{dump}.0")
    during = tracemalloc.Snapshot.load(f"{dump}.1")
    stats = during.compare_to(before, "lineno")
    total = sum(stat.size_diff for stat in stats)
    lines = [f"traced: {total / waits:.0f} bytes a held wait in Python's allocations"]
    for stat in stats[:count]:
        frame = stat.traceback[0]
        where = f"{Path(frame.filename).name}:{frame.lineno}"
        lines.append(f"  {stat.size_diff / waits:7.0f} B  {where}")
    return lines


def measure(
    waits: int,
    rooms: int,
    settle: float,
    trace: int = 0,
    database_url: str = DATABASE_URL,
    redis_url: str = REDIS_URL,
) -> tuple[Held, list[str]]:
    """The worker's RSS before and during `waits` held waits on `rooms` rooms; with
    `trace`, also the lines that allocated most of them."""
    options = Options(database_url=database_url, redis_url=redis_url)
    servers.drop_database(options)  # a crashed run's, if any
    servers.prepare_database(options)
    try:
        with tempfile.TemporaryDirectory(prefix="mesa-live-held-") as where:
            folder = Path(where)
            [node] = servers.make_nodes(options, folder)
            env = servers.settings_env(options, [node])
            child = subprocess.run(
                [sys.executable, "-m", "bench.live_held", "--seed", str(rooms)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            slugs = json.loads(child.stdout.splitlines()[-1])
            argv, live_env = front.unit_command("mesa-live.service", node, env, {})
            argv = front.replace_flag(argv, "--workers", "1")
            dump = str(folder / "snapshot")
            if trace:
                traced = [sys.executable, "-X", f"tracemalloc={trace}", "-m", "bench.live_held"]
                argv = [*traced, "--worker", dump, "--", *argv[1:]]
            log = folder / "uvicorn.log"
            worker = front.spawn(argv, live_env, ROOT, log, "1")
            try:
                socket_path = node.run_path("/run/mesa-live/uvicorn.sock")
                asyncio.run(servers.wait_for_socket(Path(socket_path), worker, log))
                held = asyncio.run(hold(socket_path, slugs, waits, settle, worker.pid, bool(trace)))
            finally:
                if worker.poll() is None:
                    os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
            return held, top_lines(dump, waits) if trace else []
    finally:
        servers.drop_database(options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waits", type=int, default=2000)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--settle", type=float, default=8.0, help="seconds before measuring")
    parser.add_argument("--trace", type=int, default=0, metavar="FRAMES")
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--redis-url", default=REDIS_URL)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("uvicorn", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.seed is not None:
        print(json.dumps(seed(options.seed)))
        return 0
    if options.worker:
        sys.argv = ["uvicorn", *options.uvicorn]
        trace_worker(options.worker)
        return 0
    started = time.monotonic()
    held, lines = measure(
        options.waits,
        options.rooms,
        options.settle,
        options.trace,
        options.database_url,
        options.redis_url,
    )
    print(held.line())
    print("\n".join(lines))
    print(f"load average {os.getloadavg()[0]:.2f}; {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
