"""Plain helpers the site tests share: personas, reading a room, playing it,
requests, rows and queries, mail, races, a real worker, a real browser.

Fixtures live in the conftest files (tests/conftest.py for the personas, the
clock and the dice); test modules import these helpers from here, never from a
conftest or from another test module. The engine tests have their own,
Django-free tests/engine/helpers.py.
"""

import asyncio
import base64
import email
import email.policy
import json
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from playwright.sync_api import expect

from accounts.models import EmailOptOut, Profile
from accounts.services import profile_for
from games import analysis, services
from games.engine import MatchState, Phase, legal_plays
from games.models import Game, Match, Room, Seat, SentEmail, Turn

# -- personas -----------------------------------------------------------------

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the `clock` fixture's Monday morning


@dataclass
class Persona:
    """Someone at the table: their seat, its private token, their own browser (a test Client)."""

    name: str
    seat: Seat | None = None
    token: str | None = None  # the private seat secret, as the seat link carries it
    client: Any = field(default_factory=Client)

    def refresh(self):
        """Reload the seat row (after a service changed it)."""
        self.seat.refresh_from_db()
        return self.seat


def account(name):
    """A site account (a registered player) named `name`."""
    return get_user_model().objects.create_user(name, f"{name}@example.com", "a long secret 1")


def make_player(name: str, *, language: str = "es"):
    """An account with its email confirmed, reading the site in `language` (the lobby's players)."""
    user = get_user_model().objects.create_user(name, f"{name}@example.com", "x-Long-pass-1")
    profile = profile_for(user)
    profile.email_confirmed = True
    profile.language = language
    profile.save()
    return user


# The game analysis at bgsage 1-ply: fast (the `fast_analysis` fixture puts it in place).
FAST_ANALYSIS = analysis.Settings(play_level="1ply", cubeful_play_level="1ply", cube_level="1ply")
# The quick first pass: already fast (games.lib.evaluator.QUICK).
FAST_QUICK = analysis.QUICK_SETTINGS

# -- reading a room -----------------------------------------------------------


def current_match(room) -> Match:
    """The room's latest match row."""
    return Match.objects.filter(room=room).order_by("-number").first()


def state_of(room) -> MatchState:
    """The engine state of the room's current match."""
    return MatchState.from_json(current_match(room).state)


def version_of(room) -> int:
    """The version an action on the room's current match must carry."""
    return current_match(room).version


def seat_on_turn(room, *personas):
    """The persona whose seat owes the next action."""
    match = current_match(room)
    return next(p for p in personas if p.seat.pk == match.turn_seat_id)


def first_legal_play(room, side) -> list[list[int]]:
    """The first of the legal plays for `side` with the dice on the table."""
    state = state_of(room)
    plays = legal_plays(state.position_for(side), state.dice)
    return [list(step) for step in plays[0]]


def secret_forms(game: Game) -> list[str]:
    """Every way the game's secret seed could be written out (hex, base64, repr)."""
    seed = bytes(game.seed)
    return [seed.hex(), seed.hex().upper(), base64.b64encode(seed).decode(), repr(seed)]


# -- playing ------------------------------------------------------------------


def play_turns(room, alice, bob, count):
    """Play `count` turns, the first legal play each, where the table rolls (no cube to answer)."""
    for _ in range(count):
        match = current_match(room)
        if match.status == Match.Status.FINISHED:
            return
        persona = seat_on_turn(room, alice, bob)
        side = match.side_of(persona.seat)
        services.game_play(
            seat=persona.seat, version=match.version, play=first_legal_play(room, side)
        )


def play_out(room, *personas, take=True, limit=5000):
    """Play the current match to its end (roll, take, first legal play); return the finished match.

    A sesión libre is stopped after its first game.
    """
    for _ in range(limit):
        match = current_match(room)
        if match.status == Match.Status.FINISHED:
            return match
        state = MatchState.from_json(match.state)
        if state.phase is Phase.GAME_OVER:
            services.session_stop(seat=personas[0].seat, version=match.version)
            continue
        persona = seat_on_turn(room, *personas)
        side = match.side_of(persona.seat)
        if state.phase is Phase.ROLL:
            services.game_roll(seat=persona.seat, version=match.version)
        elif state.phase is Phase.DOUBLED:
            answer = services.game_take if take else services.game_drop
            answer(seat=persona.seat, version=match.version)
        elif state.phase is Phase.RESIGN_OFFERED:
            services.game_resign_decline(seat=persona.seat, version=match.version)
        else:
            services.game_play(
                seat=persona.seat, version=match.version, play=first_legal_play(room, side)
            )
    raise AssertionError("the match did not end")


# -- requests -----------------------------------------------------------------


def page_urls(room) -> list[str]:
    """Every page a person reads, the room's own board included."""
    return [
        reverse("games:home"),
        reverse("games:rules"),
        reverse("games:my_rooms"),
        reverse("games:room", args=[room.slug]),
    ]


# Every URL that carries a room slug, with {} for the slug.
SLUG_PATHS = [
    "/api/rooms/{}/",
    "/api/rooms/{}/join",
    "/api/rooms/{}/steps",
    "/api/rooms/{}/actions/roll",
    "/mesa/{}/",
    "/mesa/{}/sentarse/",
    "/mesa/{}/mirar/",
    "/mesa/{}/asiento/sometoken/",
    "/mesa/{}/jugar/roll/",
    "/mesa/{}/encuentro.mat",
]


def seat_url(room, token) -> str:
    """The path of a private seat link."""
    return reverse("games:seat_link", args=[room.slug, token])


def bind(persona, room):
    """Open the persona's private seat link in their browser, as the invitation flow does."""
    response = persona.client.get(seat_url(room, persona.token))
    assert response.status_code == 302
    return response


def state_url(room) -> str:
    """The JSON state endpoint of a room."""
    return reverse("games:api_state", args=[room.slug])


def action_url(room, action) -> str:
    """The JSON endpoint of one game action."""
    return reverse("games:api_action", args=[room.slug, action])


def post_json(client, url, body, **extra):
    """POST `body` as JSON (a str or bytes body is sent as it is)."""
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json", **extra)


@dataclass
class AsgiAnswer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


async def asgi_get(app, path: str, query: str = "", headers=()) -> AsgiAnswer:
    """GET `path` from an ASGI application in this process (config/asgi.py's, say),
    as uvicorn would hand it a request: the body at once, then nothing until it ends."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"testserver"), *((k.encode(), v.encode()) for k, v in headers)],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    asked = False
    done = asyncio.Event()
    sent = []

    async def receive():
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    try:
        await app(scope, receive, send)
    finally:
        done.set()
    start = sent[0]
    return AsgiAnswer(
        status=start["status"],
        headers={k.decode().lower(): v.decode() for k, v in start.get("headers", [])},
        body=b"".join(m.get("body", b"") for m in sent[1:]),
    )


# -- rows and queries -----------------------------------------------------------


def snapshot() -> dict:
    """Every row a game action could touch, as plain values."""
    return {
        model.__name__: list(model.objects.order_by("pk").values())
        for model in (Room, Seat, Match, Game, Turn)
    }


def whole_db() -> dict:
    """Every row a request could write, users and sessions' seats included."""
    rows = snapshot()
    for model in (get_user_model(), Profile, EmailOptOut, SentEmail):
        rows[model.__name__] = list(model.objects.order_by("pk").values())
    return rows


def queries_of(call) -> int:
    """How many SQL queries `call()` makes."""
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries)


def count_queries(client, url, *, warm_up=False) -> int:
    """The queries of a GET answered 200; `warm_up` GETs once first (a seat's "last seen" write)."""
    if warm_up:
        client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


# -- mail -----------------------------------------------------------------------


def sent(mailoutbox) -> Counter:
    """How many emails went out, by (recipient, subject)."""
    return Counter((message.to[0], message.subject) for message in mailoutbox)


# -- races --------------------------------------------------------------------


def race(*calls):
    """Start every call at once on its own thread; return what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as exc:  # the outcome is what the test checks
            outcomes[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def needs_postgresql(why: str) -> list:
    """The marks of a race test module: transactions that really commit, on PostgreSQL only."""
    return [
        pytest.mark.django_db(transaction=True),
        pytest.mark.skipif(
            connection.vendor != "postgresql",
            reason=f"needs PostgreSQL: {why} (run with DATABASE_URL=postgres://...)",
        ),
    ]


# -- what a test needs from the machine ---------------------------------------------


def on_ci() -> bool:
    """CI=true (or 1): .ci/run sets it, after installing and starting everything the tests use."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def missing(what: str) -> None:
    """Skip a test whose tool or service is not on this machine; on CI fail it
    instead, since there a skipped check is a check that silently never ran."""
    if on_ci():
        pytest.fail(f"{what}, and on CI (CI=true) this test must run", pytrace=False)
    pytest.skip(what)


# -- a real worker, broker and mail server ------------------------------------------

# The worker tests' broker, which they flush: MESA_WORKER_REDIS_URL gives a
# database of one's own where several checkouts share one Redis.
REDIS_URL = os.environ.get("MESA_WORKER_REDIS_URL", "redis://127.0.0.1:6379/11")


def redis_or_skip():
    """A client of the worker tests' Redis; when it does not answer, skip (fail on CI)."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {REDIS_URL} ({error}); .ci/run starts it")
    return client


def database_url_for_the_worker() -> str:
    """The URL of the database this test runs on, for another process."""
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        host = db.get("HOST") or "127.0.0.1"
        return f"postgres://{db['USER']}{password}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"
    name = str(db["NAME"])
    if connection.vendor != "sqlite" or "memory" in name or not os.path.isabs(name):
        pytest.skip("the worker needs a database it can open too: PostgreSQL or a SQLite file")
    return f"sqlite:///{name}"


def free_port() -> int:
    """A port the system has free now (for a mail server in this process)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Inbox:
    """An aiosmtpd handler that keeps every message it is given."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 Message accepted"


# -- a push service on loopback (Web Push, RFC 8030/8291/8292) ------------------------
#
# It plays the part of FCM or Mozilla's autopush: records each message and
# answers `status`; `check_vapid` checks the token as a push service does, and
# `PushBrowser.read` decrypts the body with the subscription's keys, as the
# browser would (tests/games/test_push.py, tests/browser/test_push_subscription.py).


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(key) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


class PushService:
    """A push service on 127.0.0.1: records each message, answers `status`."""

    def __init__(self):
        self.received = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {name.lower(): value for name, value in self.headers.items()}
                service.received.append((self.path, headers, body))
                self.send_response(service.status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class PushBrowser:
    """What a browser keeps of its subscription: an ECDH key pair and an auth secret."""

    def __init__(self, endpoint: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = endpoint

    def subscription(self) -> dict:
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64u(point(self.key)), "auth": b64u(self.auth)},
        }

    def read(self, body: bytes) -> dict:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def check_vapid(headers: dict, site_key, audience: str) -> dict:
    """The token's signature, audience, subject and expiry, as a push service checks them."""
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert unb64u(fields["k"]) == point(site_key)
    head, claims, signature = fields["t"].split(".")
    raw = unb64u(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    site_key.public_key().verify(
        der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256())
    )  # raises when the signature is wrong
    payload = json.loads(unb64u(claims))
    assert payload["aud"] == audience and payload["sub"] == "mailto:mesa@example.com"
    assert time.time() < payload["exp"] <= time.time() + 24 * 3600
    return payload


# -- in a real browser (tests/browser) ----------------------------------------------

ALICE, BOB = "alice", "bob"
PHONE = {"width": 360, "height": 740}


def seated(rules):
    """alice opens a room with `rules` and bob joins it; their two seats."""
    alice = services.room_create(rules=rules, nickname=ALICE)
    bob = services.room_join(room=alice.room, nickname=BOB)
    return alice, bob


def table_urls(live_server, alice, bob) -> dict:
    """On the live server: alice's and bob's seat links by name, and the room's page as "watch"."""
    return {
        ALICE: live_server.url + seat_url(alice.room, alice.token),
        BOB: live_server.url + seat_url(bob.room, bob.token),
        "watch": live_server.url + reverse("games:room", args=[alice.room.slug]),
    }


def latest_version() -> int:
    """The version of the match created last (the browser tests have one room)."""
    return Match.objects.order_by("-pk").first().version


def key_of(point: int) -> str:
    """The board's data-key of a point in the mover's numbering (25 = bar, 0 = off)."""
    return {25: "bar", 0: "off"}.get(point, str(point))


def spot(page, point: int, state: str = ""):
    """The board's spot for a point, with an optional state class (".source", ".target")."""
    return page.locator(f'.board-svg .spot{state}[data-key="{key_of(point)}"]')


def settled(page):
    """Wait until the board has the server's answer (no options or action in flight)."""
    expect(page.locator('.board-svg[aria-busy="false"]')).to_have_count(1)


def tap_step(page, src: int, dst: int):
    """Tap a checker the server lets move, then the destination it marked."""
    settled(page)
    source = spot(page, src, ".source")
    expect(source).to_have_count(1)
    if not spot(page, src, ".selected").count():
        source.click()
    target = spot(page, dst, ".target")
    expect(target).to_have_count(1)
    target.click()


def finish_turn(page):
    """Press the board's finish button once it is enabled."""
    finish = page.locator("#board-finish")
    expect(finish).to_be_enabled()
    finish.click()


def drawn_colour(page, x: float, y: float) -> tuple[int, int, int]:
    """The colour the browser painted at page point (x, y), as (r, g, b).

    A 1x1 screenshot of that point, decoded by the page itself (no image
    library needed): what the player sees, after every stylesheet applied.
    """
    png = page.screenshot(clip={"x": x, "y": y, "width": 1, "height": 1})
    data = "data:image/png;base64," + base64.b64encode(png).decode()
    return tuple(
        page.evaluate(
            """async (data) => {
                const image = new Image();
                image.src = data;
                await image.decode();
                const canvas = document.createElement("canvas");
                canvas.width = canvas.height = 1;
                const context = canvas.getContext("2d");
                context.drawImage(image, 0, 0);
                return Array.from(context.getImageData(0, 0, 1, 1).data.slice(0, 3));
            }""",
            data,
        )
    )


def centre_of(locator) -> tuple[float, float]:
    """The middle of an element's bounding box on the page."""
    box = locator.bounding_box()
    assert box is not None, "the element is not drawn"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def sideways_overflow(page) -> int:
    """How many CSS pixels the document is wider than the window (0: nothing scrolls sideways)."""
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def when_published(monkeypatch: Any, task: Any, run: Callable[..., object]) -> None:
    """Call ``run(*args, **kwargs)`` where the outbox would hand ``task`` to the broker.

    games.services.outbox publishes with ``apply_async`` (its own producer, short
    timeouts, the row's header), so a test that wants a follow-up run in-process,
    recorded or dropped patches that, not ``delay``."""

    def apply_async(
        args: Sequence[object] | None = None,
        kwargs: Mapping[str, object] | None = None,
        **options: object,
    ) -> object:
        return run(*(args or ()), **(kwargs or {}))

    monkeypatch.setattr(task, "apply_async", apply_async)
