"""The run: seeding, the players, the waiting boards, the readers, the throughput
windows and the samplers, driven from one event loop."""

from __future__ import annotations

import asyncio
import gc
import math
import os
import random
import signal
import ssl
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import aiohttp
import psycopg

from bench import front
from bench.load import report as reporting
from bench.load.clients import (
    TURN_ACTIONS,
    Browser,
    RoomChannel,
    Seat,
    StateReader,
    channel_check,
    live_poll,
    next_action,
)
from bench.load.measure import Board, Move, Stats, server_ms
from bench.load.options import HELD, LAG_TICK, NAMES, RELOAD_SPAN, Options
from bench.load.servers import (
    admin_url,
    children,
    cpu_seconds,
    database_name,
    make_nodes,
    named_processes,
    rss_kb,
)


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
        self.reloads: list[tuple[float, float]] = []  # each reload of nginx, and RELOAD_SPAN on
        self.servers: dict[int, str] = {}  # each server's first pid -> its role
        self.collection_started = 0.0  # perf_counter at the start of a full collection

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
            status, answer, timing = await seat.browser.post_timed(
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
            self.stats.action_server_ms.append(server_ms(timing))
            self.stats.action_cpu_ms.append(server_ms(timing, "cpu"))
            self.stats.action_db_ms.append(server_ms(timing, "db"))
            self.stats.action_pool_ms.append(server_ms(timing, "pool"))
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
        reader = StateReader(
            browser, board.room, self.stats, board=True, live_pass=self.options.live_pass
        )

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
                # As poll.js after a failure (its `slow`, 20 s), not every 2 s: at 10,000
                # boards a 2 s retry made each failed page load five requests in 10 s,
                # 257,090 x 502 in one run, and the node never caught up.
                await self._pause(20.0, self.stop_boards)
        board.started = time.monotonic()
        answered(True, 0.0)

        def long_poll() -> Awaitable[bool]:
            return reader.refresh(wait=True)

        def refresh(news: int | None) -> Awaitable[bool]:
            # controller.js: a message naming a newer version is read as a ?wait=.
            return reader.refresh(wait=news is not None and news > reader.version)

        # The board waits on its room's channel in nginx, as the page tells it to
        # behind the front (static/js/channel.js); --long-poll: only the fallback.
        check = (
            long_poll
            if self.options.long_poll
            else channel_check(RoomChannel(reader), refresh, long_poll)
        )
        await live_poll(check, self.stop_boards, on_answer=answered)

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
        for _ in range(self.options.rounds):
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

    def time_full_collections(self, phase: str, info: dict[str, int]) -> None:
        """gc's callback: how long each full collection stopped the generator's loop."""
        if info["generation"] != 2:
            return
        if phase == "start":
            self.collection_started = time.perf_counter()
        else:
            during = self.stats.cpu_marks[-1][0] if self.stats.cpu_marks else "start"
            took = (time.perf_counter() - self.collection_started) * 1000
            self.stats.full_collections_ms.append((during, took))

    async def sample_memory(self, servers: dict[int, str]) -> None:
        """Each server's processes (the master and its workers), by role."""
        self.servers = servers
        while not self.stop_samplers.is_set():
            self.memory_now()
            await self._pause(2.0, self.stop_samplers)

    def mark(self, phase: str) -> None:
        """A phase begins: the generator's CPU (Stats.mark) and each server process's."""
        self.stats.mark(phase)
        self.stats.server_cpu_marks.append((phase, time.monotonic(), self.cpu_now()))

    def cpu_now(self) -> dict[int, tuple[str, float]]:
        """Each server process's CPU seconds so far, by pid with its role; and the
        machine's PostgreSQL and Redis processes (theirs during a run)."""
        found: dict[int, tuple[str, float]] = {}
        processes = {
            pid: role
            for server, role in self.servers.items()
            for pid in (server, *children(server))
        }
        for pid, role in {**processes, **named_processes(("postgres", "redis-server"))}.items():
            seconds = cpu_seconds(pid)
            if seconds is not None:
                found[pid] = (role, seconds)
        return found

    def memory_now(self) -> dict[int, int]:
        """Each server process's RSS now (kB), its peak kept."""
        found = {}
        for server, role in self.servers.items():
            for pid in (server, *children(server)):
                kb = rss_kb(pid)
                if kb is not None:
                    found[pid] = kb
                    self.stats.rss_kb[pid] = max(kb, self.stats.rss_kb.get(pid, 0))
                    self.stats.process_names.setdefault(pid, role)
        return found

    # -- the whole run -------------------------------------------------------------------------

    async def drive(self, servers: dict[int, str]) -> dict[str, Any]:
        options = self.options
        self.start = time.monotonic()
        self.servers = servers
        # An idle connection is kept past the boards' longest pause (live_poll's 20 s
        # back-off; aiohttp's own 15 s closed it under them, and each board then paid
        # a new TLS handshake), and below nginx's keepalive_timeout (30 s), so that
        # nginx never closes one under a request.
        connector = aiohttp.TCPConnector(
            limit=0, limit_per_host=0, ssl=self.context or True, keepalive_timeout=25.0
        )
        samplers = [
            asyncio.create_task(self.sample_connections()),
            asyncio.create_task(self.sample_memory(servers)),
            asyncio.create_task(self.sample_lag()),
        ]
        self.mark("seeding")
        self.log(f"seeding {max(1, options.players // 2)} rooms")
        await self.seed(connector)
        bench_session = aiohttp.ClientSession(
            connector=connector, connector_owner=False, timeout=aiohttp.ClientTimeout(total=30)
        )
        # The same two GETs on the idle server first (after one warm-up look each):
        # what each costs alone, beside what it costs under the load below.
        for name in NAMES:
            await self.throughput(bench_session, name, 1.0)
        for name in NAMES * self.options.rounds:
            rate = await self.throughput(bench_session, name, self.options.window / 2)
            self.stats.throughput[f"idle {name}"].append(rate)
            self.log(f"idle throughput {name}: {rate:.0f} req/s")
        spectators = [
            Browser(self.base, connector, "es", self.stats, self.boards_base),
            Browser(self.base, connector, "en", self.stats, self.boards_base),
        ]
        boards: list[asyncio.Task[None]] = []
        # What the servers hold before any board waits: the boards' own share is above it.
        self.stats.rss_before_boards_kb = self.memory_now()
        self.mark("opening the boards")
        self.log(f"opening {options.boards} boards")
        stagger = options.boards / options.open_rate
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
        # The boards' connections and tasks live to the end: out of the collector's
        # sight, so that its full collections (each stops this loop for as long as it
        # scans them, over a second at 10,000 boards) do not add to what it measures.
        gc.freeze()
        # What the open boards cost the node alone: their waits held and renewed.
        self.mark("boards waiting")
        await asyncio.sleep(options.still)
        readers = [
            asyncio.create_task(self.reader(spectators[0], self.slugs[i % len(self.slugs)]))
            for i in range(options.readers)
        ]
        self.mark("players")
        self.log(f"{len(self.seats)} players start")
        # The transactions of the measured window only: seeding's are not in the rate.
        commits_before, measured = await self.commits(), time.monotonic()
        players = [asyncio.create_task(self.player(seat)) for seat in self.seats]
        windows = asyncio.create_task(self.throughput_windows(bench_session))
        if options.reload_at is not None:
            players.append(asyncio.create_task(self.reload_nginx(options.reload_at)))
        await asyncio.sleep(options.duration)
        self.mark("after the players")
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
        self.mark("end")
        self.stop_samplers.set()
        await asyncio.gather(*samplers)
        stored = await self.stored_turns()
        await bench_session.close()
        idle_browsers = {browser for _slug, *pair in self.idle for browser in pair}
        for browser in {seat.browser for seat in self.seats} | set(spectators) | idle_browsers:
            await browser.close()
        await connector.close()
        return self.report(final, caught_up, stored, commits)

    async def reload_nginx(self, after: float) -> None:
        """Every node's nginx reloaded `after` seconds into the players' phase: SIGHUP
        to its master, as `systemctl reload nginx` sends it. nchan hands no
        subscriber to the new worker: every board hears its channel break and
        long polls for a minute (static/js/channel.js)."""
        try:
            await asyncio.wait_for(self.stop_players.wait(), after)
            return  # the players stopped first
        except TimeoutError:
            pass
        moment = time.monotonic()
        masters = [pid for pid, role in self.servers.items() if role.endswith(" nginx")]
        for pid in masters:
            os.kill(pid, signal.SIGHUP)
        self.reloads.append((moment, moment + RELOAD_SPAN))
        self.log(f"nginx reloaded (SIGHUP to {len(masters)} master(s))")

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

    # -- the report (bench/load/report.py) -----------------------------------------------

    def in_window(self, start: float, end: float) -> bool:
        """Whether [start, end] overlaps a throughput window."""
        return reporting.in_window(self.windows, start, end)

    def seen_delays(self) -> tuple[list[tuple[float, float]], int]:
        return reporting.seen_delays(self.boards, self.stats.moves)

    def report(
        self, final: dict[str, int], caught_up: int, stored: dict[str, int], commits: float
    ) -> dict[str, Any]:
        return reporting.build(self, final, caught_up, stored, commits)
