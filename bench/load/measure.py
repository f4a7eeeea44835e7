"""What is measured: the moves, the boards, the counters, and how an answer is read."""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bench.load.options import VOID_LAG_MS


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
    # Of those: the request thread's CPU, its queries' wall time and its wait for a
    # pooled connection (bench/web/timing.py).
    action_cpu_ms: list[float | None] = field(default_factory=list)
    action_db_ms: list[float | None] = field(default_factory=list)
    action_pool_ms: list[float | None] = field(default_factory=list)
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
    # Board answers that set a cookie: the boards send their browser's cookies as they
    # were when they opened (clients.Browser.boards_session), so this must stay 0.
    board_set_cookie: int = 0
    throughput: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    connections: list[int] = field(default_factory=list)
    rss_kb: dict[int, int] = field(default_factory=dict)  # pid -> peak
    rss_before_boards_kb: dict[int, int] = field(default_factory=dict)  # pid -> before them
    process_names: dict[int, str] = field(default_factory=dict)
    lag_ms: list[float] = field(default_factory=list)  # the generator's timer, woken late
    # The generator's full garbage collections (generation 2), each (phase, ms): each
    # stops its loop.
    full_collections_ms: list[tuple[str, float]] = field(default_factory=list)
    # (phase, monotonic, process CPU seconds) as each phase begins: the generator's
    # own CPU over its wall time says whether a lag was its work or the machine's.
    cpu_marks: list[tuple[str, float, float]] = field(default_factory=list)

    # (phase, monotonic, {pid: (role, CPU seconds)}) of the servers, PostgreSQL and
    # Redis as each phase begins (Run.mark).
    server_cpu_marks: list[tuple[str, float, dict[int, tuple[str, float]]]] = field(
        default_factory=list
    )

    def mark(self, phase: str) -> None:
        self.cpu_marks.append((phase, time.monotonic(), time.process_time()))

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


def server_ms(header: str | None, metric: str = "app") -> float | None:
    """The "app;dur=12.3" (or another metric's) of a Server-Timing header, in ms."""
    for item in (header or "").split(","):
        name, _, params = item.strip().partition(";")
        if name == metric and params.startswith("dur="):
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
