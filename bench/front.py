"""`make load`'s servers as the deploy kit runs them, and the bare reference beside them.

A node is nginx, rendered from deploy/nginx/mesa.conf.template (by
tests/deploy/nginxconf.py, as the deploy tests render it), in front of
gunicorn and uvicorn started with deploy/systemd/mesa-web.service's and
mesa-live.service's own ExecStart= and Environment= (their pool sizes and
worker counts), read by tests/deploy/systemd.py as systemd reads them. The
machine's paths in them are mapped to this checkout (/srv/mesa) and a
temporary folder (/run/...). bench/ imports tests.deploy here, one way: the
unit reader and the renderer are test code that reads the shipped files,
and copying them would let the benchmark drift from what the tests check.

The reference is a separate Django project made with `django-admin
startproject` in the node's folder (its default middleware), with one view:
one indexed query (a room by its unique slug) as JSON, served by gunicorn
with config/gunicorn.conf.py and the web unit's workers and pool, behind the
same nginx on a port of its own.
"""

from __future__ import annotations

import math
import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tests.deploy import nginxconf, systemd

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
UNITS = ROOT / "deploy" / "systemd"
ON_MACHINE = "/srv/mesa"  # where the units expect the checkout (WorkingDirectory=)
HOST = "127.0.0.1"
# The waits of thousands of boards: each the board's connection, and on the long
# poll (the fallback) an upstream one too.
WORKER_CONNECTIONS = 16384
# Besides those: the players, readers, throughput clients, idle keep-alives, and
# the boards' state reads upstream (with 4,096 at 10,000 boards on the channels
# nginx logged "worker_connections are not enough" and 33 connects failed).
SPARE_CONNECTIONS = 8192


@dataclass(frozen=True)
class NginxSize:
    """nginx's workers and each one's connections and open files for `boards` waiting
    boards (`per_board` connections each: the board's, and on the long poll
    uvicorn's). One worker when the machine's open-file limit lets one hold them
    all, as deploy/nginx/nginx.conf runs (nchan's channels); else more, each allowed
    as many as the limit lets (the kernel does not share the connections out evenly)."""

    workers: int
    connections: int
    open_files: int

    @classmethod
    def for_boards(
        cls, boards: int, hard_limit: int | None = None, per_board: int = 1
    ) -> NginxSize:
        if hard_limit is None:
            hard_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        needed = max(WORKER_CONNECTIONS, per_board * boards + SPARE_CONNECTIONS)
        if hard_limit == resource.RLIM_INFINITY:
            hard_limit = needed + 64
        # Without CAP_SYS_RESOURCE (a container) nginx cannot raise its workers'
        # limit past the hard one: setrlimit fails, and a worker out of descriptors
        # refuses clients and answers 502 for lack of an upstream socket.
        most = hard_limit - 64
        workers = math.ceil(needed / most)
        connections = min(needed, most)
        return cls(workers, connections, connections + 64)


REFERENCE_APPLICATION = "mesa-load-reference"

REFERENCE_VIEW = '''

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse


def room(request: HttpRequest, slug: str) -> HttpResponse:
    """One indexed query (games_room's unique slug) as JSON."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT slug, status, last_move_at FROM games_room WHERE slug = %s", [slug]
        )
        row = cursor.fetchone()
    if row is None:
        return JsonResponse({"error": "not_found"}, status=404)
    return JsonResponse({"slug": row[0], "status": row[1], "last_move_at": row[2]})


urlpatterns += [path("ref/<str:slug>", room)]
'''

REFERENCE_SERVER = """
upstream bare_reference {{
    server unix:{socket};
    keepalive 16;
    keepalive_timeout 60s;
}}
server {{
    listen 127.0.0.1:{port} ssl http2;
    server_name {host};
    ssl_certificate {folder}/cert.pem;
    ssl_certificate_key {folder}/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:bare_tls:10m;
    access_log {folder}/logs/reference-access.log mesa;
    location / {{
        proxy_pass http://bare_reference;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_read_timeout 40s;
        proxy_buffering on;
    }}
}}
"""


@dataclass
class Node:
    """One node's folder and ports: the site on https_port, the reference (the
    first node only) on reference_port."""

    folder: Path
    https_port: int
    http_port: int
    reference_port: int | None
    publish_port: int  # its nginx's nchan publisher, which its processes POST to
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"https://{HOST}:{self.https_port}"

    @property
    def reference(self) -> str:
        return f"https://{HOST}:{self.reference_port}" if self.reference_port else ""

    def run_path(self, on_machine: str) -> str:
        """A path the units name, on this machine: /srv/mesa is the checkout, /run/x
        the node's own folder."""
        if on_machine == ON_MACHINE or on_machine.startswith(ON_MACHINE + "/"):
            return str(ROOT) + on_machine[len(ON_MACHINE) :]
        if on_machine.startswith("/run/"):
            return str(self.folder / "run" / on_machine[len("/run/") :])
        return on_machine


def _mapped(node: Node, word: str) -> str:
    """Every machine path inside a word (`unix:/run/mesa/gunicorn.sock` too)."""
    for prefix in (ON_MACHINE, "/run/"):
        at = word.find(prefix)
        if at >= 0:
            return word[:at] + node.run_path(word[at:])
    return word


def unit_command(
    name: str, node: Node, base: dict[str, str], overrides: dict[str, str]
) -> tuple[list[str], dict[str, str]]:
    """A unit's ExecStart= and environment as systemd would start it, its paths mapped
    to this machine; `base` stands for /etc/mesa/mesa.env (the run's settings),
    `overrides` for an operator's drop-in (the benchmark's --web-workers...)."""
    unit = systemd.load_unit(UNITS / name)
    manager = systemd.Manager()
    # /etc/mesa/mesa.env is the run's own settings, passed as the manager's base:
    # the unit's Environment= (its pool, its workers) win over them, as in the kit.
    env = systemd.environment(unit, manager, read=lambda _path: "", base=base)
    env.update(overrides)
    env = {key: _mapped(node, value) for key, value in env.items()}
    for folder in systemd.directories(unit, manager, "RuntimeDirectory"):
        Path(node.run_path(f"/run/{folder}")).mkdir(parents=True, exist_ok=True)
    [command] = systemd.exec_start(unit, manager)
    return [_mapped(node, word) for word in command.expanded(env)], env


def replace_flag(argv: list[str], flag: str, value: str) -> list[str]:
    at = argv.index(flag)
    return [*argv[: at + 1], value, *argv[at + 2 :]]


def write_nginx(
    node: Node,
    live: bool,
    boards: int = 0,
    per_board: int = 1,
) -> Path:
    folder = node.folder
    nginxconf.certificate(folder, HOST)
    values = {
        "MESA_SERVER_NAME": HOST,
        "MESA_HTTP_LISTEN": f"127.0.0.1:{node.http_port}",
        "MESA_HTTPS_LISTEN": f"127.0.0.1:{node.https_port}",
        "MESA_TLS_CERT": str(folder / "cert.pem"),
        "MESA_TLS_KEY": str(folder / "key.pem"),
        "MESA_UPSTREAM": f"unix:{node.run_path('/run/mesa/gunicorn.sock')}",
        # --server wsgi: no uvicorn there, the held requests fall back to gunicorn.
        "MESA_LIVE_UPSTREAM": f"unix:{node.run_path('/run/mesa-live/uvicorn.sock')}",
        "MESA_STATIC_ROOT": str(folder / "static"),
        "MESA_LOG_DIR": str(folder / "logs"),
        **nginxconf.channel_values(node.publish_port),
    }
    (folder / "static").mkdir(exist_ok=True)
    site = nginxconf.render(nginxconf.TEMPLATE.read_text(), values)
    (folder / "mesa.conf").write_text(site)
    extra = ""
    if node.reference_port:
        extra = REFERENCE_SERVER.format(
            socket=folder / "reference.sock", port=node.reference_port, host=HOST, folder=folder
        )
    size = NginxSize.for_boards(boards, per_board=per_board)
    conf = nginxconf.write_nginx_conf(
        folder,
        worker_connections=size.connections,
        worker_processes=size.workers,
        open_files=size.open_files,
        http_extra=extra,
    )
    test = subprocess.run(
        [NGINX, "-t", "-p", str(folder), "-c", str(conf)], capture_output=True, text=True
    )
    if test.returncode:
        raise RuntimeError(f"nginx -t: {test.stderr}")
    return conf


def make_reference(folder: Path, database_url: str, pool: str) -> Path:
    """startproject's project in folder/bareref, on the run's database."""
    project = folder / "bareref"
    project.mkdir(exist_ok=True)
    subprocess.run(
        [str(VENV_BIN / "django-admin"), "startproject", "bareref", str(project)],
        check=True,
        capture_output=True,
    )
    parts = urlsplit(database_url)
    database = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": parts.path.lstrip("/"),
        "USER": parts.username or "postgres",
        "PASSWORD": parts.password or "",
        "HOST": parts.hostname or "127.0.0.1",
        "PORT": str(parts.port or 5432),
        # Named, so that the site's connections are counted without the reference's.
        "OPTIONS": {
            "application_name": REFERENCE_APPLICATION,
            "pool": {"min_size": 1, "max_size": int(pool), "timeout": 10.0},
        },
    }
    settings = project / "bareref" / "settings.py"
    settings.write_text(
        settings.read_text()
        + f"\nDEBUG = False\nALLOWED_HOSTS = [{HOST!r}]\nDATABASES = {{'default': {database!r}}}\n"
    )
    urls = project / "bareref" / "urls.py"
    urls.write_text(urls.read_text() + REFERENCE_VIEW)
    return project


def spawn(
    argv: list[str], env: dict[str, str], cwd: Path, log: Path, cores: str
) -> subprocess.Popen[bytes]:
    pin = ["taskset", "-c", cores] if shutil.which("taskset") else []
    with log.open("ab") as out:
        return subprocess.Popen(
            [*pin, *argv],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped by its id at the end
        )


def start_node(
    node: Node,
    *,
    settings: dict[str, str],
    web: dict[str, str],
    live: dict[str, str] | None,
    live_workers: int | None,
    database_url: str,
    cores: str,
    boards: int = 0,
    per_board: int = 1,
) -> dict[str, str]:
    """gunicorn, uvicorn (live is None: not started) and nginx of one node, and the
    reference project when the node has its port: the sizes they run with."""
    node.folder.mkdir(parents=True, exist_ok=True)
    (node.folder / "logs").mkdir(exist_ok=True)
    log = node.folder / "logs" / "servers.log"
    argv, env = unit_command("mesa-web.service", node, settings, web)
    node.processes["gunicorn"] = spawn(argv, env, ROOT, log, cores)
    sizes = {
        "web_workers": env.get("WEB_CONCURRENCY", "3"),
        "threads": env.get("GUNICORN_THREADS", "20"),  # config/gunicorn.conf.py's default
        "pool": env.get("DB_POOL_MAX", "0"),
    }
    if live is not None:
        argv, live_env = unit_command("mesa-live.service", node, settings, live)
        if live_workers:
            argv = replace_flag(argv, "--workers", str(live_workers))
        node.processes["uvicorn"] = spawn(argv, live_env, ROOT, log, cores)
        sizes["live_workers"] = argv[argv.index("--workers") + 1]
        sizes["live_pool"] = live_env.get("DB_POOL_MAX", "0")
    if node.reference_port:
        project = make_reference(node.folder, database_url, env["DB_POOL_MAX"])
        reference_env = {
            **env,
            "DJANGO_SETTINGS_MODULE": "bareref.settings",
            "PYTHONPATH": f"{project}{os.pathsep}{ROOT}",
            "GUNICORN_BIND": f"unix:{node.folder / 'reference.sock'}",
        }
        argv = [
            str(VENV_BIN / "gunicorn"),
            "-c",
            str(ROOT / "config" / "gunicorn.conf.py"),
            "bareref.wsgi:application",
        ]
        node.processes["reference"] = spawn(argv, reference_env, project, log, cores)
    conf = write_nginx(node, live is not None, boards, per_board)
    size = NginxSize.for_boards(boards, per_board=per_board)
    sizes["nginx_workers"] = str(size.workers)
    sizes["nginx_connections"] = str(size.connections)
    node.processes["nginx"] = spawn(
        [NGINX, "-p", str(node.folder), "-c", str(conf), "-g", "daemon off;"],
        dict(os.environ),
        node.folder,
        log,
        cores,
    )
    return sizes
