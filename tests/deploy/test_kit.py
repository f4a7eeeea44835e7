"""deploy/: the systemd units and the compose file start the same processes
as the README (a worker for every queue, mail alone, exactly one beat, the
web behind nginx) and fill every placeholder of the nginx template."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings

from tests.test_celery_config import consumed

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
EVERY_QUEUE = set(settings.CELERY_QUEUE_NAMES.split(","))


def units() -> dict[str, str]:
    return {path.name: path.read_text() for path in (DEPLOY / "systemd").glob("*.service")}


def compose_commands() -> dict[str, list[str]]:
    """Each service's command in deploy/compose.yaml (one JSON-style list a line)."""
    commands, service = {}, None
    for line in (DEPLOY / "compose.yaml").read_text().splitlines():
        if match := re.match(r"^  ([\w-]+):$", line):
            service = match[1]
        elif match := re.match(r"^    command: (\[.*\])$", line):
            commands[service] = json.loads(match[1])
    return commands


def test_the_systemd_units_start_a_worker_for_every_queue_and_one_beat():
    text = "\n".join(units().values())
    workers = consumed(text)
    assert set().union(*workers) == EVERY_QUEUE
    assert {"mail"} in workers
    assert len(re.findall(r"celery -A config beat", text)) == 1
    target = (DEPLOY / "systemd" / "mesa.target").read_text()
    for name in units():
        assert name in target, name
        assert "Restart=always" in units()[name], name


def test_the_web_unit_serves_on_the_socket_nginx_proxies_to():
    web = units()["mesa-web.service"]
    assert "GUNICORN_BIND=unix:/run/mesa/gunicorn.sock" in web
    assert "gunicorn -c config/gunicorn.conf.py" in web
    template = (DEPLOY / "nginx" / "mesa.conf.template").read_text()
    assert "server ${MESA_UPSTREAM}" in template


def test_the_compose_file_runs_the_same_processes():
    commands = compose_commands()
    workers = [
        set(command[command.index("-Q") + 1].split(","))
        for command in commands.values()
        if command[:4] == ["celery", "-A", "config", "worker"]
    ]
    assert set().union(*workers) == EVERY_QUEUE
    assert {"mail"} in workers
    assert [name for name, command in commands.items() if "beat" in command] == ["beat"]
    assert commands["migrate"] == ["python", "manage.py", "migrate", "--noinput"]
    assert "gunicorn -c config/gunicorn.conf.py" in " ".join(commands["web"])


def test_the_compose_file_fills_every_placeholder_of_the_nginx_template():
    template = (DEPLOY / "nginx" / "mesa.conf.template").read_text()
    placeholders = set(re.findall(r"\$\{(MESA_\w+)\}", template))
    compose = (DEPLOY / "compose.yaml").read_text()
    nginx = compose[compose.index("\n  nginx:") :]
    given = set(re.findall(r"^      (MESA_\w+):", nginx, re.M))
    assert placeholders == given
    # The envsubst line of the template's own instructions names them all too.
    instructions = template[: template.index("map ")]
    assert placeholders == set(re.findall(r"\$(MESA_\w+)", instructions))


# The whole site's PostgreSQL connections: gunicorn and uvicorn processes
# x the pool of each + one per Celery worker process + beat, at most this many.
CONNECTION_BUDGET = 20


def worker_processes(commands: list[str]) -> int:
    """Celery worker processes the commands start (their --concurrency each)."""
    found = [re.search(r"--concurrency=(\d+)", command) for command in commands]
    assert all(found), "every worker states its --concurrency"
    return sum(int(match[1]) for match in found if match)


def test_the_systemd_defaults_stay_within_the_connection_budget():
    web = units()["mesa-web.service"]
    processes = int(re.search(r"^Environment=WEB_CONCURRENCY=(\d+)$", web, re.M)[1])
    pool = int(re.search(r"^Environment=DB_POOL_MAX=(\d+)$", web, re.M)[1])
    live = units()["mesa-live.service"]
    live_processes = int(re.search(r"--workers (\d+)", live)[1])
    live_pool = int(re.search(r"^Environment=DB_POOL_MAX=(\d+)$", live, re.M)[1])
    workers = [
        line
        for text in units().values()
        for line in text.splitlines()
        if line.startswith("ExecStart=") and "celery -A config worker" in line
    ]
    beats = sum("celery -A config beat" in text for text in units().values())
    web_side = processes * pool + live_processes * live_pool
    assert web_side + worker_processes(workers) + beats <= CONNECTION_BUDGET


def test_the_compose_defaults_stay_within_the_connection_budget():
    compose = (DEPLOY / "compose.yaml").read_text()
    processes = int(re.search(r'^      WEB_CONCURRENCY: "(\d+)"$', compose, re.M)[1])
    pools = [int(n) for n in re.findall(r'^      DB_POOL_MAX: "(\d+)"$', compose, re.M)]
    pool, live_pool = pools  # the web's, then the live waits'
    commands = compose_commands()
    live = commands["live"]
    live_processes = int(live[live.index("--workers") + 1])
    workers = [
        " ".join(c) for c in commands.values() if c[:4] == ["celery", "-A", "config", "worker"]
    ]
    beats = sum("beat" in command for command in commands.values())
    web_side = processes * pool + live_processes * live_pool
    assert web_side + worker_processes(workers) + beats <= CONNECTION_BUDGET


def test_nginx_closes_idle_upstream_connections_before_gunicorn_and_uvicorn_do():
    """Else a request nginx sends on a connection the server is closing is lost:
    a 502 for a POST, which nginx never sends twice."""
    import runpy

    gunicorn_keepalive = runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))["keepalive"]
    template = (DEPLOY / "nginx" / "mesa.conf.template").read_text()
    upstreams = dict(re.findall(r"upstream (\w+) \{(.*?)\n\}", template, re.S))

    def nginx_keeps(upstream: str) -> int:
        found = re.search(r"keepalive_timeout (\d+)s;", upstreams[upstream])
        assert found, f"{upstream}: without keepalive_timeout nginx keeps 60 s"
        return int(found[1])

    uvicorn_keeps = set()
    for text in (units()["mesa-live.service"], (DEPLOY / "compose.yaml").read_text()):
        found = re.search(r"--timeout-keep-alive\W+(\d+)", text)
        assert found
        uvicorn_keeps.add(int(found[1]))
    assert nginx_keeps("mesa_app") < gunicorn_keepalive
    assert nginx_keeps("mesa_live") < min(uvicorn_keeps | {gunicorn_keepalive})
