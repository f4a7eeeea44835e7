"""deploy/: the systemd units and the compose file start the same processes
as docs/DEPLOY.md (a worker for every queue, mail alone, exactly one beat, the
web behind nginx) and fill every placeholder of the nginx template."""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import warnings
from pathlib import Path
from typing import Any

from django.conf import settings

from . import systemd

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
EVERY_QUEUE = set(settings.CELERY_QUEUE_NAMES.split(","))
# docs/DEPLOY.md: `install ... deploy/mesa.env.example /etc/mesa/mesa.env`.
INSTALLED = {"/etc/mesa/mesa.env": DEPLOY / "mesa.env.example"}


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


def command_lines() -> dict[str, list[str]]:
    """Each unit's ExecStart= as systemd hands it to the process on this machine:
    the shipped file read by systemd's rules, with the example env file installed."""
    manager = systemd.Manager(hostname=socket.gethostname())

    def read(path: str) -> str | None:
        return INSTALLED[path].read_text() if path in INSTALLED else None

    found = {}
    for path in sorted((DEPLOY / "systemd").glob("*.service")):
        unit = systemd.load_unit(path, installed_as=f"/etc/systemd/system/{path.name}")
        [command] = systemd.exec_start(unit, manager)
        found[path.name] = command.expanded(systemd.environment(unit, manager, read=read))
    return found


def celery_parses(argv: list[str]) -> tuple[str, dict[str, Any]]:
    """`celery ...` read by Celery's own command line (click), its options converted
    as at a worker's start (the node name by celery.utils.nodenames' host_format)."""
    from celery.app.utils import find_app
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery

    group = celery.make_context("celery", argv[1:])
    app = find_app(group.params["app"])  # as the group's own callback loads -A
    group.obj = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # click 8.2's protected_args
        name, command, rest = celery.resolve_command(group, [*group.protected_args, *group.args])
    assert command is not None and name is not None
    return name, command.make_context(name, rest, parent=group).params


def test_the_systemd_units_start_a_worker_for_every_queue_and_one_beat():
    workers, nodes, beats = [], [], []
    for name, argv in command_lines().items():
        if Path(argv[0]).name != "celery":
            continue
        subcommand, options = celery_parses(argv)
        if subcommand == "worker":
            workers.append(set(options["queues"]))
            nodes.append(options["hostname"])
        elif subcommand == "beat":
            beats.append(name)
    assert set().union(*workers) == EVERY_QUEUE
    assert {"mail"} in workers
    assert beats == ["mesa-beat.service"]
    # Each worker a node of its own on this host (bots@<host>...), as Celery names them.
    host = socket.gethostname()
    assert len(set(nodes)) == len(nodes)
    assert all(node.endswith(f"@{host}") and "%" not in node for node in nodes), nodes
    target = (DEPLOY / "systemd" / "mesa.target").read_text()
    for name in units():
        assert name in target, name
        assert "Restart=always" in units()[name], name
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


def test_the_live_server_keeps_few_states_in_both_kits():
    """uvicorn's states are shared by the boards woken together: it keeps a tenth
    of the web's copies, in the unit and in the compose file alike."""
    live = units()["mesa-live.service"]
    kept = int(re.search(r"^Environment=MESA_STATE_LOCAL_ENTRIES=(\d+)$", live, re.M)[1])
    compose = (DEPLOY / "compose.yaml").read_text()
    assert re.findall(r'^      MESA_STATE_LOCAL_ENTRIES: "(\d+)"$', compose, re.M) == [str(kept)]
    assert "MESA_STATE_LOCAL_ENTRIES" not in units()["mesa-web.service"]  # the default, 1,000
    assert 0 < kept <= 1000 // 10


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


def test_a_stopped_worker_lets_its_running_task_finish():
    """The worker units promise a warm shutdown. systemd.kill(5): with KillMode=
    control-group (the default) KillSignal= reaches every process of the unit at
    once; with mixed only the main process (SIGKILL for the rest after
    TimeoutStopSec=). Celery's prefork children reset SIGTERM to its default
    (celery.concurrency.prefork), so a SIGTERM of their own kills the task they run."""
    from celery.concurrency import prefork

    for name, argv in command_lines().items():
        if Path(argv[0]).name != "celery" or celery_parses(argv)[0] != "worker":
            continue
        unit = systemd.load_unit(DEPLOY / "systemd" / name)
        mode = unit.value("Service", "KillMode", "control-group")
        kill = unit.value("Service", "KillSignal", "SIGTERM")
        children_get_it = mode == "control-group"
        it_kills_a_child = kill in prefork.WORKER_SIGRESET and kill not in prefork.WORKER_SIGIGNORE
        assert not (children_get_it and it_kills_a_child), f"{name}: KillMode={mode}"


def unit_environments() -> dict[str, dict[str, str]]:
    """Each unit's environment as systemd gives it, the example env file installed."""
    manager = systemd.Manager(hostname=socket.gethostname())

    def read(path: str) -> str | None:
        return INSTALLED[path].read_text() if path in INSTALLED else None

    return {
        path.name: systemd.environment(
            systemd.load_unit(path, installed_as=f"/etc/systemd/system/{path.name}"),
            manager,
            read=read,
        )
        for path in sorted((DEPLOY / "systemd").glob("*.service"))
    }


def test_the_bots_worker_reads_its_queue_alone_one_search_thread_a_process():
    """A long sweep never delays a bot's turn, and the worker's processes x the
    search's threads stay at its cores (docs/DEPLOY.md, the bots' capacity)."""
    by_queues = {}
    for name, argv in command_lines().items():
        if Path(argv[0]).name == "celery":
            subcommand, options = celery_parses(argv)
            if subcommand == "worker":
                by_queues[name] = (set(options["queues"]), options["concurrency"])
    assert by_queues["mesa-worker-bots.service"] == ({"bots"}, 2)
    assert by_queues["mesa-worker-sweeps.service"][0] == {"sweeps"}
    assert unit_environments()["mesa-worker-bots.service"]["BGBOT_MULTIPLY_THREADS"] == "1"
    import yaml

    bots = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["worker-bots"]
    assert bots["command"][bots["command"].index("-Q") + 1] == "bots"
    assert bots["environment"]["BGBOT_MULTIPLY_THREADS"] == "1"
    # make run: the commands make would run, as make reads the Makefile.
    dry = subprocess.run(
        ["make", "-n", "run", "STAMP="], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.replace("\\\n", " ").splitlines()
    launched = [shlex.split(line) for line in lines if "config.embedded" in line]
    [commands] = [words[words.index("config.embedded") + 1 :] for words in launched]
    [bots_run] = [c for c in commands if "-Q bots " in c + " "]
    assert bots_run.startswith("env BGBOT_MULTIPLY_THREADS=1 ")
    assert any("-Q sweeps" in c and "--beat" in c for c in commands)


# One node's target (issue 35, docs/LOAD.md): its waiting boards may all connect
# again at once (a restart, nginx reloaded, a blip of the network).
BOARDS_A_NODE = 10_000
# What the kernel grants a listen() by default (net.core.somaxconn since Linux 5.4):
# a deeper backlog asked for is cut to it without a word.
SOMAXCONN = 4096


def test_every_listen_backlog_is_as_deep_as_the_kernel_allows():
    """A full backlog is a refused or dropped connection, and for nginx's connect()
    to a unix socket an immediate 502 (EAGAIN): gunicorn's default 2048 gave
    10,000 opening boards 416 of them (docs/LOAD.md)."""
    import runpy

    assert runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))["backlog"] >= SOMAXCONN
    for text in (units()["mesa-live.service"], (DEPLOY / "compose.yaml").read_text()):
        found = re.search(r"--backlog\W+(\d+)", text)
        assert found and int(found[1]) >= SOMAXCONN
    template = (DEPLOY / "nginx" / "mesa.conf.template").read_text()
    listens = re.findall(r"^\s*listen (\$\{\w+\})([^;]*);", template, re.M)
    # The channels' publisher is a few app processes' (the boards never reach it).
    ports = {port for port, _options in listens} - {"${MESA_PUBLISH_LISTEN}"}
    assert ports == {"${MESA_HTTP_LISTEN}", "${MESA_HTTPS_LISTEN}"}
    for port in ports:
        # nginx takes a port's options from one of its listen lines (nginx -t
        # refuses them twice): 511 when none says.
        backlogs = [
            int(found[1])
            for name, options in listens
            if name == port and (found := re.search(r"\bbacklog=(\d+)", options))
        ]
        assert len(backlogs) == 1 and backlogs[0] >= SOMAXCONN, port


def test_the_documented_nginx_worker_holds_a_nodes_boards():
    """Two connections a waiting board (the browser's and uvicorn's): the sizes
    docs/DEPLOY.md tells the operator to set hold a node's boards in one worker
    (the kernel does not share connections out evenly between workers), with
    descriptors for every connection."""
    deploy_doc = (ROOT / "docs" / "DEPLOY.md").read_text()
    connections = re.search(r"`worker_connections (\d+);`", deploy_doc)
    open_files = re.search(r"`worker_rlimit_nofile (\d+);`", deploy_doc)
    assert connections and open_files
    assert int(connections[1]) >= 2 * BOARDS_A_NODE + 1024
    assert int(open_files[1]) >= int(connections[1]) + 64
