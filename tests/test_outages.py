"""Redis and PostgreSQL away under a real gunicorn.

Redis: a move during the outage answers 200 and is stored once.

The production shape of docs/DEPLOY.md: gunicorn (config/gunicorn.conf.py, one
gthread worker) with CACHE_URL and the broker on the same redis-server, the
sessions in `cached_db`, the limits in the cache. The Redis is a private one
on this checkout's ports (19300-19399), so the test may stop it: first frozen
(SIGSTOP: connections hang, the timeouts matter), then killed (refused), then
started again empty. The players go through the JSON API with their cookies,
as the board does; the moves are counted in the database's turn log.

PostgreSQL: the shared server is never stopped. One test ends gunicorn's own
connection under a held state request (pg_terminate_backend, as a restart
does to every backend): a 503 in JSON with Retry-After and one log line, and
the next request connects again by itself. Another starts a PostgreSQL of its
own (initdb in a temporary folder, on this checkout's ports), stops it under
gunicorn and starts it again: 503s while it is away, 200 at once after.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import closing, contextmanager
from glob import glob
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

from games import services
from games.engine import MatchRules
from games.models import Turn
from tests.helpers import (
    current_match,
    database_url_for_the_worker,
    first_legal_play,
    missing,
    seat_url,
)
from tests.test_deploy import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

GUNICORN = Path(sys.executable).with_name("gunicorn")
PORTS = range(
    19300, 19400
)  # this checkout's (TEAM.md); tests/games/test_fail_open.py uses the first


def free_ports(count: int) -> list[int]:
    found = []
    for port in reversed(PORTS):
        with closing(socket.socket()) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    pytest.skip("no free ports in 19300-19399")


def wait_until(check, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"{what} did not happen in {timeout} s")


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class Redis:
    def __init__(self, port: int, folder: Path) -> None:
        self.port, self.folder, self.process = port, folder, None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_until(lambda: answers(self.port), "redis-server answering")

    def keys(self, pattern: str) -> list[bytes]:
        import redis

        return redis.Redis(port=self.port, socket_timeout=2).keys(pattern)

    def signal(self, number: int) -> None:
        self.process.send_signal(number)

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(timeout=10)


class Browser:
    """One player's browser: its cookies, the CSRF header, JSON in and out."""

    def __init__(self, port: int) -> None:
        self.port, self.cookies = port, SimpleCookie()

    def request(self, method: str, path: str, body: dict | None = None, timeout: float = 20):
        headers = {"Host": "127.0.0.1", "Accept-Language": "en"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={m.value}" for k, m in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/json"
            headers["X-CSRFToken"] = self.cookies["csrftoken"].value
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(
                method, path, body=json.dumps(body) if body else None, headers=headers
            )
            response = connection.getresponse()
            for value in response.headers.get_all("Set-Cookie") or []:
                self.cookies.load(value)
            return response.status, response.read()
        finally:
            connection.close()


@contextmanager
def gunicorn(port: int, redis_port: int, folder: Path, database_url: str = "", **extra: str):
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        PYTHONPATH=str(ROOT),
        SECRET_KEY=secrets.token_urlsafe(64),
        SITE_URL=f"http://127.0.0.1:{port}",
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=database_url or database_url_for_the_worker(),
        MESA_ALLOW_EMBEDDED="1",  # the SQLite file of a local run; CI runs on PostgreSQL
        STATICFILES_BACKEND="django.contrib.staticfiles.storage.StaticFilesStorage",
        # docs/CONFIGURATION.md's production column: the cache and the broker on one Redis.
        CACHE_URL=f"redis://127.0.0.1:{redis_port}/0",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{redis_port}/1",
        SESSION_ENGINE="django.contrib.sessions.backends.cached_db",
        FAIL_OPEN_RETRY_SECONDS="1",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="4",
    )
    env.update(extra)
    log = folder / "gunicorn.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(GUNICORN), "-c", "config/gunicorn.conf.py"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until(
            lambda: process.poll() is not None or answers(port), "gunicorn answering", timeout=60
        )
        assert process.poll() is None, log.read_text()
        yield log
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def plays_of(seat) -> int:
    return Turn.objects.filter(seat=seat, kind="play").count()


def test_a_move_with_redis_stopped_answers_200_and_is_stored_once(tmp_path):
    if not shutil.which("redis-server"):
        missing("redis-server is not installed (apt-get install redis-server)")
    if not GUNICORN.exists():
        missing("gunicorn is not installed in this virtualenv")
    redis_port, web_port = free_ports(2)
    redis = Redis(redis_port, tmp_path)
    redis.start()
    try:
        alice = services.room_create(rules=MatchRules(), nickname="alice")
        room = alice.room
        bob = services.room_join(room=room, nickname="bob")
        with gunicorn(web_port, redis_port, tmp_path) as log:
            browsers = {}
            for seat in (alice, bob):
                browser = Browser(web_port)
                status, _ = browser.request("GET", seat_url(room, seat.token))
                assert status == 302
                assert browser.request("GET", f"/mesa/{room.slug}/")[0] == 200  # the CSRF cookie
                browsers[seat.pk] = browser

            def move(what: str) -> float:
                match = current_match(room)
                seat = alice if match.turn_seat_id == alice.pk else bob
                before = plays_of(seat)
                body = {
                    "version": match.version,
                    "play": first_legal_play(room, match.side_of(seat)),
                }
                started = time.monotonic()
                status, answer = browsers[seat.pk].request(
                    "POST", f"/api/rooms/{room.slug}/actions/play", body
                )
                took = time.monotonic() - started
                assert status == 200, f"{what}: {status} {answer[:300]!r}\n{log.read_text()}"
                assert json.loads(answer)["version"] > match.version
                assert plays_of(seat) == before + 1, what  # stored once
                return took

            move("Redis up")
            assert redis.keys("*mesa:rate:action*")  # the limits count in Redis

            redis.signal(signal.SIGSTOP)  # hung: every call waits for its timeout
            hung = move("Redis frozen")
            redis.signal(signal.SIGCONT)
            redis.kill()  # stopped: refused at once
            refused = move("Redis stopped")
            status, _ = browsers[alice.pk].request("GET", f"/api/rooms/{room.slug}/")
            assert status == 200  # the session came from the database

            redis.start()  # back, empty (no persistence)
            time.sleep(1.2)  # FAIL_OPEN_RETRY_SECONDS: then the process tries Redis again
            move("Redis back")
            assert redis.keys("*mesa:rate:action*")  # counting again
            assert redis.keys("*django.contrib.sessions.cached_db*")  # sessions cached again

            text = log.read_text()
        assert hung < 5 and refused < 2, (hung, refused)
        assert "Traceback" not in text, text
        assert 1 <= text.count("the cache (Redis) unavailable") <= 3, text
    finally:
        redis.kill()


def test_a_backend_terminated_under_a_request_is_a_503_and_the_next_request_reconnects(tmp_path):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (run with DATABASE_URL=postgres://...)")
    if not shutil.which("redis-server"):
        missing("redis-server is not installed (apt-get install redis-server)")
    redis_port, web_port = free_ports(2)
    redis = Redis(redis_port, tmp_path)
    redis.start()
    name = f"mesa-test-web-{web_port}"
    try:
        seat = services.room_create(rules=MatchRules(), nickname="alice")
        room = seat.room
        services.room_join(room=room, nickname="bob")
        version = current_match(room).version
        url = f"{database_url_for_the_worker()}?application_name={name}"
        with gunicorn(web_port, redis_port, tmp_path, database_url=url) as log:
            browser = Browser(web_port)
            state = f"/api/rooms/{room.slug}/"
            assert browser.request("GET", state)[0] == 200
            held = {}

            def hold():
                held["answer"] = browser.request("GET", f"{state}?wait={version}", timeout=40)

            waiter = threading.Thread(target=hold)
            waiter.start()
            time.sleep(1.5)  # the request holds, asking the database every half second

            def terminated() -> bool:
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE application_name = %s",
                        [name],
                    )
                    return any(row[0] for row in cursor.fetchall())

            wait_until(terminated, "gunicorn's backend terminated", timeout=10)
            waiter.join(timeout=30)
            status, body = held["answer"]
            assert status == 503, body
            error = json.loads(body)["error"]
            assert error["code"] == "unavailable" and error["message"].startswith("We cannot")
            # The next request gets a new connection by itself.
            assert browser.request("GET", state)[0] == 200
            text = log.read_text()
        assert "Traceback" not in text, text
        assert text.count("the database unavailable (answering 503)") == 1, text
    finally:
        redis.kill()


class PostgreSQL:
    """A server of the test's own: initdb into a temporary folder, pg_ctl to stop and start it.
    initdb refuses to run as root; then it runs as the postgres user."""

    def __init__(self, port: int) -> None:
        found = sorted(glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            missing("PostgreSQL's server binaries are not installed (/usr/lib/postgresql/*/bin)")
        self.bin = Path(found[-1]).parent
        self.port = port
        self.folder = Path(tempfile.mkdtemp(prefix="mesa-pg-"))
        self.as_owner: list[str] = []
        if os.geteuid() == 0:
            import pwd

            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self.as_owner = ["runuser", "-u", "postgres", "--"]
        self.url = f"postgres://postgres@127.0.0.1:{port}/mesa"

    def run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.as_owner, str(self.bin / tool), *args], check=True, capture_output=True
        )

    def init(self) -> None:
        self.run(
            "initdb", "-D", f"{self.folder}/data", "-A", "trust", "-U", "postgres", "--no-sync"
        )
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", f"{self.folder}/data", "-o", options, "-l",
                 f"{self.folder}/log", "-w", "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", f"{self.folder}/data", "-m", mode, "-w", "stop")

    def close(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # not running
        shutil.rmtree(self.folder, ignore_errors=True)


def test_a_postgresql_stopped_under_gunicorn_is_a_503_and_back_is_200_by_itself(tmp_path):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (the schema is copied from the test database)")
    pg_port, web_port = free_ports(2)
    server = PostgreSQL(pg_port)
    try:
        server.init()
        # The schema of the test database, copied: faster than migrating afresh.
        test_db = connection.settings_dict
        host = ["-h", "127.0.0.1", "-U", "postgres"]
        subprocess.run(
            ["psql", *host, "-p", str(pg_port), "-qc", "CREATE DATABASE mesa", "postgres"],
            check=True,
            capture_output=True,
        )
        schema = subprocess.run(
            ["pg_dump", *host, "-p", str(test_db.get("PORT") or 5432), "--no-owner",
             "--schema-only", test_db["NAME"]],
            check=True, capture_output=True,
        ).stdout  # fmt: skip
        subprocess.run(
            ["psql", *host, "-p", str(pg_port), "-q", "mesa"],
            input=schema,
            check=True,
            capture_output=True,
        )
        extra = {"CACHE_URL": "locmemcache://", "CELERY_BROKER_URL": "memory://"}
        with gunicorn(web_port, 0, tmp_path, database_url=server.url, **extra) as log:
            browser = Browser(web_port)
            assert browser.request("GET", "/")[0] == 200  # the CSRF cookie
            status, _ = browser.request("POST", "/api/rooms", {"nickname": "ana"})
            assert status == 201
            server.stop()
            away = [browser.request("GET", "/api/rooms/abcdefgh/") for _ in range(5)]
            page = browser.request("GET", "/")
            create = browser.request("POST", "/api/rooms", {"nickname": "ana"})
            server.start()
            back = browser.request("POST", "/api/rooms", {"nickname": "ana"})
            text = log.read_text()
        assert {status for status, _ in away} == {503}
        assert json.loads(away[0][1])["error"]["code"] == "unavailable"
        assert page[0] == 503 and b"Back in a moment" in page[1]
        assert create[0] == 503
        assert back[0] == 201, back  # the first request after it is back connects
        assert "Traceback" not in text, text
        assert text.count("the database unavailable (answering 503)") == 1, text
    finally:
        server.close()
