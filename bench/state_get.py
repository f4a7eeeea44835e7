"""The state GET beside the bare project, in one process: `python -m bench.state_get`.

`make load` compares the two through the whole front (nginx's TLS, gunicorn's
HTTP), where a run's ratio moves by ±0.15 with the machine. This takes the
front away to show the application's own share: Django's WSGIHandler called
in a loop, as gunicorn's worker calls it, for a spectator's cache hit of
Mesa's state GET (`GET /api/rooms/<slug>/`, the load benchmark's settings and
the web unit's pool, Redis for the caches) and for the bare project's one
view (bench/front.py's reference: startproject, one indexed query as JSON).
The room is seeded on fixed dice, so every run answers the same state. Each
side runs in fresh processes pinned to one core, the sides alternating, and
prints the process's CPU time and the wall time a request, and the least of
twelve blocks of requests (the one the machine's neighbours touched least).
`--miss` adds a third side, the same GET with the state cache off: the state
computed at every request, what a board's first read of a room costs (a
miss, less the cache's write). `--profile` prints a cProfile of Mesa's loop
(the computed one with `--miss`) on a CPU clock instead (Python calls
inflated: read the shares); `--output` writes the figures as JSON.
Not in `make bench`, which needs no server: this needs PostgreSQL and Redis,
as `make load` does. Its database is made for the run and dropped at its end.
Figures and what they showed: docs/LOAD.md.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import front
from bench.load import servers
from bench.load.options import ROOT, Options
from tests.deploy import systemd

DATABASE_URL = "postgres://postgres@127.0.0.1:5432/mesa_state_get"
REDIS_URL = "redis://127.0.0.1:6379/13"
BLOCKS = 12  # of each process's requests, timed apart
SIDES = ("bare", "mesa", "computed")  # the last only with --miss
NAMES = {
    "bare": "the bare project (one query)",
    "mesa": "Mesa's state GET (spectator)",
    "computed": "the same, computed (a miss)",
}


def web_pool() -> str:
    """The web unit's own pool size, as systemd reads the unit."""
    unit = systemd.load_unit(front.UNITS / "mesa-web.service")
    env = systemd.environment(unit, systemd.Manager(), read=lambda _path: "", base={})
    return str(env.get("DB_POOL_MAX", "3"))


# -- a child: one side's loop ----------------------------------------------------------


def environ_for(path: str) -> dict[str, Any]:
    """What gunicorn hands Django for a spectator's GET of `path` through nginx."""
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SCRIPT_NAME": "",
        "SERVER_NAME": front.HOST,
        "SERVER_PORT": "443",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": front.HOST,
        "HTTP_ACCEPT": "application/json",
        "HTTP_ACCEPT_LANGUAGE": "es-ES,es;q=0.9,en;q=0.8",
        "HTTP_ACCEPT_ENCODING": "gzip, deflate",
        "HTTP_USER_AGENT": "bench.state_get",
        "HTTP_X_FORWARDED_FOR": "127.0.0.1",
        "HTTP_X_FORWARDED_PROTO": "https",
        "HTTP_CONNECTION": "keep-alive",
        "wsgi.url_scheme": "https",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }


def seed_room() -> str:
    """A room of two guests with its match started (the load benchmark's default),
    on fixed dice: every run answers the same state, byte for byte."""
    from games import services
    from games.services import dice

    with dice.use(dice.FixedSeedSource(b"bench.state_get")):
        host = services.room_create(rules={}, nickname="anfitriona")
        services.room_join(room=host.room, nickname="invitado")
    return host.room.slug


def child(side: str, path: str, requests: int, warmup: int, profile: bool) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    if side != "bare" and path == "":
        return {"slug": seed_room()}
    handler = WSGIHandler()
    answers: dict[str, int] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        answers[status] = answers.get(status, 0) + 1
        return None  # no write() callable: Django never asks for one

    size = 0

    def call() -> None:
        nonlocal size
        response = handler(environ_for(path), start_response)
        size = sum(len(part) for part in response)
        response.close()  # as gunicorn does: request_finished, the connection handed back

    for _ in range(warmup):
        call()
    answers.clear()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU, not the waits on the socket
        profiler.enable()
    # In blocks: the least block's figure is the one a neighbour on the machine
    # (a VM's host, a timer) touched least.
    block = max(1, requests // BLOCKS)
    blocks: list[float] = []
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(requests // block):
        started = time.process_time()
        for _ in range(block):
            call()
        blocks.append((time.process_time() - started) / block)
    done = block * len(blocks)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if profiler is not None:
        import pstats

        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(40)
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(60)
        print(out.getvalue(), file=sys.stderr)
    return {
        "cpu_us": 1e6 * cpu / done,
        "least_block_us": 1e6 * min(blocks),
        "wall_us": 1e6 * wall / done,
        "bytes": size,
        "answers": answers,
    }


# -- the parent: the database, the children, the table ---------------------------------


def run_child(
    side: str, env: dict[str, str], path: str, options: argparse.Namespace, profile: bool = False
) -> dict[str, Any]:
    argv = [
        sys.executable,
        "-m",
        "bench.state_get",
        "--child",
        side,
        "--path",
        path,
        "--requests",
        str(options.requests),
        "--warmup",
        str(options.warmup),
    ]
    if profile:
        argv.append("--profile")
    pin = ["taskset", "-c", options.core] if shutil.which("taskset") else []
    done = subprocess.run(
        [*pin, *argv], cwd=ROOT, env=env, check=True, capture_output=not profile, text=True
    )
    if profile:
        return {}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.state_get", description=__doc__)
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--redis-url", default=REDIS_URL)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3, help="fresh processes of each side")
    parser.add_argument("--core", default="0", help="the CPU the children are pinned to")
    parser.add_argument("--profile", action="store_true", help="cProfile Mesa's loop once")
    parser.add_argument(
        "--miss", action="store_true", help="also the state computed at every request"
    )
    parser.add_argument("--output", type=Path, help="also write the figures here, as JSON")
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--path", default="", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        found = child(
            options.child, options.path, options.requests, options.warmup, options.profile
        )
        print(json.dumps(found))
        return 0

    pool = web_pool()
    # make load's own settings and database steps, on this run's database.
    load = Options(database_url=options.database_url, redis_url=options.redis_url)
    env = {
        **servers.settings_env(load, servers.make_nodes(load, Path("/nonexistent"))),
        "DB_POOL_MAX": pool,
    }
    servers.drop_database(load)  # a crashed run's, if any: this run makes its own
    servers.prepare_database(load)
    try:
        with tempfile.TemporaryDirectory(prefix="mesa-state-get-") as folder:
            project = front.make_reference(Path(folder), options.database_url, pool)
            bare_env = {
                **env,
                "DJANGO_SETTINGS_MODULE": "bareref.settings",
                "PYTHONPATH": os.pathsep.join([str(project), str(ROOT)]),
            }
            slug = run_child("mesa", env, "", options)["slug"]
            state = f"/api/rooms/{slug}/"
            paths = {"mesa": state, "computed": state, "bare": f"/ref/{slug}"}
            # The cache off: every request computes the state, as a miss does.
            envs = {"mesa": env, "computed": {**env, "MESA_STATE_CACHE": "0"}, "bare": bare_env}
            sides = SIDES if options.miss else SIDES[:2]
            if options.profile:
                side = sides[-1]
                run_child(side, envs[side], paths[side], options, profile=True)
                return 0
            results: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
            for _ in range(options.runs):
                for side in sides:
                    results[side].append(run_child(side, envs[side], paths[side], options))
    finally:
        servers.drop_database(load)
    report(results, options)
    if options.output:
        options.output.write_text(json.dumps({"load_average": os.getloadavg(), **results}))
    return 0


def report(results: dict[str, list[dict[str, Any]]], options: argparse.Namespace) -> None:
    load = os.getloadavg()
    print(
        f"{options.requests} requests a process after {options.warmup}, {options.runs} "
        f"processes a side, core {options.core}; load average "
        f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}"
    )
    print(f"{'':<32} {'CPU µs a request':<26} {'least block':<26} {'wall µs':<26} bytes")
    for side in results:
        runs = results[side]
        cpu, least, wall = (
            ", ".join(f"{run[name]:.0f}" for run in runs)
            for name in ("cpu_us", "least_block_us", "wall_us")
        )
        print(f"{NAMES[side]:<32} {cpu:<26} {least:<26} {wall:<26} {runs[-1]['bytes']}")
        wrong = [run["answers"] for run in runs if set(run["answers"]) != {"200 OK"}]
        if wrong:
            print(f"  not every answer a 200: {wrong}")
    for name, pick, figure in (
        ("median", statistics.median, "cpu_us"),
        ("least block", min, "least_block_us"),
    ):
        bare = pick(run[figure] for run in results["bare"])
        mesa = pick(run[figure] for run in results["mesa"])
        print(f"bare ÷ Mesa, {name}, CPU a request: {bare:.0f} ÷ {mesa:.0f} = {bare / mesa:.2f}×")
    if "computed" in results:
        hit = statistics.median(run["cpu_us"] for run in results["mesa"])
        miss = statistics.median(run["cpu_us"] for run in results["computed"])
        print(f"computed ÷ a hit, median CPU a request: {miss:.0f} ÷ {hit:.0f} = {miss / hit:.1f}×")


if __name__ == "__main__":
    raise SystemExit(main())
