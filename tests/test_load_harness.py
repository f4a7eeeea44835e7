"""`make load` itself (bench/load/), tiny: five boards, two players, behind nginx,
gunicorn and uvicorn as the deploy kit starts them, on PostgreSQL and Redis. Nothing
timed: the run goes through, every acknowledged action is one Turn row, every board
ends at its room's final version, nothing failed, the run's database is gone. And
the benchmark's pieces: its Server-Timing, its verdicts, bench/nginx_held.py and
bench/live_held.py."""

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.helpers import missing

ROOT = Path(__file__).resolve().parent.parent
PORT = os.environ.get("MESA_LOAD_TEST_PORT", "19170")  # make load's own: 19100


def postgres_and_redis(bench: str, suffix: str) -> tuple[str, str]:
    """A database of the test's own (DATABASE_URL's name + `suffix`) and the Redis
    the benchmark `bench` runs on; missing() without them."""
    import redis

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        missing(f"{bench} runs on PostgreSQL (DATABASE_URL=postgres://...)")
    redis_url = os.environ.get("MESA_LOAD_REDIS_URL", "redis://127.0.0.1:6379/12")
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {redis_url} ({error})")
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + suffix)), redis_url


def test_a_tiny_load_run_loses_nothing(tmp_path):
    import shutil

    from bench.front import NGINX

    database, redis_url = postgres_and_redis("the load benchmark", "_loadtest")
    if not (shutil.which(NGINX) and shutil.which("openssl")):
        missing("make load runs behind nginx (apt-get install nginx openssl; .ci/run does)")
    report = tmp_path / "report.json"
    try:
        done = run_load(database, redis_url, report)
    finally:
        drop_database(database)  # bench/load/ keeps its database; this one is the test's
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(report.read_text())
    assert result["actions"]["count"] > 0
    assert result["nothing_lost"]["ok"], result["nothing_lost"]
    assert (
        result["nothing_lost"]["acknowledged_turn_actions"]
        == (result["nothing_lost"]["stored_turn_rows"])
    )
    assert result["boards"]["at_final_version"] == 5
    # They waited on nginx's channels (nchan), as the board does behind the front.
    assert result["statuses"].get("WAIT 200", 0) >= 5, result["statuses"]
    # Four boards on the room being played, the fifth on a room where nobody moves.
    assert result["rooms"] == {"played": 1, "idle": 1}
    assert result["errors_5xx"] == 0
    assert result["postgres"]["peak_connections"] >= 1
    assert result["state_get_per_second"] > 0 and result["reference_get_per_second"] > 0
    # Django's own time of each action (Server-Timing), never more than the generator saw.
    actions = result["actions"]
    assert 0 < actions["at_server_p50_ms"] <= actions["p50_ms"]
    assert "make load:" in done.stdout  # the printed report (--quiet leaves out the progress)
    assert result["failures"] == 0 and result["error_pages"] == {}
    # The generator's own CPU in each phase, and what a waiting board costs the servers.
    phases = {"seeding", "opening the boards", "boards waiting", "players", "after the players"}
    assert set(result["generator_lag"]["cpu_share"]) == phases
    # And the servers' (each role's CPU over each phase): every server worked, and
    # PostgreSQL with them.
    cpu = result["server_cpu"]
    assert set(cpu) == phases
    roles = {role.partition(" ")[2] or role for role in cpu["seeding"]["cores"]}
    assert {"nginx", "gunicorn", "uvicorn", "reference", "postgres"} <= roles, cpu
    assert cpu["seeding"]["cores"]["node0 gunicorn"] > 0
    assert sum(phase["cores"]["postgres"] for phase in cpu.values()) > 0
    assert result["memory_per_board_kb"]["whole"] > 0
    # The boards send their browser's cookies as one header: no answer of theirs set one.
    assert result["board_answers_setting_a_cookie"] == 0
    # nginx reloaded under the boards (--reload-nginx-at): no 5xx above, every board
    # at the final version, and the moves after it told apart.
    reloaded = result["after_reloads"]
    assert reloaded["reloads"] == 1
    told_apart = reloaded["actions"] + actions["outside_windows"] + actions["in_windows"]
    assert told_apart == actions["count"]
    # The run's own database is gone: make load dropped what it created.
    assert not database_exists(database)
    # Seeding's commits are not in the rate: a handful of actions a second, not hundreds.
    assert 0 < result["postgres"]["commits_per_second"]


def run_load(database: str, redis_url: str, report: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable, "-m", "bench.load",
            "--boards", "5", "--players", "2", "--readers", "1",
            "--duration", "12", "--warmup", "2", "--window", "1", "--think", "0.5", "1",
            "--grace", "40", "--still", "2", "--web-workers", "1", "--threads", "8", "--pool", "2",
            "--port", PORT, "--database-url", database, "--redis-url", redis_url,
            "--reload-nginx-at", "8", "--output", str(report), "--quiet",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=400,
    )  # fmt: skip


def database_exists(url: str) -> bool:
    import psycopg

    from bench.load import admin_url, database_name

    with psycopg.connect(admin_url(url), autocommit=True) as admin:
        query = "SELECT 1 FROM pg_database WHERE datname = %s"
        return admin.execute(query, (database_name(url),)).fetchone() is not None


def drop_database(url: str) -> None:
    """CI runs one after another on the same server: leave no database behind."""
    import psycopg

    from bench.load import admin_url, database_name

    with psycopg.connect(admin_url(url), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database_name(url)}" WITH (FORCE)')


def test_the_server_timing_header_is_read_as_django_wrote_it():
    from bench.load import server_ms

    assert server_ms("app;dur=12.5") == 12.5
    assert server_ms('cache;desc="hit", app;dur=3') == 3.0
    assert server_ms(None) is None and server_ms("app;dur=x") is None


def test_the_generators_full_collections_are_told_by_phase():
    from bench.load.report import by_phase

    collections = [("seeding", 3.0), ("opening the boards", 1520.84), ("seeding", 5.0)]
    assert by_phase(collections) == {"seeding": [2, 5.0], "opening the boards": [1, 1520.8]}
    assert by_phase([]) == {}


def test_the_timing_middleware_says_what_was_cpu_and_what_was_queries(db):
    """bench/web/timing.py around a view that queries and computes: its three
    metrics as the report reads them, each within the whole."""
    from django.db import connection
    from django.http import HttpResponse
    from django.test import RequestFactory

    from bench.load import server_ms
    from bench.web.timing import ServerTimingMiddleware

    postgresql = connection.vendor == "postgresql"

    def view(request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.05)" if postgresql else "SELECT 1")
        sum(i * i for i in range(200_000))  # some CPU of the thread's own
        return HttpResponse("ok")

    header = ServerTimingMiddleware(view)(RequestFactory().get("/"))["Server-Timing"]
    app, cpu, queries = (server_ms(header, metric) for metric in ("app", "cpu", "db"))
    assert app is not None and cpu is not None and queries is not None
    assert 0 < cpu <= app and 0 < queries <= app
    if postgresql:
        assert queries >= 50 and cpu < queries  # the sleep is the server's, not our CPU


def test_the_timing_middleware_says_how_long_a_connection_was_waited_for(db, monkeypatch):
    """`pool;dur=` is the thread's connect(), as ensure_connection calls it (with
    DB_POOL_MAX, the pool's getconn); the connection object is itself again after."""
    import time

    from django.db import connections
    from django.http import HttpResponse
    from django.test import RequestFactory

    from bench.load import server_ms
    from bench.web.timing import ServerTimingMiddleware

    own = connections["default"]
    monkeypatch.setattr(type(own), "connect", lambda self: time.sleep(0.03))  # a pool's queue

    def view(request):
        held, own.connection = own.connection, None  # not connected: the first query connects
        try:
            own.ensure_connection()
        finally:
            own.connection = held
        return HttpResponse("ok")

    header = ServerTimingMiddleware(view)(RequestFactory().get("/"))["Server-Timing"]
    pool, app = server_ms(header, "pool"), server_ms(header, "app")
    assert pool is not None and app is not None
    assert 30 <= pool <= app
    assert "connect" not in vars(own)  # the class's connect() again


def test_a_run_whose_generator_lags_is_void():
    from bench.load import verdict

    assert verdict([1.0] * 98 + [150.0, 150.0]) is not None
    assert "p99" in verdict([250.0] * 10)
    assert verdict([2.0] * 100) is None


def test_an_html_error_page_is_a_failure_counted_not_an_exception():
    """nginx's 502/504 page is HTML: the action counts as unanswered, the state read as
    failed, and both as error pages; nothing raises past them."""
    import asyncio

    import aiohttp
    from aiohttp import web

    from bench.load import Browser, Options, Run, Seat, StateReader

    page = "<html><body><center><h1>502 Bad Gateway</h1></center></body></html>"

    async def bad_gateway(request):
        return web.Response(status=502, text=page, content_type="text/html")

    async def scenario():
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", bad_gateway)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        run = Run(Options(port=port))
        connector = aiohttp.TCPConnector()
        browser = Browser(f"http://127.0.0.1:{port}", connector, "es", run.stats)
        seat = Seat(browser, 1, "abc")
        reader = StateReader(browser, "abc", run.stats)
        try:
            await run.act(seat, reader, "roll", {"version": 3})
            try:
                await reader.refresh(wait=False)
            except RuntimeError:
                pass  # the board's poll.js backs off on it, as on any failure
        finally:
            await browser.close()
            await connector.close()
            await runner.cleanup()
        return run

    run = asyncio.run(scenario())
    assert run.stats.unanswered["abc"] == 1 and not run.stats.acked
    assert run.stats.error_pages == {"POST 502": 1, "GET 502": 1}
    assert run.stats.statuses["POST 502"] == 1


def test_the_servers_are_started_with_the_units_own_command_lines(tmp_path):
    """deploy/systemd's ExecStart= and Environment= as systemd reads them, the machine's
    paths mapped to the checkout and the node's folder: nothing of the kit's sizes or
    flags restated in the benchmark."""
    from bench import front

    node = front.Node(
        folder=tmp_path, https_port=1, http_port=2, reference_port=None, publish_port=3
    )
    argv, env = front.unit_command("mesa-live.service", node, {"PATH": "/usr/bin"}, {})
    assert argv[0] == str(front.ROOT / ".venv" / "bin" / "uvicorn")  # /srv/mesa/.venv/bin/...
    assert argv[argv.index("--uds") + 1] == str(tmp_path / "run/mesa-live/uvicorn.sock")
    assert argv[argv.index("--workers") + 1] == "2"
    assert argv[argv.index("--limit-concurrency") + 1] == "10000"
    assert env["DB_POOL_MAX"] == "2" and env["MESA_STATE_LOCAL_ENTRIES"] == "100"
    assert (tmp_path / "run" / "mesa-live").is_dir()  # RuntimeDirectory=

    argv, env = front.unit_command(
        "mesa-web.service",
        node,
        {"PATH": "/usr/bin", "DB_POOL_MAX": "9"},
        {"GUNICORN_THREADS": "8"},
    )
    assert argv[1:] == ["-c", "config/gunicorn.conf.py"]
    # The unit's Environment= wins over the settings file's stand-in; a drop-in over both.
    assert env["WEB_CONCURRENCY"] == "3" and env["DB_POOL_MAX"] == "3"
    assert env["GUNICORN_THREADS"] == "8"
    assert env["GUNICORN_BIND"] == f"unix:{tmp_path}/run/mesa/gunicorn.sock"


def test_the_front_is_the_template_with_the_reference_beside_it(tmp_path):
    """nginx -t passes on the rendered template and the reference's server block."""
    import shutil

    from bench import front

    if not (shutil.which("openssl") and shutil.which(front.NGINX)):
        missing("nginx and openssl make the benchmark's front")
    node = front.Node(
        folder=tmp_path, https_port=21391, http_port=21392, reference_port=21393, publish_port=21394
    )
    conf = front.write_nginx(node, live=True)  # runs nginx -t, raises on an error
    site = (tmp_path / "mesa.conf").read_text()
    assert site.startswith((front.ROOT / "deploy/nginx/mesa.conf.template").read_text()[:200])
    assert f"unix:{tmp_path}/run/mesa-live/uvicorn.sock max_fails=0" in site
    assert "listen 127.0.0.1:21393 ssl" in conf.read_text()
    assert "worker_connections 16384" in conf.read_text()


def test_the_state_and_the_reference_take_their_windows_in_turn_rounds_times():
    """--rounds: the two GETs' windows alternate, so both see the machine's same
    moments; two rounds unless told."""
    import asyncio

    from bench.load import NAMES, Run, parse

    assert parse([]).rounds == 2
    options = parse(["--rounds", "3", "--warmup", "0", "--window", "0"])
    run = Run(options)
    taken = []

    async def throughput(session, name, seconds):
        taken.append(name)
        return 1.0

    run.throughput = throughput
    asyncio.run(run.throughput_windows(None))
    assert taken == list(NAMES) * 3
    assert run.stats.throughput == {"state": [1.0] * 3, "reference": [1.0] * 3}


def test_nginx_is_sized_for_the_boards_within_the_open_file_limit():
    """A connection a board waiting on its channel (two on the long poll: the
    board's and uvicorn's) and spare ones: one worker while the machine's hard
    open-file limit lets it hold them all; else more workers, none allowed past
    the limit (nginx cannot raise it without CAP_SYS_RESOURCE: its workers then
    ran out of descriptors at 10,000 boards)."""
    from bench.front import NginxSize

    assert NginxSize.for_boards(0, hard_limit=65536) == NginxSize(1, 16384, 16448)
    assert NginxSize.for_boards(10_000, hard_limit=20_000) == NginxSize(1, 18192, 18256)
    long_poll = NginxSize.for_boards(10_000, hard_limit=65536, per_board=2)
    assert long_poll == NginxSize(1, 28192, 28256)
    size = NginxSize.for_boards(10_000, hard_limit=20_000, per_board=2)
    assert size.workers == 2 and size.open_files <= 20_000
    assert size.workers * size.connections >= 2 * 10_000


@pytest.mark.parametrize("nchan", [False, True], ids=["upstream", "nchan"])
@pytest.mark.parametrize("http2", [False, True], ids=["http1.1", "http2"])
def test_nginx_held_holds_every_wait_on_the_template_and_measures_it(http2, nchan):
    """bench/nginx_held.py: nginx from the template, h2load's waits each held on a
    silent upstream (so nginx holds them all), or by nchan in nginx itself (its own
    count of subscribers), over as many TLS connections as the shape says, and the
    workers' memory read before and during."""
    import shutil

    from bench.front import NGINX
    from bench.nginx_held import NCHAN_MODULE, measure

    if shutil.which("h2load") is None or not shutil.which(NGINX):
        missing("h2load (nghttp2-client) or nginx is not installed")
    if not NCHAN_MODULE.exists():
        missing("nchan is not installed (apt-get install libnginx-mod-nchan; .ci/run does)")
    held = measure(waits=24, tabs=12, http2=http2, settle=2.0, nchan=nchan)
    assert held.held == 24
    assert held.connections == (2 if http2 else 24)
    assert held.during_kb > held.before_kb > 0
    assert held.shape.endswith(", held by nchan") == nchan


@pytest.mark.parametrize("trace", [0, 4], ids=["rss", "traced"])
def test_live_held_holds_every_wait_in_the_live_unit_and_measures_it(trace):
    """bench/live_held.py: uvicorn as the live unit starts it, every wait held (none
    answered early: the rooms did not move), the worker's memory read before and
    during; traced, the lines that hold it, from the worker's own snapshots."""
    from bench.live_held import measure

    database, redis_url = postgres_and_redis("bench/live_held.py", "_liveheld")
    held, lines = measure(
        waits=24, rooms=3, settle=1.0, trace=trace, database_url=database, redis_url=redis_url
    )
    assert held.waits == 24 and held.answered == 0
    assert held.during_kb > 0 and held.before_kb > 0
    if trace:
        assert lines[0].startswith("traced: ") and len(lines) > 5
        assert any("httptools_impl.py" in line for line in lines)  # uvicorn's own share
    else:
        assert lines == []


def test_a_boards_memory_is_told_for_both_holders_and_for_each():
    from bench.load.measure import Stats
    from bench.load.report import per_board_kb

    stats = Stats()
    stats.process_names = {1: "node0 uvicorn", 2: "node0 nginx", 3: "node0 gunicorn"}
    stats.rss_before_boards_kb = {1: 100_000, 2: 10_000, 3: 90_000}
    stats.rss_kb = {1: 120_000, 2: 40_000, 3: 500_000}  # gunicorn holds no board
    assert per_board_kb(stats, 1000) == {
        "whole": 160.0,
        "above_idle": 50.0,
        "above_idle uvicorn": 20.0,
        "above_idle nginx": 30.0,
    }
    assert per_board_kb(stats, 0) == {"whole": None, "above_idle": None}


def test_the_bench_reads_a_message_as_channel_js_does():
    """bench/channel.py's pulse_version is channel.js's pulseVersion (the same
    cases as tests/js/channel.test.mjs), and a message keeps what it named."""
    from bench.channel import ChannelWaits, pulse_version

    assert pulse_version("12:3:1:0:45") == 12
    assert pulse_version("7:0:2:0") == 7
    assert pulse_version("0:0:1:0:0\n") == 0
    for text in ("", "hola", "12", "12:3:1", "-1:0:1:0:0", "12:3:1:0:45:9", "1.5:0:1:0:0"):
        assert pulse_version(text) is None, text
    waits = ChannelWaits()
    stamp = "Tue, 04 Mar 2025 10:00:00 GMT"
    assert waits.heard(200, stamp, "0", "12:3:1:0:45") == "message" and waits.news == 12
    assert waits.heard(408, None, None) == "quiet" and waits.news == 12
    later = "Tue, 04 Mar 2025 10:00:07 GMT"
    assert waits.heard(200, later, "2", "not a pulse") == "message" and waits.news is None
