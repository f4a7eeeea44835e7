"""The deploy kit run as shipped: deploy/systemd/'s units started the way systemd
starts them, with deploy/mesa.env.example installed as /etc/mesa/mesa.env,
behind nginx rendered from deploy/nginx/mesa.conf.template, on PostgreSQL and
Redis; then, through nginx, what the site is for: a move between two people,
the computer's answer, "Es tu turno" by mail and the analysis of a game.

Each unit's ExecStart= is expanded by tests/deploy/systemd.py (specifiers,
Environment=, EnvironmentFile=) and run unchanged by tests/deploy/machine.py
in a namespace where /srv/mesa is this checkout and /run, /var/lib hold the
units' own folders. The shipped files are never edited: what this test must
change it changes as an operator would, with a drop-in per unit naming a
second environment file (systemd reads the files in order, the later one
wins): the database (this run's test database), Redis (the worker tests'
database, flushed), and the mail server (aiosmtpd in this process). The rest,
SITE_URL, ALLOWED_HOSTS, SECRET_KEY, DEFAULT_FROM_EMAIL..., is the example's.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game, GameAnalysis, Room, Seat, Turn
from tests.helpers import (
    REDIS_URL,
    Inbox,
    current_match,
    database_url_for_the_worker,
    first_legal_play,
    free_port,
    missing,
    redis_or_skip,
    state_of,
)

from .browser import Browser
from .conftest import HOST, NGINX, certificate, free_ports, render, write_nginx_conf
from .machine import Machine, Service
from .nginxconf import channel_values, publish_url

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "deploy" / "mesa.env.example"
# mesa.target's units, the order systemd would not promise but the test keeps.
SERVICES = [
    "mesa-web.service",
    "mesa-live.service",
    "mesa-worker-bots.service",
    "mesa-worker-sweeps.service",
    "mesa-worker-mail.service",
    "mesa-worker-analysis.service",
    "mesa-beat.service",
]


@dataclass
class Site:
    """The kit behind nginx, as a browser reaches it."""

    folder: Path
    https_port: int
    machine: Machine
    inbox: Inbox
    nginx: subprocess.Popen

    def request(self, method, path, *, headers=None, body=None, timeout=20):
        context = ssl.create_default_context(cafile=str(self.folder / "cert.pem"))
        conn = http.client.HTTPSConnection(
            "127.0.0.1", self.https_port, timeout=timeout, context=context
        )
        try:
            conn.request(method, path, body=body, headers={"Host": HOST, **(headers or {})})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def running(self) -> None:
        """No unit stopped (under Restart=always an exit is a crash loop), and none
        logged an error or a traceback (an operator's journal stays quiet)."""
        for service in self.machine.services.values():
            assert service.process.poll() is None, (
                f"{service.name} exited ({service.process.returncode}):\n{service.output()[-3000:]}"
            )
            errors = [
                line
                for line in service.output().splitlines()
                if re.search(r"\[ERROR\]|ERROR/|CRITICAL|Traceback", line)
            ]
            assert not errors, f"{service.name}: " + "\n".join(errors)


def _nginx(
    folder: Path, machine: Machine, web: Service, live: Service, publish_port: int
) -> tuple[int, Path]:
    """The template rendered as docs/DEPLOY.md renders it, with the sockets the units bind."""
    bind = web.environment["GUNICORN_BIND"]
    assert bind.startswith("unix:"), bind
    uvicorn_socket = live.argv[live.argv.index("--uds") + 1]
    http_port, https_port = free_ports(2)
    values = {
        "MESA_SERVER_NAME": HOST,
        "MESA_HTTP_LISTEN": f"127.0.0.1:{http_port}",
        "MESA_HTTPS_LISTEN": f"127.0.0.1:{https_port}",
        "MESA_TLS_CERT": str(folder / "cert.pem"),
        "MESA_TLS_KEY": str(folder / "key.pem"),
        "MESA_UPSTREAM": f"unix:{machine.path(bind.removeprefix('unix:'))}",
        "MESA_LIVE_UPSTREAM": f"unix:{machine.path(uvicorn_socket)}",
        "MESA_STATIC_ROOT": str(machine.path("/srv/mesa/staticfiles")),
        "MESA_LOG_DIR": str(folder / "logs"),
        **channel_values(publish_port),
    }
    (folder / "mesa.conf").write_text(
        render((ROOT / "deploy" / "nginx" / "mesa.conf.template").read_text(), values)
    )
    return https_port, write_nginx_conf(folder)


def _listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _python_in_a_home() -> set[Path]:
    """The venv and the Python it was made from, where the units' sandbox hides
    them: under /root or /home (ProtectHome=), or /tmp or /var/tmp (PrivateTmp=,
    a checkout cloned there names its venv's Python in every script's #!)."""
    found = set()
    for path in (ROOT / ".venv", Path(sys.base_prefix)):
        real = path.resolve()
        if real.parts[1:2] in (("root",), ("home",), ("tmp",)) or real.parts[1:3] == ("var", "tmp"):
            found.add(real)
    return found


def _wait_until_up(site: Site, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        site.running()
        assert site.nginx.poll() is None, (site.folder / "logs" / "error.log").read_text()
        try:
            if site.request("GET", "/healthz", timeout=5)[0] == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.3)
    pytest.fail(f"the kit did not answer through nginx: see {site.folder}")


@pytest.fixture(scope="module")
def kit(django_db_setup, django_db_blocker, tmp_path_factory):
    if not os.path.exists(NGINX):
        missing("nginx is not installed (apt-get install nginx; .ci/run does)")
    if not shutil.which("openssl"):
        missing("openssl is not installed (the throwaway certificate)")
    if connection.vendor != "postgresql":
        missing("the kit runs on PostgreSQL (run with DATABASE_URL=postgres://...)")
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True
    )
    if probe.returncode != 0 or not os.path.isdir("/srv"):
        missing(f"no mount namespace for the units (unshare --mount: {probe.stderr!r})")
    broker = redis_or_skip()
    broker.flushdb()
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    folder = tmp_path_factory.mktemp("kit")
    certificate(folder)
    publish_port = free_port()
    with django_db_blocker.unblock():
        database = database_url_for_the_worker()
    # The operator's own values for this machine, beside the shipped file.
    (folder / "kit-test.env").write_text(
        f"DATABASE_URL={database}\n"
        f"CELERY_BROKER_URL={REDIS_URL}\n"
        f"CACHE_URL={REDIS_URL}\n"
        f"EMAIL_URL=smtp://127.0.0.1:{smtp.port}\n"
        f"LIVE_NCHAN_URL={publish_url(publish_port)}\n"
    )
    machine = Machine(
        folder / "machine",
        files={"/etc/mesa/mesa.env": EXAMPLE, "/etc/mesa/kit-test.env": folder / "kit-test.env"},
    )
    override = "[Service]\nEnvironmentFile=/etc/mesa/kit-test.env\n"
    # ProtectHome=yes hides /root and /home, PrivateTmp=yes /tmp: a Python or a
    # venv there (pyenv on this machine; a clone under /tmp) comes back
    # read-only, as an operator with such a Python would bind it.
    for path in _python_in_a_home():
        override += f"BindReadOnlyPaths={path}\n"
    for name in SERVICES:
        machine.drop_in(name, "kit-test.conf", override)
    site = None
    nginx = None
    try:
        # docs/DEPLOY.md's `mesa-manage collectstatic`, with the web's settings.
        machine.run(
            "mesa-web.service",
            ["/srv/mesa/.venv/bin/python", "manage.py", "collectstatic", "--noinput", "-v0"],
        )
        started = {name: machine.start(name) for name in SERVICES}
        started["mesa-web.service"].wait_ready(90)
        https_port, conf = _nginx(
            folder,
            machine,
            started["mesa-web.service"],
            started["mesa-live.service"],
            publish_port,
        )
        check = subprocess.run(
            [NGINX, "-t", "-p", str(folder), "-c", str(conf)], capture_output=True, text=True
        )
        assert check.returncode == 0, check.stderr
        nginx = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=(folder / "logs" / "nginx.out").open("w"),
        )
        site = Site(folder, https_port, machine, inbox, nginx)
        _wait_until_up(site)
        # Type=exec: started once exec'd; the held waits need uvicorn listening too.
        live = started["mesa-live.service"]
        uvicorn_socket = machine.path(live.argv[live.argv.index("--uds") + 1])
        _until(lambda: _listening(uvicorn_socket), 60, site, "mesa-live listening")
        yield site
        site.running()
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(timeout=30)
        machine.stop_all()
        smtp.stop()
        broker.flushdb()


def _room(slug: str) -> Room:
    return Room.objects.get(slug=slug)


def _open_room(site: Site, browser: Browser, body: dict) -> str:
    browser.request(site, "GET", "/")  # the CSRF cookie, as the page gives it
    status, headers, answer = browser.post(site, "/api/rooms", body)
    assert status == 201, answer[:500]
    return headers["Location"].strip("/").split("/")[-1]


def _play_on_turn(site: Site, browser: Browser, slug: str) -> int:
    """The seat on turn plays the first legal play; the new version."""
    room = _room(slug)
    state = state_of(room)
    version = current_match(room).version
    play = first_legal_play(room, state.turn)
    status, _headers, body = browser.post(
        site, f"/api/rooms/{slug}/actions/play", {"version": version, "play": play}
    )
    assert status == 200, body[:500]
    return json.loads(body)["version"]


def _until(condition, seconds: float, site: Site, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        site.running()
        time.sleep(0.5)
    pytest.fail(f"{what}: not within {seconds} s; logs in {site.machine.folder / 'logs'}")


pytestmark = pytest.mark.django_db(transaction=True)


def test_a_move_between_two_people_and_es_tu_turno_by_mail(kit):
    alice, bob = Browser(), Browser()
    slug = _open_room(
        kit,
        alice,
        {
            "rules": {"format": "single"},
            "nickname": "alice",
            "email": "alice@example.com",
            "email_consent": True,
        },
    )
    bob.request(kit, "GET", "/")
    status, _headers, body = bob.post(
        kit,
        f"/api/rooms/{slug}/join",
        {"nickname": "bob", "email": "bob@example.com", "email_consent": True},
    )
    assert status == 200, body[:500]
    room = _room(slug)
    match = current_match(room)
    mover = alice if match.turn_seat.number == 1 else bob
    waiting = room.seats.exclude(pk=match.turn_seat_id).get()
    other = bob if mover is alice else alice
    # The other one's board waits for the move (?wait=, nginx sends it to mesa-live)...
    status, headers, body = other.request(kit, "GET", f"/api/rooms/{slug}/")
    assert status == 200
    answer: dict = {}

    def wait() -> None:
        answer["reply"] = other.request(
            kit,
            "GET",
            f"/api/rooms/{slug}/?wait={json.loads(body)['version']}",
            headers={"If-None-Match": headers["ETag"], "Accept": "application/json"},
            timeout=60,
        )

    board = threading.Thread(target=wait)
    board.start()
    time.sleep(1.0)
    assert not answer, "the wait was answered before the move"
    version = _play_on_turn(kit, mover, slug)
    board.join(timeout=40)
    status, _headers, body = answer["reply"]
    assert status == 200 and json.loads(body)["version"] == version
    # ...held by uvicorn, not by gunicorn's fallback.
    assert "?wait=" not in kit.machine.services["mesa-web.service"].output()
    # ...and, having left the board an hour ago, gets "Es tu turno" after its pause.
    Seat.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    address = waiting.email
    mail = _until(
        lambda: [m for m in kit.inbox.messages if m["To"] == address],
        150,
        kit,
        f"'Es tu turno' to {address}",
    )
    [message] = mail
    assert message["From"] == "Mesa <mesa@mesa.example.com>"  # the example file's, unquoted
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert f"https://{HOST}/mesa/{slug}/asiento/" in text
    kit.running()


def test_the_computer_answers_through_the_bots_worker(kit):
    alice = Browser()
    slug = _open_room(
        kit, alice, {"rules": {"format": "single"}, "nickname": "alice", "bot": "domador"}
    )
    room = _room(slug)
    human, bot = room.seats.get(number=1), room.seats.get(number=2)

    def humans_turn():
        match = current_match(room)
        return match.turn_seat_id == human.pk and state_of(room).dice

    _until(humans_turn, 60, kit, "the computer's opening")
    played = Turn.objects.filter(seat=bot).count()
    _play_on_turn(kit, alice, slug)
    _until(
        lambda: humans_turn() and Turn.objects.filter(seat=bot).count() > played,
        60,
        kit,
        "the computer's answer",
    )
    status, _headers, body = alice.request(kit, "GET", f"/api/rooms/{slug}/")
    assert status == 200
    kit.running()


def test_a_finished_game_is_analysed_by_the_analysis_worker(kit):
    alice, bob = Browser(), Browser()
    slug = _open_room(kit, alice, {"rules": {"format": "single"}, "nickname": "alice"})
    bob.request(kit, "GET", "/")
    status, _headers, body = bob.post(kit, f"/api/rooms/{slug}/join", {"nickname": "bob"})
    assert status == 200, body[:500]
    room = _room(slug)
    match = current_match(room)
    mover = alice if match.turn_seat.number == 1 else bob
    version = _play_on_turn(kit, mover, slug)
    status, _headers, body = mover.post(
        kit, f"/api/rooms/{slug}/actions/forfeit", {"version": version}
    )
    assert status == 200, body[:500]
    game = Game.objects.get(match=current_match(room))
    _until(
        lambda: GameAnalysis.objects.filter(game=game, status=GameAnalysis.Status.DONE).exists(),
        120,
        kit,
        "the game's analysis",
    )
    kit.running()


def test_systemctl_reload_restarts_the_web_workers_and_the_site_answers(kit):
    """ExecReload=/bin/kill -HUP $MAINPID: gunicorn's master replaces its workers."""
    web = kit.machine.services["mesa-web.service"]
    kit.machine.reload("mesa-web.service")
    _until(lambda: "Handling signal: hup" in web.output(), 30, kit, "gunicorn's HUP")
    _until(
        lambda: kit.request("GET", "/healthz", timeout=5)[0] == 200,
        30,
        kit,
        "the site after reload",
    )
    kit.running()


def test_a_stopped_worker_finishes_the_analysis_it_is_running(kit):
    """The worker units' warm shutdown: `systemctl stop` while an analysis runs,
    and it is done, not left running. Last here: mesa-worker-analysis stays down."""
    alice, bob = Browser(), Browser()
    slug = _open_room(kit, alice, {"rules": {"format": "single"}, "nickname": "alice"})
    bob.request(kit, "GET", "/")
    status, _headers, body = bob.post(kit, f"/api/rooms/{slug}/join", {"nickname": "bob"})
    assert status == 200, body[:500]
    room = _room(slug)
    browsers = {1: alice, 2: bob}
    for _ in range(60):  # a long game: a long analysis
        seat = current_match(room).turn_seat
        if seat is None:
            break  # it ended by itself
        _play_on_turn(kit, browsers[seat.number], slug)
    if current_match(room).turn_seat is not None:  # the 60th play may have ended it
        status, _headers, body = alice.post(
            kit, f"/api/rooms/{slug}/actions/forfeit", {"version": current_match(room).version}
        )
        assert status == 200, body[:500]
    game = Game.objects.get(match=current_match(room))
    analysis = GameAnalysis.objects.filter(game=game)
    deadline = time.monotonic() + 60
    while not analysis.filter(status=GameAnalysis.Status.RUNNING).exists():
        assert not analysis.filter(status=GameAnalysis.Status.DONE).exists(), "too short to stop"
        assert time.monotonic() < deadline, "the analysis did not start"
        time.sleep(0.05)
    worker = kit.machine.stop("mesa-worker-analysis.service", seconds=120)
    assert worker.process.returncode is not None
    assert analysis.get().status == GameAnalysis.Status.DONE, worker.output()[-3000:]
