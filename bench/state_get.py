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
twelve blocks of requests (the one the machine's neighbours touched least). A
third side is a player's tab: the same hit for a guest seated through the JSON
API in a room of its own, whose session (read from the database at every
request) finds its seat. `--miss` adds a side, the same GET with the state
cache off: the state computed at every request, what a board's first read of a
room costs (a miss, less the cache's write). `--action N` adds a side of N
players' actions: two guests in a room of their own, seated through the JSON
API, take their turns (roll, play, next game, rematch) by POSTs as the load
benchmark's players do, on fixed dice and a seeded choice of play, so every
run plays the same games; only the POSTs are timed, not the GETs that tell the
other player what to do. `--profile` prints a cProfile of Mesa's loop (the
last side asked for) on a CPU clock instead (Python calls inflated: read the
shares); `--output` writes the figures as JSON.
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
SIDES = ("bare", "mesa", "player", "computed", "action")  # the last two: --miss, --action
NAMES = {
    "bare": "the bare project (one query)",
    "mesa": "Mesa's state GET (spectator)",
    "player": "the same, a player's tab",
    "computed": "the same, computed (a miss)",
    "action": "a player's action (POST)",
}


def web_pool() -> str:
    """The web unit's own pool size, as systemd reads the unit."""
    unit = systemd.load_unit(front.UNITS / "mesa-web.service")
    env = systemd.environment(unit, systemd.Manager(), read=lambda _path: "", base={})
    return str(env.get("DB_POOL_MAX", "3"))


# -- a child: one side's loop ----------------------------------------------------------


def environ_for(path: str, method: str = "GET", body: bytes = b"") -> dict[str, Any]:
    """What gunicorn hands Django for a request of `path` through nginx, without
    cookies (a spectator's, unless the caller adds them)."""
    return {
        "REQUEST_METHOD": method,
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
        "wsgi.input": io.BytesIO(body),
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


class Tab:
    """A player's browser tab in the child: its cookies, kept from Set-Cookie as a
    browser keeps them, and its requests through the WSGI handler."""

    def __init__(self, handler: Any, language: str) -> None:
        self.handler = handler
        self.language = language
        self.cookies: dict[str, str] = {}
        self.status = ""
        self.size = 0  # the last answer's bytes

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        from http.cookies import SimpleCookie

        data = json.dumps(body).encode() if body is not None else b""
        environ = environ_for(path, method, data)
        environ["HTTP_ACCEPT_LANGUAGE"] = self.language
        if self.cookies:
            environ["HTTP_COOKIE"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method == "POST":
            environ["CONTENT_TYPE"] = "application/json"
            environ["CONTENT_LENGTH"] = str(len(data))
            environ["HTTP_X_CSRFTOKEN"] = self.cookies.get("csrftoken", "")
            environ["HTTP_ORIGIN"] = f"https://{front.HOST}"
        got: list[tuple[str, str]] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc: Any = None) -> Any:
            self.status = status
            got.extend(headers)

        response = self.handler(environ, start_response)
        content = b"".join(response)
        response.close()
        self.size = len(content)
        for name, value in got:
            if name.lower() == "set-cookie":
                for key, morsel in SimpleCookie(value).items():
                    self.cookies[key] = morsel.value
        return json.loads(content) if content.startswith(b"{") else None


def two_guests(host: Tab, guest: Tab) -> str:
    """A room created by `host` and joined by `guest` through the JSON API, as
    `make load` seeds its rooms (under the caller's dice): the state's path."""
    host.call("GET", "/")
    made = host.call("POST", "/api/rooms", {"nickname": "anfitriona", "rules": {}})
    path = f"/api/rooms/{made['room']['slug']}/"
    guest.call("GET", "/")
    guest.call("POST", f"{path}join", {"nickname": "invitado"})
    return path


def seat_a_player(handler: Any) -> tuple[str, str]:
    """A room of two guests, on fixed dice: the state's path, and the joining
    guest's cookies (their session, which holds the seat)."""
    from django.conf import settings

    from games.services import dice

    guest = Tab(handler, "es")
    with dice.use(dice.FixedSeedSource(b"bench.state_get")):
        path = two_guests(Tab(handler, "es"), guest)
    if settings.SESSION_COOKIE_NAME not in guest.cookies:
        raise RuntimeError("the guest who joined has no session")
    return path, "; ".join(f"{k}={v}" for k, v in guest.cookies.items())


def play_actions(handler: Any, count: int, warmup: int, profiler: Any) -> dict[str, Any]:
    """Two guests in a room of their own take `warmup` then `count` actions, chosen
    from the state as the load benchmark's players choose them: each timed POST's
    CPU, its answer's size, and how many of each action and status."""
    import random

    from bench.load.clients import next_action
    from games.services import dice

    rng = random.Random(20261206)
    host, guest = Tab(handler, "es"), Tab(handler, "en")
    timed: list[float] = []
    answers: dict[str, int] = {}
    size = 0
    with dice.use(dice.FixedSeedSource(b"bench.state_get --action")):
        path = two_guests(host, guest)
        states = {tab: tab.call("GET", path) for tab in (host, guest)}
        for turn in range(warmup + count):
            chosen = [(tab, next_action(states[tab], rng)) for tab in (host, guest)]
            tab, action = next(((t, a) for t, a in chosen if a is not None), (host, None))
            if action is None:
                raise RuntimeError(f"nobody can act: {states[host].get('match')}")
            name, body = action
            counted = turn >= warmup
            if counted and profiler is not None:
                profiler.enable()
            started = time.process_time()
            answer = tab.call("POST", f"{path}actions/{name}", body)
            spent = time.process_time() - started
            if counted and profiler is not None:
                profiler.disable()
            if counted:
                timed.append(spent)
                key = f"{name} {tab.status}"
                answers[key] = answers.get(key, 0) + 1
                size = tab.size
            ok = tab.status.startswith("200") and answer is not None
            states[tab] = answer if ok else tab.call("GET", path)
            other = guest if tab is host else host
            states[other] = other.call("GET", path)
    return {"timed": timed, "answers": answers, "bytes": size}


def child_actions(requests: int, warmup: int, profile: bool) -> dict[str, Any]:
    from django.core.handlers.wsgi import WSGIHandler

    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
    wall = time.perf_counter()
    played = play_actions(WSGIHandler(), requests, warmup, profiler)
    wall = time.perf_counter() - wall
    if profiler is not None:
        print_profile(profiler)
    timed = played["timed"]
    block = max(1, len(timed) // BLOCKS)
    blocks = [statistics.fmean(timed[i : i + block]) for i in range(0, len(timed), block)]
    return {
        "cpu_us": 1e6 * statistics.fmean(timed),
        "median_us": 1e6 * statistics.median(timed),
        "least_block_us": 1e6 * min(blocks),
        "wall_us": 1e6 * wall / len(timed),  # the untimed GETs included
        "bytes": played["bytes"],
        "answers": played["answers"],
    }


def print_profile(profiler: Any) -> None:
    import pstats

    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(40)
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(60)
    print(out.getvalue(), file=sys.stderr)


def child(side: str, path: str, requests: int, warmup: int, profile: bool) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    if side == "action":
        return child_actions(requests, max(1, requests // 10), profile)
    if side not in ("bare", "player") and path == "":
        return {"slug": seed_room()}
    handler = WSGIHandler()
    answers: dict[str, int] = {}
    cookies = {}
    if side == "player":
        # A seat of its own, taken through the JSON API: its session holds the seat.
        path, cookie = seat_a_player(handler)
        cookies["HTTP_COOKIE"] = cookie

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        answers[status] = answers.get(status, 0) + 1
        return None  # no write() callable: Django never asks for one

    size = 0

    def call() -> None:
        nonlocal size
        response = handler({**environ_for(path), **cookies}, start_response)
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
        profiler.disable()
        print_profile(profiler)
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
        str(options.action if side == "action" else options.requests),
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
    parser.add_argument(
        "--action",
        type=int,
        default=0,
        metavar="N",
        help="also N players' actions a process, POSTed in turn (after N // 10 untimed)",
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
            # The player's and the action's sides seat their own players in rooms of their own.
            paths = {"mesa": state, "computed": state, "bare": f"/ref/{slug}"}
            paths.update(player="", action="")
            # The cache off: every request computes the state, as a miss does.
            computed = {**env, "MESA_STATE_CACHE": "0"}
            envs = {"mesa": env, "computed": computed, "bare": bare_env, "player": env}
            envs["action"] = env
            asked = {"computed": options.miss, "action": options.action > 0}
            sides = tuple(side for side in SIDES if asked.get(side, True))
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
        wrong = [
            run["answers"] for run in runs if any(not k.endswith("200 OK") for k in run["answers"])
        ]
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
    if "action" in results:
        runs = results["action"]
        medians = ", ".join(f"{run['median_us']:.0f}" for run in runs)
        print(f"an action's median CPU µs, each process: {medians}")
        kinds: dict[str, int] = {}
        for run in runs:
            for key, count in run["answers"].items():
                kinds[key] = kinds.get(key, 0) + count
        print("actions taken: " + ", ".join(f"{k} × {n}" for k, n in sorted(kinds.items())))


if __name__ == "__main__":
    raise SystemExit(main())
