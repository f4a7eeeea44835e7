"""Two web nodes sharing PostgreSQL and Redis: a board waiting on
node A sees a move made through node B, woken by the room's pulse.

Each node is what docs/DEPLOY.md installs on a machine: nginx rendering
deploy/nginx/mesa.conf.template (TLS on a throwaway certificate), gunicorn
for the site and uvicorn (config/asgi.py) for the held ?wait= requests, on
unix sockets, with the production settings. Both nodes use this test run's
PostgreSQL database and LIVE_REDIS_URL (CI: the broker's Redis) with a
channel of their own. Ports come from MESA_NGINX_PORT_BASE, as for the front.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from django.db import connection

from games import services
from games.engine import MatchRules
from games.web import longpoll
from games.web.live import waits
from tests.helpers import database_url_for_the_worker, first_legal_play, missing, version_of
from tests.test_deploy import ROOT, production_env

from .browser import Browser
from .conftest import GUNICORN, HOST, NGINX, certificate, free_ports, render, write_nginx_conf
from .nginxconf import channel_values, publish_url

UVICORN = Path(sys.executable).with_name("uvicorn")


@dataclass
class Node:
    name: str
    folder: Path
    https_port: int
    processes: dict[str, subprocess.Popen]

    def request(self, method, path, *, headers=None, body=None, timeout=20):
        context = ssl.create_default_context(cafile=str(self.folder.parent / "cert.pem"))
        conn = http.client.HTTPSConnection(
            "127.0.0.1", self.https_port, timeout=timeout, context=context
        )
        try:
            conn.request(method, path, body=body, headers={"Host": HOST, **(headers or {})})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def log(self, process: str) -> str:
        return (self.folder / f"{process}.log").read_text(errors="replace")


def _start_node(name: str, root: Path, ports: tuple[int, int, int], env: dict[str, str]) -> Node:
    folder = root / name
    (folder / "logs").mkdir(parents=True)
    http_port, https_port, publish_port = ports
    values = {
        "MESA_SERVER_NAME": HOST,
        "MESA_HTTP_LISTEN": f"127.0.0.1:{http_port}",
        "MESA_HTTPS_LISTEN": f"127.0.0.1:{https_port}",
        "MESA_TLS_CERT": str(root / "cert.pem"),
        "MESA_TLS_KEY": str(root / "key.pem"),
        "MESA_UPSTREAM": f"unix:{folder / 'gunicorn.sock'}",
        "MESA_LIVE_UPSTREAM": f"unix:{folder / 'uvicorn.sock'}",
        "MESA_STATIC_ROOT": str(folder),
        "MESA_LOG_DIR": str(folder / "logs"),
        **channel_values(publish_port),
    }
    template = (ROOT / "deploy" / "nginx" / "mesa.conf.template").read_text()
    (folder / "mesa.conf").write_text(render(template, values))
    write_nginx_conf(folder)
    node_env = {
        **env,
        "GUNICORN_BIND": f"unix:{folder / 'gunicorn.sock'}",
        "WEB_CONCURRENCY": "1",
        "GUNICORN_THREADS": "8",
    }
    commands = {
        "gunicorn": [str(GUNICORN), "-c", "config/gunicorn.conf.py"],
        # As deploy/systemd/mesa-live.service runs it, with one worker.
        "uvicorn": [
            str(UVICORN), "config.asgi:application", "--uds", str(folder / "uvicorn.sock"),
            "--workers", "1", "--no-proxy-headers", "--timeout-keep-alive", "30",
        ],
        "nginx": [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
    }  # fmt: skip
    processes = {}
    for process, command in commands.items():
        with (folder / f"{process}.log").open("w") as log:
            processes[process] = subprocess.Popen(
                command, cwd=ROOT, env=node_env, stdout=log, stderr=subprocess.STDOUT
            )
    node = Node(name, folder, https_port, processes)
    _wait_until_up(node)
    return node


def _wait_until_up(node: Node) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        for process, popen in node.processes.items():
            if popen.poll() is not None:
                pytest.fail(f"node {node.name}: {process} exited:\n{node.log(process)[-3000:]}")
        up = (node.folder / "gunicorn.sock").exists() and (node.folder / "uvicorn.sock").exists()
        try:
            if up and node.request("GET", "/healthz", timeout=5)[0] == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.2)
    pytest.fail(f"node {node.name} did not come up: see {node.folder}")


def _stop(nodes: list[Node]) -> None:
    popens = [p for node in nodes for p in node.processes.values() if p.poll() is None]
    for popen in popens:
        popen.terminate()
    for popen in popens:
        try:
            popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            popen.kill()


@pytest.fixture(scope="module")
def nodes(django_db_setup, django_db_blocker, tmp_path_factory):
    if not os.path.exists(NGINX):
        missing("nginx is not installed (apt-get install nginx; .ci/run does)")
    if not shutil.which("openssl"):
        missing("openssl is not installed (the nodes' throwaway certificate)")
    if not UVICORN.exists():
        missing(f"uvicorn is not installed in {UVICORN.parent} (requirements.txt)")
    if connection.vendor != "postgresql":
        missing("the two nodes share PostgreSQL (run with DATABASE_URL=postgres://...)")
    from django.conf import settings

    redis_url = settings.LIVE_REDIS_URL
    if not redis_url:
        missing("LIVE_REDIS_URL (or a redis:// CELERY_BROKER_URL / CACHE_URL) is not set")
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {redis_url} ({error}); .ci/run starts it")
    channel = f"mesa:live:test:{uuid.uuid4().hex[:8]}"
    root = tmp_path_factory.mktemp("nodes")
    certificate(root)
    with django_db_blocker.unblock():
        database = database_url_for_the_worker()
    env = production_env(
        DJANGO_SETTINGS_MODULE="tests.deploy.settings",
        PYTHONPATH=str(ROOT),
        SITE_URL=f"https://{HOST}",
        ALLOWED_HOSTS=HOST,
        DATABASE_URL=database,
        CACHE_URL=redis_url,
        CELERY_BROKER_URL="memory://",
        MESA_ALLOW_EMBEDDED="1",  # the memory broker: no worker in this test
        LIVE_REDIS_URL=redis_url,
        LIVE_CHANNEL=channel,
        TRUSTED_PROXIES="127.0.0.1",
        STATICFILES_BACKEND="django.contrib.staticfiles.storage.StaticFilesStorage",
    )
    ports = free_ports(6)
    # Each node's processes publish a room's pulse to both nodes' nginx.
    env["LIVE_NCHAN_URL"] = f"{publish_url(ports[2])},{publish_url(ports[5])}"
    started: list[Node] = []
    try:
        for name, pair in (("a", ports[:3]), ("b", ports[3:])):
            started.append(_start_node(name, root, (pair[0], pair[1], pair[2]), env))
        yield {"a": started[0], "b": started[1], "channel": channel, "redis": redis_url}
    finally:
        _stop(started)


@pytest.fixture
def table(nodes, transactional_db, settings, dice):
    """alice and bob at a table (alice opened with 3-1), and the same channel as the nodes."""
    settings.LIVE_CHANNEL = nodes["channel"]
    from games.services import live

    live.reset()
    dice.push((3, 1))
    alice = services.room_create(rules=MatchRules(), nickname="alice")
    room = alice.room
    bob = services.room_join(room=room, nickname="bob")
    yield room, alice, bob
    live.reset()


def _held_wait(browser: Browser, node: Node, slug: str, version: int, etag: str, answer: dict):
    started = time.monotonic()
    status, headers, body = browser.request(
        node,
        "GET",
        f"/api/rooms/{slug}/?wait={version}",
        headers={"If-None-Match": etag, "Accept": "application/json"},
        timeout=60,
    )
    answer.update(status=status, body=body, ended=time.monotonic(), held=time.monotonic() - started)


def _pulse_heard(pubsub, slug: str, version: int) -> bool:
    """Whether the room's pulse of `version` comes on the channel (within 30 s, or
    never: only a failing run waits that long)."""
    from games.services import live

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        message = pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
        parsed = live.parse_message(message["data"]) if message else None
        if parsed is not None and parsed[0] == slug and parsed[1].version == version:
            return True
    return False


def _move_seen_across(nodes, table, *, through_uvicorn: bool):
    room, alice, bob = table
    a, b = nodes["a"], nodes["b"]
    alice_browser, bob_browser = Browser(), Browser()
    alice_browser.sit(b, room.slug, alice.token)
    bob_browser.sit(a, room.slug, bob.token)
    status, headers, body = bob_browser.request(a, "GET", f"/api/rooms/{room.slug}/")
    assert status == 200
    version = json.loads(body)["version"]
    assert version == version_of(room)

    answer: dict = {}
    waiting = threading.Thread(
        target=_held_wait, args=(bob_browser, a, room.slug, version, headers["ETag"], answer)
    )
    waiting.start()
    time.sleep(1.0)  # the wait is held on node A
    assert not answer, answer
    pubsub = redis.Redis.from_url(nodes["redis"]).pubsub()
    pubsub.subscribe(nodes["channel"])
    sent = time.monotonic()
    status, _headers, body = alice_browser.post(
        b,
        f"/api/rooms/{room.slug}/actions/play",
        {"version": version, "play": first_legal_play(room, 0)},
    )
    answered = time.monotonic()
    assert status == 200, body[:300]
    assert json.loads(body)["version"] == version + 1
    assert _pulse_heard(pubsub, room.slug, version + 1)  # node B published the move
    pubsub.close()
    waiting.join(timeout=40)
    assert answer["status"] == 200, answer
    assert json.loads(answer["body"])["version"] == version + 1
    # gunicorn writes its access line once the answer is out: give it a moment.
    needle = f"/api/rooms/{room.slug}/?wait="
    for _ in range(30):
        if needle in a.log("gunicorn"):
            break
        time.sleep(0.1)
    served_by_gunicorn = needle in a.log("gunicorn")
    assert served_by_gunicorn is not through_uvicorn
    # After alice's move was made (acknowledged to her: committed and published
    # before that), and from the moment she sent it, which adds the move's own
    # work on node B. The board often has it before alice has her answer.
    return answer["held"], answer["ended"] - answered, answer["ended"] - sent


def test_a_board_waiting_on_node_a_is_woken_by_a_move_made_through_node_b(
    nodes, table, record_property
):
    held, seen, since_sent = _move_seen_across(nodes, table, through_uvicorn=True)
    record_property("seen_after_the_moves_answer_s", round(seen, 3))
    record_property("seen_after_the_move_was_sent_s", round(since_sent, 3))
    # Nothing but a pulse ends a subscribed wait before its own end (38 to 45 s):
    # no database polling while the hub listens.
    assert held < waits.WAIT_SECONDS * 0.85, f"held {held:.1f} s: the wait ran out"


def test_with_uvicorn_down_on_node_a_the_wait_falls_back_to_gunicorn(nodes, table):
    # Last in this module: node A's uvicorn does not come back.
    uvicorn = nodes["a"].processes["uvicorn"]
    uvicorn.send_signal(signal.SIGTERM)
    uvicorn.wait(timeout=30)
    held, _seen, _since_sent = _move_seen_across(nodes, table, through_uvicorn=False)
    # gunicorn's thread looks at the database every half second: it saw the move
    # before its wait ran out.
    assert held < longpoll.WAIT_SECONDS, f"held {held:.1f} s: the wait ran out"
