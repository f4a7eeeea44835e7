"""The ASGI application of config/asgi.py: Django, with the boards' held
``?wait=`` state requests waited here, in front of it.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode

from games.services.cleaning import int_from_text
from games.web import etags, live_pass
from games.web.etags import BoardTag, board_tag
from games.web.lean import STATE_PATH
from games.web.live.fanout import flights
from games.web.live.waits import Woken, wait_for_pulse
from games.web.state_cache import Answer

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# Django's own on a JSON answer (SecurityMiddleware, XFrameOptionsMiddleware), for the
# answers given here without it.
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)


def wait_target(path: str, query: bytes, method: str) -> tuple[str, int] | None:
    """(slug, version) of a board's held state request; None for anything else
    (a malformed ?wait= too: the view answers its 400).

    The path is matched with the state GET's own pattern (games.web.lean, whose
    property test holds it to the URL conf), not Django's resolver: resolving
    tried every pattern before the API's and took a quarter of a busy uvicorn
    worker's main thread at 10,000 boards (docs/LOAD.md)."""
    if method not in ("GET", "HEAD"):
        return None
    found = STATE_PATH.match(path)
    if found is None:
        return None
    texts = parse_qs(query.decode("latin-1")).get("wait")
    if not texts or len(texts) != 1:
        return None
    version = int_from_text(texts[0])
    if version is None or version < 0:
        return None
    return found["slug"], version


def board_etag(scope: Scope, version: int) -> BoardTag | None:
    """The board's If-None-Match when it is one header naming one of our tags for `version`."""
    values: list[bytes] = [v for name, v in scope.get("headers", ()) if name == b"if-none-match"]
    if len(values) != 1:
        return None
    return board_tag(values[0].decode("latin-1"), version)


class Departure:
    """The client's messages while its request waits, the wait in the request's own
    task: a departure cancels that task (nobody to answer), and Django later hears
    what came meanwhile. One task a held wait beside uvicorn's, not two, and no
    asyncio.wait: about 2 KB less a wait (docs/LOAD.md)."""

    __slots__ = ("receive", "heard", "left", "task")

    def __init__(self, receive: Receive, task: asyncio.Task[Any]) -> None:
        self.receive = receive
        self.heard: list[Message] = []
        self.left = False
        # The waiting task, cancelled on a departure until the wait ends (None after).
        self.task: asyncio.Task[Any] | None = task

    async def watch(self) -> None:
        try:
            while True:
                message = await self.receive()
                self.heard.append(message)
                if message["type"] == "http.disconnect":
                    self.left = True
                    if self.task is not None:
                        self.task.cancel()
                    return
        except Exception as error:  # no word of a departure: the wait goes on
            log.info("live: a client's messages are not heard (%r)", error)

    async def replay(self) -> Message:
        """Django's receive: what came while the request waited, then the client's own."""
        return self.heard.pop(0) if self.heard else await self.receive()


class LiveWaits:
    """Django, with held ?wait= requests waited here.

    A board's ``GET /api/rooms/<slug>/?wait=<version>`` waits in front of
    Django, before any middleware, thread, session or connection; then it goes
    on to Django without ``wait=``, and games.web.api.room_state answers the
    state as it is now (with its ETag: 304 when this viewer's state did not
    change). Everything else goes straight to Django. A client that leaves
    while waiting stops the wait.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        target = None
        if scope["type"] == "http":
            target = wait_target(scope["path"], scope.get("query_string", b""), scope["method"])
        if target is None:
            await self.app(scope, receive, send)
            return
        slug, version = target
        board = board_etag(scope, version)
        task = asyncio.current_task()
        assert task is not None  # an ASGI server runs each request in a task
        departure = Departure(receive, task)
        watcher = asyncio.ensure_future(departure.watch())
        woken: Woken | None = None
        try:
            woken = await wait_for_pulse(slug, version, serial=board.serial if board else None)
        except asyncio.CancelledError:
            if departure.left and task.uncancel() == 0:
                return  # the client left: nobody to answer
            raise  # the server stops
        except Exception as error:
            log.warning("live: a wait failed (%r); answered at once", error)
        finally:
            departure.task = None
            watcher.cancel()
        if departure.left:
            return  # the client left as the wait ended: nobody to answer
        if woken is not None:
            if not woken.moved and board is not None and board.clock_allows():
                await send_not_modified(send, board.tag)
                return
            given = live_pass.read(scope.get("headers", ()), slug)
            if woken.moved and woken.pulse is not None and given is not None:
                answer = await fanned(given, woken.tick)
                if answer is not None:
                    await send_state(send, answer, scope, given.language)
                    return

        query = urlencode(
            [
                (k, v)
                for k, v in parse_qsl(
                    scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True
                )
                if k != "wait"
            ]
        )
        await self.app({**scope, "query_string": query.encode("latin-1")}, departure.replay, send)


async def fanned(given: live_pass.Pass, woke: int) -> Answer | None:
    """The room's state for the pass's role and language (games.web.live.fanout); None:
    Django answers this board (its seat changed, the room is gone, the database
    failed: Django says so as it always does)."""
    try:
        return await flights().answer(given, woke)
    except Exception as error:
        log.info("live: no shared state for room %s (%r); Django answers", given.slug, error)
        return None


async def send_state(send: Send, answer: Answer, scope: Scope, language: str) -> None:
    """What games.web.api.answer_response sends: the state, or 304 when the board's
    If-None-Match names it. No new pass: only Django gives those."""
    asked = b", ".join(v for name, v in scope.get("headers", ()) if name == b"if-none-match")
    same = etags.names(asked.decode("latin-1"), answer.etag)
    headers = [
        (b"etag", answer.etag.encode("latin-1")),
        (b"cache-control", b"private, no-cache"),
        (b"vary", b"Cookie, Accept-Language"),
        (b"content-language", language.encode("ascii")),
        *SECURITY_HEADERS,
    ]
    if same:
        await send({"type": "http.response.start", "status": 304, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    body = b"" if scope["method"] == "HEAD" else answer.body
    headers += [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(answer.body)).encode("ascii")),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_not_modified(send: Send, tag: bytes) -> None:
    """The 304 games.web.api.answer_response would send, its headers included."""
    await send(
        {
            "type": "http.response.start",
            "status": 304,
            "headers": [
                (b"etag", tag),
                (b"cache-control", b"private, no-cache"),
                (b"vary", b"Cookie, Accept-Language"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
