"""`make load`: thousands of open boards, a few dozen players, spectators, on real servers.

    python -m bench.load [--boards 2000] [--players 50] [--readers 20] [--duration 150]

It starts its own front (bench/front.py: nginx from the template, gunicorn
and uvicorn as deploy/systemd's units run them; --server wsgi for gunicorn
alone) on PostgreSQL and Redis, with bench/web/settings.py, pinned with
taskset to the server's cores (--server-cores, 0 by default), and drives it
from this process pinned to the others (--client-cores, 1), both at the
priority `make load` was started with: neither side starves the other. The
generator measures its own lag (how late its event loop wakes a timer); a
run whose p99 lag exceeds 100 ms is VOID, as its latencies are partly its
own. Each side's cores and the load average are in the report. The clients
behave as the site's own pages do:

- boards: open and waiting as static/js/board/controller.js waits, with
  static/js/poll.js's rhythm: `GET /api/rooms/<slug>/?wait=<version>` with
  If-None-Match, again at once after a held answer or a change, backing off
  1 s × 1.5 up to 20 s after quick answers with nothing new (the server would
  not hold them). As a club's boards are open: a few on each room where
  people are playing now (--spectators-per-room; one in ten of them a
  player's other tab), and the rest on rooms where nobody moves during the
  run (--boards-per-idle-room, the players' tabs and a spectator's: a
  correspondence player keeps a dozen matches open, most of them waiting
  for the other side).
- players: two guests per room (created and seated through the JSON API),
  each acting as a person does: when the state says it is their turn, a
  think of --think seconds, then the action (`POST /api/rooms/<slug>/actions/
  play` with a legal play the engine finds, `roll`, the rematch at the end).
- readers: spectators reloading the state every few seconds with If-None-Match.
- throughput: in windows in the middle of the run, closed-loop clients GET
  the room state (a spectator's, 200 with its body) and then the reference
  view, alternately, so both are measured in the same conditions. They fill
  the server by design, so the latencies are reported apart for the actions
  and moves that overlapped a window and for the rest of the run.

At the end it checks that nothing was lost: every acknowledged action is one
Turn row (no more, no less), and every waiting board shows its room's final
version. It prints one report (and writes it as JSON under bench/results/).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import psycopg
from yarl import URL

from bench import front
from games.engine import Position, legal_plays

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "results"

# This checkout's own resources (the team's table): ports 19100-19199, Redis db 2.
DEFAULT_PORT = 19100
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/mesa_load"
DEFAULT_REDIS = "redis://127.0.0.1:6379/2"

# The two GETs compared: a spectator's room state, and the bare-Django reference.
NAMES = ("state", "reference")
HELD = 3.0  # poll.js: an answer that took this long was held by the server
# The generator's own lag (a timer woken late) beyond which its latencies are its own.
VOID_LAG_MS = 100.0
LAG_TICK = 0.05  # the lag probe's timer


@dataclass
class Options:
    boards: int = 2000
    players: int = 50
    readers: int = 20
    duration: float = 150.0
    think: tuple[float, float] = (2.0, 5.0)
    warmup: float = 20.0
    window: float = 10.0  # each throughput window
    throughput_clients: int = 8
    seated_share: float = 0.1
    spectators_per_room: int = 4  # boards on each room being played, besides its players
    boards_per_idle_room: float = 2.5  # the other boards, on rooms where nobody moves
    english_share: float = 0.2
    server: str = "live"  # live: gunicorn and uvicorn, as the kit; wsgi: gunicorn alone
    nodes: int = 1  # 2: boards wait on the first node, players act on the second
    # None: the units' own (deploy/systemd/mesa-web.service, mesa-live.service).
    web_workers: int | None = None
    live_workers: int | None = None
    live_pool: int | None = None
    threads: int | None = None  # None: config/gunicorn.conf.py's
    pool: int | None = None
    state_cache: bool = True
    port: int = DEFAULT_PORT  # node n: nginx on port+10n (HTTPS), +1 (HTTP), +2 (reference)
    keep_files: bool = False  # the nodes' folders (logs, configs) kept after the run
    database_url: str = DEFAULT_DATABASE
    redis_url: str = DEFAULT_REDIS
    server_cores: str = "0"  # the servers' cores (taskset)
    client_cores: str = "1"  # the generator's, apart from them, at the same priority
    grace: float = 40.0  # after the players stop, for the boards to catch up
    seed: int = 19
    quiet: bool = False
    output: str = ""  # the JSON report's path; empty: bench/results/load-<time>.json


# -- what is measured ---------------------------------------------------------------


@dataclass
class Move:
    room: str
    version: int
    sent: float


@dataclass
class Board:
    room: str
    seen: list[tuple[float, int]] = field(default_factory=list)  # (when, version) of each change
    version: int = -1
    started: float = 0.0
    requests: int = 0
    held: int = 0


@dataclass
class Stats:
    action_ms: list[float] = field(default_factory=list)
    action_spans: list[tuple[float, float]] = field(default_factory=list)  # (sent, answered)
    # What Django spent on each of them (Server-Timing), None where not said.
    action_server_ms: list[float | None] = field(default_factory=list)
    acked: Counter[str] = field(default_factory=Counter)  # room -> turn actions answered 200
    # room -> turn actions sent whose answer never came (a timeout) or was a 5xx:
    # stored or not, nobody was told either way
    unanswered: Counter[str] = field(default_factory=Counter)
    moves: list[Move] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)  # "GET 200", "POST 409"...
    exceptions: Counter[str] = field(default_factory=Counter)
    # Answers that were not the API's JSON (nginx's 502/504 page, a proxy's HTML):
    # failures, counted, never an exception that stops the counting.
    error_pages: Counter[str] = field(default_factory=Counter)  # "POST 502"...
    reads: int = 0
    throughput: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    connections: list[int] = field(default_factory=list)
    rss_kb: dict[int, int] = field(default_factory=dict)  # pid -> peak
    process_names: dict[int, str] = field(default_factory=dict)
    lag_ms: list[float] = field(default_factory=list)  # the generator's timer, woken late

    def status(self, method: str, code: int) -> None:
        self.statuses[f"{method} {code}"] += 1

    def error_page(self, method: str, code: int) -> None:
        self.error_pages[f"{method} {code}"] += 1

    def failed(self, error: BaseException) -> None:
        self.exceptions[type(error).__name__] += 1


async def json_or_none(response: aiohttp.ClientResponse) -> Any:
    """The answer's JSON, or None when it is not JSON (an HTML error page)."""
    body = await response.read()
    if "json" not in response.headers.get("Content-Type", ""):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def server_ms(header: str | None) -> float | None:
    """The "app;dur=12.3" of a Server-Timing header, in milliseconds."""
    for metric in (header or "").split(","):
        name, _, params = metric.strip().partition(";")
        if name == "app" and params.startswith("dur="):
            try:
                return float(params[4:])
            except ValueError:
                return None
    return None


def verdict(lag_ms: list[float]) -> str | None:
    """Why the run is void (its generator's p99 lag above VOID_LAG_MS), None if it holds."""
    p99 = percentile(lag_ms, 0.99)
    if p99 is None:
        return "the generator's lag was never measured"
    if p99 > VOID_LAG_MS:
        return (
            f"the load generator's own p99 lag was {p99:.0f} ms (> {VOID_LAG_MS:.0f} ms): "
            "its latencies are partly its own"
        )
    return None


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


# -- the server ---------------------------------------------------------------------


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


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


# -- the clients --------------------------------------------------------------------


class Browser:
    """One person's browser: a cookie jar, a CSRF token, a language."""

    def __init__(
        self,
        base: str,
        connector: aiohttp.BaseConnector,
        language: str,
        stats: Stats | None = None,
        boards: str = "",
    ) -> None:
        self.base = base  # where this person acts and reads (node B of --nodes 2)
        self.boards = boards or base  # where their waiting boards are (node A)
        self.stats = stats if stats is not None else Stats()
        self.language = language
        self.session = aiohttp.ClientSession(
            connector=connector,
            connector_owner=False,
            cookie_jar=aiohttp.CookieJar(unsafe=True),  # cookies for 127.0.0.1
            timeout=aiohttp.ClientTimeout(total=60),
            headers={"Accept-Language": language, "Accept": "application/json"},
        )

    async def open_home(self) -> None:
        async with self.session.get(self.base + "/") as response:
            await response.read()

    def csrf(self) -> str:
        cookie = self.session.cookie_jar.filter_cookies(URL(self.base)).get("csrftoken")
        return cookie.value if cookie is not None else ""

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        status, answer, _server_ms = await self.post_timed(path, body)
        return status, answer

    async def post_timed(self, path: str, body: dict[str, Any]) -> tuple[int, Any, float | None]:
        """The status, the JSON answer and what Django spent on it (bench/web/timing.py)."""
        headers = {
            "X-CSRFToken": self.csrf(),
            "Content-Type": "application/json",
            # Over HTTPS Django's CSRF check wants the Origin (or the Referer) a browser sends.
            "Origin": self.base,
        }
        async with self.session.post(
            self.base + path, data=json.dumps(body), headers=headers
        ) as response:
            answer = await json_or_none(response)
            self.stats.status("POST", response.status)
            if answer is None:
                self.stats.error_page("POST", response.status)
            return response.status, answer, server_ms(response.headers.get("Server-Timing"))

    async def close(self) -> None:
        await self.session.close()


@dataclass
class Seat:
    browser: Browser
    number: int
    slug: str
    state: dict[str, Any] | None = None
    etag: str | None = None


class StateReader:
    """The board's api.state(): GET with If-None-Match, optionally ?wait=<version>."""

    def __init__(self, browser: Browser, slug: str, stats: Stats, board: bool = False) -> None:
        self.browser, self.slug, self.stats = browser, slug, stats
        self.base = browser.boards if board else browser.base
        self.etag: str | None = None
        self.state: dict[str, Any] | None = None
        self.pass_: str | None = None  # X-Mesa-Pass, kept and sent back as api.js does

    @property
    def version(self) -> int:
        return int(self.state["version"]) if self.state is not None else -1

    async def refresh(self, wait: bool) -> bool:
        """True when the version changed (controller.js's refresh)."""
        headers = {"If-None-Match": self.etag} if self.etag else {}
        url = f"{self.base}/api/rooms/{self.slug}/"
        if wait and self.state is not None:
            # Through nginx, which sends a held ?wait= to uvicorn (deploy/nginx).
            url += f"?wait={self.version}"
            if self.pass_:
                headers["X-Mesa-Pass"] = self.pass_
        async with self.browser.session.get(url, headers=headers) as response:
            self.stats.status("GET", response.status)
            self.pass_ = response.headers.get("X-Mesa-Pass") or self.pass_
            if response.status == 304:
                return False
            if response.status != 200:
                if await json_or_none(response) is None:
                    self.stats.error_page("GET", response.status)
                raise RuntimeError(f"state {response.status}")
            state = await json_or_none(response)
            if state is None:
                self.stats.error_page("GET", response.status)
                raise RuntimeError(f"state {response.status}: not JSON")
            etag = response.headers.get("ETag")
        changed = self.state is None or state["version"] != self.state["version"]
        if self.state is None or state["version"] >= self.state["version"]:
            self.state, self.etag = state, etag
        return changed


async def live_poll(
    check: Callable[[], Awaitable[bool]],
    stop: asyncio.Event,
    *,
    fast: float = 1.0,
    slow: float = 20.0,
    factor: float = 1.5,
    held: float = HELD,
    on_answer: Callable[[bool, float], None] | None = None,
) -> None:
    """static/js/poll.js's livePoll: one request at a time; at once after a change
    or a held answer, else back off."""
    delay = fast
    while not stop.is_set():
        started = time.monotonic()
        try:
            changed = await check()
            took = time.monotonic() - started
            if on_answer is not None:
                on_answer(changed, took)
            if changed or took >= held:
                delay, pause = fast, 0.0
            else:
                delay = min(delay * factor, slow)
                pause = delay
        except (TimeoutError, aiohttp.ClientError, RuntimeError, ValueError):
            delay = pause = slow
        if pause:
            try:
                await asyncio.wait_for(stop.wait(), pause)
            except TimeoutError:
                pass


def choose_play(state: dict[str, Any], rng: random.Random) -> list[list[int]]:
    match = state["match"]
    position = Position(tuple(match["position"]["me"]), tuple(match["position"]["them"]))
    plays = legal_plays(position, match["dice"])
    if not plays:
        return []
    return [list(step) for step in rng.choice(plays)]


TURN_ACTIONS = ("play", "roll", "next", "take")


def next_action(state: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """What a person at this seat does now, from the state alone (None: wait)."""
    match = state.get("match")
    if match is None:
        return None
    allowed = match["allowed"]
    version = state["version"]
    if "rematch_accept" in allowed:
        return "rematch_accept", {}
    if "rematch_offer" in allowed and state["viewer"]["seat"] == 1:
        return "rematch_offer", {}
    if "play" in allowed:
        return "play", {"version": version, "play": choose_play(state, rng)}
    for name in ("roll", "take", "next"):
        if name in allowed:
            return name, {"version": version}
    return None


class Run:
    def __init__(
        self,
        options: Options,
        nodes: list[front.Node] | None = None,
        context: ssl.SSLContext | None = None,
    ) -> None:
        self.options = options
        nodes = nodes or make_nodes(options, Path("/nonexistent"))
        self.context = context
        self.boards_base = nodes[0].base  # the boards wait here
        self.base = nodes[-1].base  # the players act here: the other node with --nodes 2
        self.sizes: dict[str, str] = {}
        self.targets = {
            "state": nodes[0].base + "/api/rooms/{}/",
            "reference": nodes[0].reference + "/ref/{}",
        }
        self.rng = random.Random(options.seed)
        self.stats = Stats()
        self.stop_players = asyncio.Event()
        self.stop_boards = asyncio.Event()
        self.stop_samplers = asyncio.Event()
        self.boards: list[Board] = []
        self.seats: list[Seat] = []
        self.slugs: list[str] = []  # the rooms being played
        self.idle: list[tuple[str, Browser, Browser]] = []  # (slug, host, guest) of the others
        self.start = 0.0
        self.phase = "warmup"
        self.windows: list[tuple[float, float]] = []  # the throughput windows' (start, end)

    def log(self, text: str) -> None:
        if not self.options.quiet:
            print(f"[{time.monotonic() - self.start:6.1f}s] {text}", flush=True)

    # -- seeding: two guests per room, through the API ------------------------------

    async def seed(self, connector: aiohttp.BaseConnector) -> None:
        rooms = max(1, self.options.players // 2)
        for index in range(rooms):
            slug, host, guest = await self.seed_room(connector, f"p{index}")
            self.slugs.append(slug)
            self.seats += [Seat(host, 1, slug), Seat(guest, 2, slug)]
        others = self.options.boards - rooms * self.options.spectators_per_room
        idle = math.ceil(max(0, others) / self.options.boards_per_idle_room)
        if idle:
            self.log(f"seeding {idle} rooms where nobody moves")
        gate = asyncio.Semaphore(8)

        async def one(index: int) -> tuple[str, Browser, Browser]:
            async with gate:
                return await self.seed_room(connector, f"i{index}")

        self.idle = list(await asyncio.gather(*(one(index) for index in range(idle))))

    async def seed_room(
        self, connector: aiohttp.BaseConnector, name: str
    ) -> tuple[str, Browser, Browser]:
        """A room with its two guests seated (created and joined through the JSON API)."""
        language = "en" if self.rng.random() < self.options.english_share else "es"
        host = Browser(self.base, connector, language, self.stats, self.boards_base)
        guest = Browser(self.base, connector, "es", self.stats, self.boards_base)
        await host.open_home()
        status, state = await host.post("/api/rooms", {"nickname": f"{name}a", "rules": {}})
        if status != 201:
            raise RuntimeError(f"creating a room: {status} {state}")
        slug = state["room"]["slug"]
        await guest.open_home()
        status, state = await guest.post(f"/api/rooms/{slug}/join", {"nickname": f"{name}b"})
        if status != 200:
            raise RuntimeError(f"joining {slug}: {status} {state}")
        return slug, host, guest

    # -- the players -----------------------------------------------------------------

    async def player(self, seat: Seat) -> None:
        rng = random.Random(self.rng.random())
        reader = StateReader(seat.browser, seat.slug, self.stats)
        await asyncio.sleep(rng.uniform(0, 2))
        delay = 1.0
        while not self.stop_players.is_set():
            try:
                if reader.state is None:
                    await reader.refresh(wait=False)
                action = next_action(reader.state or {}, rng)
                if action is None:
                    started = time.monotonic()
                    changed = await reader.refresh(wait=True)
                    if changed or time.monotonic() - started >= HELD:
                        delay = 1.0
                    else:  # the server would not hold it: poll.js backs off
                        delay = min(delay * 1.5, 20.0)
                        await self._pause(delay, self.stop_players)
                    continue
                await self._pause(rng.uniform(*self.options.think), self.stop_players)
                if self.stop_players.is_set():
                    return
                await self.act(seat, reader, *action)
            except (TimeoutError, aiohttp.ClientError, RuntimeError, ValueError) as error:
                self.stats.failed(error)
                await self._pause(2.0, self.stop_players)

    async def act(self, seat: Seat, reader: StateReader, name: str, body: dict[str, Any]) -> None:
        sent = time.monotonic()
        try:
            status, answer, at_server = await seat.browser.post_timed(
                f"/api/rooms/{seat.slug}/actions/{name}", body
            )
        except (TimeoutError, aiohttp.ClientError) as error:
            self.stats.failed(error)
            if name in TURN_ACTIONS:
                self.stats.unanswered[seat.slug] += 1
            reader.state = None  # read it again: it may have been stored
            return
        if (status >= 500 or answer is None) and name in TURN_ACTIONS:
            self.stats.unanswered[seat.slug] += 1
        if status == 200 and answer is not None:
            answered = time.monotonic()
            self.stats.action_ms.append((answered - sent) * 1000)
            self.stats.action_spans.append((sent, answered))
            self.stats.action_server_ms.append(at_server)
            if name in TURN_ACTIONS:
                self.stats.acked[seat.slug] += 1
            self.stats.moves.append(Move(seat.slug, int(answer["version"]), sent))
            reader.state, reader.etag = answer, None
        else:
            reader.state = None

    async def _pause(self, seconds: float, stop: asyncio.Event) -> None:
        try:
            await asyncio.wait_for(stop.wait(), seconds)
        except TimeoutError:
            pass

    # -- the waiting boards ------------------------------------------------------------

    async def board(self, board: Board, browser: Browser, stagger: float) -> None:
        await asyncio.sleep(stagger)
        reader = StateReader(browser, board.room, self.stats, board=True)

        def answered(changed: bool, took: float) -> None:
            board.requests += 1
            if took >= HELD:
                board.held += 1
            if reader.version != board.version:
                board.version = reader.version
                board.seen.append((time.monotonic(), reader.version))

        while reader.state is None and not self.stop_boards.is_set():
            try:
                await reader.refresh(wait=False)
            except (TimeoutError, aiohttp.ClientError, RuntimeError, ValueError) as error:
                self.stats.failed(error)
                await asyncio.sleep(2.0)
        board.started = time.monotonic()
        answered(True, 0.0)
        await live_poll(lambda: reader.refresh(wait=True), self.stop_boards, on_answer=answered)

    # -- spectators reading --------------------------------------------------------------

    async def reader(self, browser: Browser, slug: str) -> None:
        rng = random.Random(self.rng.random())
        reader = StateReader(browser, slug, self.stats)
        while not self.stop_players.is_set():
            try:
                await reader.refresh(wait=False)
                self.stats.reads += 1
            except (TimeoutError, aiohttp.ClientError, RuntimeError, ValueError) as error:
                self.stats.failed(error)
            await self._pause(rng.uniform(2.0, 4.0), self.stop_players)

    # -- throughput: the state beside the reference view ---------------------------------

    async def throughput(self, session: aiohttp.ClientSession, name: str, seconds: float) -> float:
        """Closed-loop GETs of the `name` target for `seconds`: answers of 200 per second. A request
        still out at the end is cancelled and not counted."""
        done = 0

        async def client() -> None:
            nonlocal done
            rng = random.Random(self.rng.random())
            while True:
                slug = rng.choice(self.slugs)
                try:
                    async with session.get(self.targets[name].format(slug)) as response:
                        await response.read()
                        self.stats.status("GET", response.status)
                        if response.status == 200:
                            done += 1
                except (TimeoutError, aiohttp.ClientError) as error:
                    self.stats.failed(error)

        clients = [asyncio.create_task(client()) for _ in range(self.options.throughput_clients)]
        started = time.monotonic()
        await asyncio.sleep(seconds)
        for task in clients:
            task.cancel()
        self.windows.append((started, time.monotonic()))
        await asyncio.gather(*clients, return_exceptions=True)
        return done / (time.monotonic() - started)

    async def throughput_windows(self, session: aiohttp.ClientSession) -> None:
        await self._pause(self.options.warmup, self.stop_players)
        self.phase = "throughput"
        for _ in range(2):
            for name in NAMES:
                if self.stop_players.is_set():
                    return
                rate = await self.throughput(session, name, self.options.window)
                self.stats.throughput[name].append(rate)
                self.log(f"throughput {name}: {rate:.0f} req/s")
        self.phase = "steady"

    # -- samplers ----------------------------------------------------------------------------

    async def sample_connections(self) -> None:
        name = database_name(self.options.database_url)
        # The site's connections: the reference project's are not the node's.
        query = (
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
            f" AND application_name <> '{front.REFERENCE_APPLICATION}'"
        )
        async with await psycopg.AsyncConnection.connect(
            admin_url(self.options.database_url), autocommit=True
        ) as conn:
            while not self.stop_samplers.is_set():
                row = await (await conn.execute(query, (name,))).fetchone()
                self.stats.connections.append(int(row[0]) if row else 0)
                await self._pause(0.5, self.stop_samplers)

    async def sample_lag(self) -> None:
        """How late this event loop wakes a timer: the generator's own delay, in every
        latency it measures."""
        while not self.stop_samplers.is_set():
            asked = time.monotonic()
            await asyncio.sleep(LAG_TICK)
            self.stats.lag_ms.append(max(0.0, (time.monotonic() - asked - LAG_TICK) * 1000))

    async def sample_memory(self, servers: dict[int, str]) -> None:
        """Each server's processes (the master and its workers), by role."""
        while not self.stop_samplers.is_set():
            for server, role in servers.items():
                for pid in (server, *children(server)):
                    kb = rss_kb(pid)
                    if kb is not None:
                        self.stats.rss_kb[pid] = max(kb, self.stats.rss_kb.get(pid, 0))
                        self.stats.process_names.setdefault(pid, role)
            await self._pause(2.0, self.stop_samplers)

    # -- the whole run -------------------------------------------------------------------------

    async def drive(self, servers: dict[int, str]) -> dict[str, Any]:
        options = self.options
        self.start = time.monotonic()
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ssl=self.context or True)
        samplers = [
            asyncio.create_task(self.sample_connections()),
            asyncio.create_task(self.sample_memory(servers)),
            asyncio.create_task(self.sample_lag()),
        ]
        self.log(f"seeding {max(1, options.players // 2)} rooms")
        await self.seed(connector)
        bench_session = aiohttp.ClientSession(
            connector=connector, connector_owner=False, timeout=aiohttp.ClientTimeout(total=30)
        )
        # The same two GETs on the idle server first (after one warm-up look each):
        # what each costs alone, beside what it costs under the load below.
        for name in NAMES:
            await self.throughput(bench_session, name, 1.0)
        for name in NAMES * 2:
            rate = await self.throughput(bench_session, name, self.options.window / 2)
            self.stats.throughput[f"idle {name}"].append(rate)
            self.log(f"idle throughput {name}: {rate:.0f} req/s")
        spectators = [
            Browser(self.base, connector, "es", self.stats, self.boards_base),
            Browser(self.base, connector, "en", self.stats, self.boards_base),
        ]
        boards: list[asyncio.Task[None]] = []
        self.log(f"opening {options.boards} boards")
        stagger = min(10.0, options.boards / 200)
        for index in range(options.boards):
            active = index < len(self.slugs) * options.spectators_per_room or not self.idle
            if active:
                slug = self.slugs[index % len(self.slugs)]
                if self.rng.random() < options.seated_share:
                    seats = [seat for seat in self.seats if seat.slug == slug]
                    browser = self.rng.choice(seats).browser  # the player's other tab
                else:
                    english = self.rng.random() < options.english_share
                    browser = spectators[1 if english else 0]
            else:
                # The idle rooms in turn: a player's tab, the other's, now and then a spectator.
                slug, host, guest = self.idle[index % len(self.idle)]
                round_ = index // len(self.idle)
                browser = (host, guest, spectators[0])[round_ % 3]
            board = Board(slug)
            self.boards.append(board)
            boards.append(
                asyncio.create_task(self.board(board, browser, self.rng.random() * stagger))
            )
        # The boards open first (each reads its state once, then waits): the
        # players come to a site whose boards are already open and waiting.
        opened = time.monotonic()
        while sum(1 for b in self.boards if b.started) < len(self.boards):
            if time.monotonic() - opened > stagger + 120:
                break
            await asyncio.sleep(0.5)
        waiting = sum(1 for b in self.boards if b.started)
        self.log(f"{waiting} boards open in {time.monotonic() - opened:.1f} s")
        readers = [
            asyncio.create_task(self.reader(spectators[0], self.slugs[i % len(self.slugs)]))
            for i in range(options.readers)
        ]
        self.log(f"{len(self.seats)} players start")
        # The transactions of the measured window only: seeding's are not in the rate.
        commits_before, measured = await self.commits(), time.monotonic()
        players = [asyncio.create_task(self.player(seat)) for seat in self.seats]
        windows = asyncio.create_task(self.throughput_windows(bench_session))
        await asyncio.sleep(options.duration)
        self.log("players stop")
        self.stop_players.set()
        commits = (await self.commits() - commits_before) / (time.monotonic() - measured)
        # A request still out after its timeout (an overloaded server) is let go.
        _done, late = await asyncio.wait([*players, *readers, windows], timeout=65)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        final = await self.final_versions()
        caught_up = await self.catch_up(final)
        self.log(f"boards at the final version: {caught_up}/{len(self.boards)}")
        self.stop_boards.set()
        for task in boards:
            task.cancel()
        await asyncio.gather(*boards, return_exceptions=True)
        self.stop_samplers.set()
        await asyncio.gather(*samplers)
        stored = await self.stored_turns()
        await bench_session.close()
        idle_browsers = {browser for _slug, *pair in self.idle for browser in pair}
        for browser in {seat.browser for seat in self.seats} | set(spectators) | idle_browsers:
            await browser.close()
        await connector.close()
        return self.report(final, caught_up, stored, commits)

    async def catch_up(self, final: dict[str, int]) -> int:
        deadline = time.monotonic() + self.options.grace
        while True:
            done = sum(1 for board in self.boards if board.version == final.get(board.room))
            if done == len(self.boards) or time.monotonic() > deadline:
                return done
            await asyncio.sleep(0.5)

    async def commits(self) -> int:
        query = "SELECT xact_commit FROM pg_stat_database WHERE datname = %s"
        name = database_name(self.options.database_url)
        async with await psycopg.AsyncConnection.connect(
            admin_url(self.options.database_url), autocommit=True
        ) as conn:
            row = await (await conn.execute(query, (name,))).fetchone()
        return int(row[0]) if row else 0

    async def final_versions(self) -> dict[str, int]:
        query = """
            SELECT r.slug, m.version FROM games_room r
            JOIN games_match m ON m.room_id = r.id
            WHERE r.slug = ANY(%s)
              AND m.number = (SELECT max(number) FROM games_match WHERE room_id = r.id)
        """
        async with await psycopg.AsyncConnection.connect(self.options.database_url) as conn:
            rooms = [*self.slugs, *(slug for slug, _host, _guest in self.idle)]
            rows = await (await conn.execute(query, (rooms,))).fetchall()
        return {slug: int(version) for slug, version in rows}

    async def stored_turns(self) -> dict[str, int]:
        """The players' own Turn rows per room (the table's automatic ones aside)."""
        query = """
            SELECT r.slug, count(t.id) FROM games_room r
            JOIN games_match m ON m.room_id = r.id
            JOIN games_game g ON g.match_id = m.id
            JOIN games_turn t ON t.game_id = g.id
            WHERE r.slug = ANY(%s) AND NOT t.automatic
            GROUP BY r.slug
        """
        async with await psycopg.AsyncConnection.connect(self.options.database_url) as conn:
            rows = await (await conn.execute(query, (self.slugs,))).fetchall()
        return {slug: int(count) for slug, count in rows}

    # -- the report -------------------------------------------------------------------------

    def in_window(self, start: float, end: float) -> bool:
        """Whether [start, end] overlaps a throughput window."""
        return any(begin < end and start < until for begin, until in self.windows)

    def seen_delays(self) -> tuple[list[tuple[float, float]], int]:
        """For each move, (when it was sent, the time until every board of its room
        open before it had seen it: a later version counts); and how many (move,
        board) pairs never did."""
        by_room: dict[str, list[Board]] = defaultdict(list)
        for board in self.boards:
            by_room[board.room].append(board)
        delays: list[tuple[float, float]] = []
        missed = 0
        for move in self.stats.moves:
            latest = 0.0
            for board in by_room[move.room]:
                if not board.started or board.started > move.sent:
                    continue
                when = next((t for t, v in board.seen if v >= move.version), None)
                if when is None:
                    missed += 1
                    latest = float("nan")
                    break
                latest = max(latest, when - move.sent)
            if latest == latest:  # not NaN
                delays.append((move.sent, max(0.0, latest)))
        return delays, missed

    def report(
        self, final: dict[str, int], caught_up: int, stored: dict[str, int], commits: float
    ) -> dict[str, Any]:
        options, stats = self.options, self.stats
        seen, missed = self.seen_delays()
        delays = [d for sent, d in seen if not self.in_window(sent, sent + d)]
        delays_in_windows = [d for sent, d in seen if self.in_window(sent, sent + d)]
        spans = list(zip(stats.action_spans, stats.action_ms, strict=True))
        action_ms = [ms for (a, b), ms in spans if not self.in_window(a, b)]
        at_server = [
            ms
            for (a, b), ms in zip(stats.action_spans, stats.action_server_ms, strict=True)
            if ms is not None and not self.in_window(a, b)
        ]
        action_ms_in_windows = [ms for (a, b), ms in spans if self.in_window(a, b)]
        acked_total = sum(stats.acked.values())
        stored_total = sum(stored.get(slug, 0) for slug in self.slugs)
        # Every acknowledged action stored once: the Turn rows are the acknowledged
        # ones, plus at most those whose answer never came.
        mismatched = [
            slug
            for slug in self.slugs
            if not stats.acked[slug]
            <= stored.get(slug, 0)
            <= stats.acked[slug] + stats.unanswered[slug]
        ]
        rates = {name: statistics.mean(values) for name, values in stats.throughput.items()}
        state_rate, ref_rate = rates.get("state", 0.0), rates.get("reference", 0.0)
        idle_state, idle_ref = rates.get("idle state", 0.0), rates.get("idle reference", 0.0)
        requests = sum(board.requests for board in self.boards)
        held = sum(board.held for board in self.boards)
        errors_5xx = sum(n for key, n in stats.statuses.items() if key.split()[1].startswith("5"))

        def ms(value: float | None) -> float | None:
            return round(value, 1) if value is not None else None

        void = verdict(stats.lag_ms)
        return {
            "void": void,
            "generator_lag": {
                "p50_ms": ms(percentile(stats.lag_ms, 0.50)),
                "p99_ms": ms(percentile(stats.lag_ms, 0.99)),
                "max_ms": ms(max(stats.lag_ms, default=0.0)),
                "samples": len(stats.lag_ms),
            },
            "options": {k: v for k, v in asdict(options).items() if k != "quiet"},
            "server": options.server,
            "sizes": self.sizes,
            "cores": {
                "server": options.server_cores,
                "client": options.client_cores,
                "machine": os.cpu_count(),
                "load_average": os.getloadavg(),
            },
            # Outside the throughput windows (the run as players live it), and
            # those that overlapped one (the server full by design).
            "actions": {
                "count": len(stats.action_ms),
                "per_second": round(len(stats.action_ms) / options.duration, 1),
                "outside_windows": len(action_ms),
                "p50_ms": ms(percentile(action_ms, 0.50)),
                "p95_ms": ms(percentile(action_ms, 0.95)),
                "p99_ms": ms(percentile(action_ms, 0.99)),
                "at_server_p50_ms": ms(percentile(at_server, 0.50)),
                "at_server_p95_ms": ms(percentile(at_server, 0.95)),
                "at_server_p99_ms": ms(percentile(at_server, 0.99)),
                "in_windows": len(action_ms_in_windows),
                "in_windows_p50_ms": ms(percentile(action_ms_in_windows, 0.50)),
                "in_windows_p95_ms": ms(percentile(action_ms_in_windows, 0.95)),
            },
            "seen_by_every_board": {
                # --nodes 2: moves made on the second node, boards waiting on the first.
                "across_nodes": options.nodes > 1,
                "moves": len(delays),
                "p50_ms": ms(_times_1000(percentile(delays, 0.50))),
                "p95_ms": ms(_times_1000(percentile(delays, 0.95))),
                "max_ms": ms(_times_1000(max(delays) if delays else None)),
                "never_seen": missed,
                "in_windows": len(delays_in_windows),
                "in_windows_p95_ms": ms(_times_1000(percentile(delays_in_windows, 0.95))),
            },
            "rooms": {"played": len(self.slugs), "idle": len(self.idle)},
            "boards": {
                "count": len(self.boards),
                "requests": requests,
                "held_share": round(held / requests, 3) if requests else None,
                "at_final_version": caught_up,
            },
            "state_get_per_second": round(state_rate, 1),
            "reference_get_per_second": round(ref_rate, 1),
            "state_to_reference": round(state_rate / ref_rate, 2) if ref_rate else None,
            "idle_state_get_per_second": round(idle_state, 1),
            "idle_reference_get_per_second": round(idle_ref, 1),
            "idle_state_to_reference": round(idle_state / idle_ref, 2) if idle_ref else None,
            "postgres": {
                "peak_connections": max(stats.connections, default=0),
                "mean_connections": round(statistics.mean(stats.connections), 1)
                if stats.connections
                else 0,
                "commits_per_second": round(commits, 1),
            },
            "rss_mb": {
                f"{pid} {stats.process_names.get(pid, '')}": round(kb / 1024, 1)
                for pid, kb in sorted(stats.rss_kb.items())
            },
            "statuses": dict(sorted(stats.statuses.items())),
            "exceptions": dict(stats.exceptions),
            "errors_5xx": errors_5xx,
            "error_pages": dict(sorted(stats.error_pages.items())),
            "failures": errors_5xx + sum(stats.error_pages.values()),
            "reads": stats.reads,
            "nothing_lost": {
                "acknowledged_turn_actions": acked_total,
                "stored_turn_rows": stored_total,
                "unanswered_turn_actions": sum(stats.unanswered.values()),
                "rooms_that_differ": mismatched,
                "boards_not_at_final_version": len(self.boards) - caught_up,
                "ok": not mismatched and caught_up == len(self.boards),
            },
        }


def _times_1000(value: float | None) -> float | None:
    return value * 1000 if value is not None else None


def rss_by_role(rss_mb: dict[str, float]) -> dict[str, float]:
    """{"123 node0 uvicorn": 25.1, ...} summed by role ("node0 uvicorn")."""
    found: dict[str, float] = defaultdict(float)
    for key, mb in rss_mb.items():
        found[key.partition(" ")[2]] += mb
    return dict(found)


def print_report(report: dict[str, Any]) -> None:
    a, s, b, pg = (report[k] for k in ("actions", "seen_by_every_board", "boards", "postgres"))
    o, cores = report["options"], report["cores"]
    load = ", ".join(f"{x:.1f}" for x in cores["load_average"])
    lag, z = report["generator_lag"], report["sizes"]
    lines = [
        *([f"VOID: {report['void']}"] if report["void"] else []),
        f"load generator's own lag: p50 {lag['p50_ms']} ms, p99 {lag['p99_ms']} ms, "
        f"max {lag['max_ms']} ms (void above {VOID_LAG_MS:.0f} ms at p99)",
        f"make load: {b['count']} boards, {o['players']} players, {o['readers']} readers, "
        f"{o['duration']:.0f} s; {o['nodes']} node(s), each nginx (deploy/nginx's template) "
        f"in front of gunicorn {z['web_workers']} workers x {z['threads']} threads, pool "
        f"{z['pool']}"
        + (
            f" + uvicorn {z['live_workers']} workers, pool {z['live_pool']}, for ?wait="
            if "live_workers" in z
            else " (no uvicorn: the waits fall back to gunicorn)"
        )
        + f"; state cache {'on' if o['state_cache'] else 'off'}",
        f"cores: server {cores['server']}, load generator {cores['client']} "
        f"(of {cores['machine']}; load average {load})",
        f"actions: {a['count']} ({a['per_second']}/s); outside the throughput windows "
        f"({a['outside_windows']}): p50 {a['p50_ms']} ms, p95 {a['p95_ms']} ms, "
        f"p99 {a['p99_ms']} ms; in them ({a['in_windows']}): p50 {a['in_windows_p50_ms']} ms, "
        f"p95 {a['in_windows_p95_ms']} ms",
        f"the same actions as Django timed them (Server-Timing; the rest is the wait for a "
        f"thread and the generator's own lag): p50 {a['at_server_p50_ms']} ms, "
        f"p95 {a['at_server_p95_ms']} ms, p99 {a['at_server_p99_ms']} ms",
        (
            "a move made on node B seen by every waiting board of its room on node A"
            if o["nodes"] > 1
            else "a move seen by every waiting board of its room"
        )
        + ", outside the windows: p50 "
        f"{s['p50_ms']} ms, p95 {s['p95_ms']} ms, max {s['max_ms']} ms ({s['moves']} moves, "
        f"{s['never_seen']} never); in them ({s['in_windows']}): p95 {s['in_windows_p95_ms']} ms",
        f"rooms: {report['rooms']['played']} played, {report['rooms']['idle']} where nobody "
        f"moves; boards' requests: {b['requests']}, held by the server: {b['held_share']}",
        f"under load: state GET {report['state_get_per_second']} req/s, bare Django project "
        f"{report['reference_get_per_second']} req/s: {report['state_to_reference']}x",
        f"idle server: state GET {report['idle_state_get_per_second']} req/s, bare Django project "
        f"{report['idle_reference_get_per_second']} req/s: {report['idle_state_to_reference']}x",
        f"PostgreSQL: peak {pg['peak_connections']} connections (mean {pg['mean_connections']}), "
        f"{pg['commits_per_second']} transactions/s",
        "RSS (peak, summed over each server's processes): "
        + ", ".join(f"{role}: {mb:.0f} MB" for role, mb in rss_by_role(report["rss_mb"]).items()),
        f"statuses: {report['statuses']}; exceptions: {report['exceptions']}; "
        f"5xx: {report['errors_5xx']}; answers not JSON (error pages): {report['error_pages']}",
        f"nothing lost: {report['nothing_lost']}",
    ]
    print("\n".join(lines))


def parse(argv: list[str]) -> Options:
    defaults = Options()
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--boards", type=int, default=defaults.boards)
    parser.add_argument("--players", type=int, default=defaults.players)
    parser.add_argument("--readers", type=int, default=defaults.readers)
    parser.add_argument("--spectators-per-room", type=int, default=defaults.spectators_per_room)
    parser.add_argument("--boards-per-idle-room", type=float, default=defaults.boards_per_idle_room)
    parser.add_argument("--duration", "--seconds", type=float, default=defaults.duration)
    parser.add_argument("--warmup", type=float, default=defaults.warmup)
    parser.add_argument("--window", type=float, default=defaults.window)
    parser.add_argument("--think", type=float, nargs=2, default=defaults.think)
    parser.add_argument("--server", choices=("wsgi", "live"), default=defaults.server)
    parser.add_argument("--nodes", type=int, choices=(1, 2), default=defaults.nodes)
    parser.add_argument("--keep-files", action="store_true")
    parser.add_argument("--live-workers", type=int, default=defaults.live_workers)
    parser.add_argument("--live-pool", type=int, default=defaults.live_pool)
    parser.add_argument("--web-workers", type=int, default=defaults.web_workers)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--pool", type=int, default=defaults.pool, help="DB_POOL_MAX; 0 = off")
    parser.add_argument("--no-state-cache", dest="state_cache", action="store_false")
    parser.add_argument("--port", type=int, default=defaults.port)
    parser.add_argument("--database-url", default=defaults.database_url)
    parser.add_argument("--redis-url", default=defaults.redis_url)
    parser.add_argument("--server-cores", default=defaults.server_cores)
    parser.add_argument("--client-cores", default=defaults.client_cores)
    parser.add_argument("--grace", type=float, default=defaults.grace)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--output", default="")
    parser.add_argument("--quiet", action="store_true")
    values = vars(parser.parse_args(argv))
    values["think"] = tuple(values["think"])
    return Options(**values)


def run_nodes(options: Options, nodes: list[front.Node]) -> dict[str, Any]:
    """Start every node, wait for each server, drive the run."""
    settings = settings_env(options, nodes)
    sizes: dict[str, str] = {}
    for node in nodes:
        sizes = front.start_node(
            node,
            settings=settings,
            web=web_overrides(options),
            live=live_overrides(options) if options.server == "live" else None,
            live_workers=options.live_workers,
            database_url=options.database_url,
            cores=options.server_cores,
        )
    context = ssl.create_default_context()
    for node in nodes:
        context.load_verify_locations(cafile=str(node.folder / "cert.pem"))
    for node in nodes:
        log = node.folder / "logs" / "servers.log"
        if "uvicorn" in node.processes:
            socket = Path(node.run_path("/run/mesa-live/uvicorn.sock"))
            asyncio.run(wait_for_socket(socket, node.processes["uvicorn"], log))
        asyncio.run(wait_until_up(node.base + "/healthz", node.processes, log, context))
        if node.reference:
            asyncio.run(wait_until_up(node.reference + "/ref/-", node.processes, log, context))
    run = Run(options, nodes, context)
    run.sizes = sizes
    servers = {
        process.pid: f"{node.folder.name} {name}"
        for node in nodes
        for name, process in node.processes.items()
    }
    return asyncio.run(run.drive(servers))


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    _raise_open_files()
    cores = {int(core) for core in options.client_cores.split(",")}
    if hasattr(os, "sched_setaffinity") and cores <= set(range(os.cpu_count() or 1)):
        os.sched_setaffinity(0, cores)
    created = prepare_database(options)
    folder = Path(tempfile.mkdtemp(prefix="mesa-load-"))
    nodes = make_nodes(options, folder)
    try:
        report = run_nodes(options, nodes)
    finally:
        for node in nodes:
            for process in reversed(node.processes.values()):  # nginx first
                stop_server(process)
        if created:
            drop_database(options)
        else:
            print(f"{database_name(options.database_url)}: there before the run, kept")
        if options.keep_files:
            print(f"the nodes' configs and logs: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print_report(report)
    path = (
        Path(options.output)
        if options.output
        else RESULTS / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2))
    print(f"report: {path}")
    return 0 if report["nothing_lost"]["ok"] and not report["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
