"""The generator's people: a browser, a seat, the board's state reads (poll.js's
rhythm), and what a player does next."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from yarl import URL

from bench.channel import ChannelWaits
from bench.load.measure import Stats, json_or_none
from bench.load.options import HELD
from games.engine import Position, legal_plays


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
        self._boards_session: aiohttp.ClientSession | None = None

    def boards_session(self) -> aiohttp.ClientSession:
        """What this person's waiting boards read with: the same connections, the
        browser's cookies as they are when the first board opens, sent as one header
        without aiohttp's cookie jar (its filtering per request was a sixth of the
        generator's CPU a request at 10,000 boards). A board's state answers set no
        cookie; one that did is counted (Stats.board_set_cookie)."""
        if self._boards_session is None:
            cookies = self.session.cookie_jar.filter_cookies(URL(self.boards))
            headers = dict(self.session.headers)
            if cookies:
                headers["Cookie"] = "; ".join(f"{k}={m.value}" for k, m in cookies.items())
            connector = self.session.connector
            assert connector is not None
            self._boards_session = aiohttp.ClientSession(
                connector=connector,
                connector_owner=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                timeout=self.session.timeout,
                headers=headers,
            )
        return self._boards_session

    async def open_home(self) -> None:
        async with self.session.get(self.base + "/") as response:
            await response.read()

    def csrf(self) -> str:
        cookie = self.session.cookie_jar.filter_cookies(URL(self.base)).get("csrftoken")
        return cookie.value if cookie is not None else ""

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        status, answer, _timing = await self.post_timed(path, body)
        return status, answer

    async def post_timed(self, path: str, body: dict[str, Any]) -> tuple[int, Any, str | None]:
        """The status, the JSON answer and its Server-Timing header: what Django spent
        on it (bench/web/timing.py; read with measure.server_ms)."""
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
            return response.status, answer, response.headers.get("Server-Timing")

    async def close(self) -> None:
        await self.session.close()
        if self._boards_session is not None:
            await self._boards_session.close()


@dataclass
class Seat:
    browser: Browser
    number: int
    slug: str
    state: dict[str, Any] | None = None
    etag: str | None = None


class StateReader:
    """The board's api.state(): GET with If-None-Match, optionally ?wait=<version>."""

    def __init__(
        self,
        browser: Browser,
        slug: str,
        stats: Stats,
        board: bool = False,
        live_pass: bool = True,
    ) -> None:
        self.browser, self.slug, self.stats = browser, slug, stats
        self.live_pass = live_pass  # send X-Mesa-Pass back with the waits
        self.base = browser.boards if board else browser.base
        self.session = browser.boards_session() if board else browser.session
        self.board = board
        self.etag: str | None = None
        self.state: dict[str, Any] | None = None
        self.pass_: str | None = None  # X-Mesa-Pass, kept and sent back as api.js does
        self.date: str | None = None  # the Date of its last 200: the page's time, for the channel

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
            if self.pass_ and self.live_pass:
                headers["X-Mesa-Pass"] = self.pass_
        async with self.session.get(url, headers=headers) as response:
            self.stats.status("GET", response.status)
            if self.board and "Set-Cookie" in response.headers:
                self.stats.board_set_cookie += 1
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
            self.date = response.headers.get("Date")
        changed = self.state is None or state["version"] != self.state["version"]
        if self.state is None or state["version"] >= self.state["version"]:
            self.state, self.etag = state, etag
        return changed


WAIT_TIMEOUT = aiohttp.ClientTimeout(total=150)


class RoomChannel:
    """static/js/channel.js's roomChannel over the board's session: one subscribe
    a next(), "message", "quiet" or "broken" (bench/channel.py)."""

    def __init__(self, reader: StateReader) -> None:
        self.reader = reader
        self.url = f"{reader.base}/live/rooms/{reader.slug}"
        self.waits = ChannelWaits(reader.date)

    async def next(self) -> str:
        if self.waits.resting():
            return "broken"
        stats = self.reader.stats
        try:
            # Past nchan's 90 s (a browser's fetch has no timeout of its own).
            async with self.reader.session.get(
                self.url, headers=self.waits.headers(), timeout=WAIT_TIMEOUT
            ) as response:
                body = await response.read()
                stats.status("WAIT", response.status)
                status = response.status
                modified = response.headers.get("Last-Modified")
                tag = response.headers.get("Etag")
        except (TimeoutError, aiohttp.ClientError) as error:
            stats.failed(error)
            return self.waits.broken()
        if status >= 500:
            stats.error_page("WAIT", status)
        return self.waits.heard(status, modified, tag, body.decode("latin-1"))

    def news(self) -> int | None:
        return self.waits.news


REREAD = 600.0  # channel.js's REREAD_MS: a quiet board reads its state this often


def channel_check(
    channel: RoomChannel,
    refresh: Callable[[int | None], Awaitable[bool]],
    long_poll: Callable[[], Awaitable[bool]],
    held: float = HELD,
) -> Callable[[], Awaitable[bool]]:
    """static/js/channel.js's channelCheck: True means "ask again at once"."""
    read = time.monotonic()

    async def check() -> bool:
        nonlocal read
        started = time.monotonic()
        heard = await channel.next()
        if heard == "broken":
            read = time.monotonic()
            return await long_poll()
        waited = time.monotonic() - started
        if heard == "quiet" and waited >= held and time.monotonic() - read < REREAD:
            return True
        changed = await refresh(channel.news() if heard == "message" else None)
        read = time.monotonic()
        return heard == "message" or waited >= held or changed

    return check


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
