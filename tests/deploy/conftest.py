"""A real front for the tests: deploy/nginx/mesa.conf.template rendered and
started with Debian's nginx (`nginx -p <dir> -c <conf>`, not a daemon) in
front of gunicorn on a unix socket, as docs/DEPLOY.md sets them up, with TLS
on a throwaway certificate. Ports come from MESA_NGINX_PORT_BASE (18450..)."""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy import nginxconf
from tests.deploy.nginxconf import render, write_nginx_conf
from tests.helpers import missing
from tests.test_deploy import ROOT, production_env

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
GUNICORN = Path(sys.executable).with_name("gunicorn")
HOST = "mesa.example.com"


def free_ports(count: int) -> list[int]:
    base = int(os.environ.get("MESA_NGINX_PORT_BASE", "18450"))
    found = []
    for port in range(base, base + 50):
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    missing(f"no two free ports from {base} for nginx (MESA_NGINX_PORT_BASE)")


def certificate(folder: Path) -> None:
    nginxconf.certificate(folder, HOST)


@dataclass
class Front:
    folder: Path
    https_port: int
    http_port: int
    access_log: Path
    app_log: Path
    static_root: Path
    publish_port: int  # the template's nchan publisher (LIVE_NCHAN_URL)

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.folder / "cert.pem"))
        return context

    def connection(
        self, source: str = "127.0.0.1", timeout: float = 20
    ) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            "127.0.0.1",
            self.https_port,
            timeout=timeout,
            context=self.context(),
            source_address=(source, 0),
        )

    def request(
        self, method: str, path: str, *, source="127.0.0.1", headers=None, body=None, timeout=20
    ):
        connection = self.connection(source, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers={"Host": HOST, **(headers or {})})
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            connection.close()


def _wait_for(front: Front, processes: list[subprocess.Popen]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                pytest.fail(f"{process.args[0]} exited: see {front.folder}")
        try:
            status, _headers, _body = front.request("GET", "/healthz")
            if status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.2)
    pytest.fail(f"nginx and gunicorn did not answer: see {front.folder}")


@pytest.fixture(scope="package")
def front(tmp_path_factory):
    if not os.path.exists(NGINX):
        missing("nginx is not installed (apt-get install nginx; .ci/run does)")
    if not shutil.which("openssl"):
        missing("openssl is not installed (the front's throwaway certificate)")
    folder = tmp_path_factory.mktemp("front")
    (folder / "logs").mkdir()
    static_root = folder / "static"
    static_root.mkdir()
    http_port, https_port, publish_port = free_ports(3)
    certificate(folder)

    env = production_env(
        DJANGO_SETTINGS_MODULE="tests.deploy.settings",
        PYTHONPATH=str(ROOT),
        SITE_URL=f"https://{HOST}",
        ALLOWED_HOSTS=HOST,
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        CACHE_URL="dbcache://mesa_cache",
        CELERY_BROKER_URL="memory://",
        MESA_ALLOW_EMBEDDED="1",
        TRUSTED_PROXIES="127.0.0.1",
        STATICFILES_BACKEND="django.contrib.staticfiles.storage.StaticFilesStorage",
        GUNICORN_BIND=f"unix:{folder / 'gunicorn.sock'}",
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="8",
        LIVE_NCHAN_URL=nginxconf.publish_url(publish_port),
    )
    for command in (["createcachetable"], ["migrate", "--noinput", "-v0"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )

    values = {
        "MESA_SERVER_NAME": HOST,
        "MESA_HTTP_LISTEN": f"127.0.0.1:{http_port}",
        "MESA_HTTPS_LISTEN": f"127.0.0.1:{https_port}",
        "MESA_TLS_CERT": str(folder / "cert.pem"),
        "MESA_TLS_KEY": str(folder / "key.pem"),
        "MESA_UPSTREAM": f"unix:{folder / 'gunicorn.sock'}",
        # No uvicorn in this front: the held requests fall back to gunicorn
        # (tests/deploy/test_two_nodes.py runs the nodes with it).
        "MESA_LIVE_UPSTREAM": f"unix:{folder / 'uvicorn.sock'}",
        "MESA_STATIC_ROOT": str(static_root),
        "MESA_LOG_DIR": str(folder / "logs"),
        **nginxconf.channel_values(publish_port),
    }
    site = render((ROOT / "deploy" / "nginx" / "mesa.conf.template").read_text(), values)
    (folder / "mesa.conf").write_text(site)
    write_nginx_conf(folder)
    test = subprocess.run(
        [NGINX, "-t", "-p", str(folder), "-c", str(folder / "nginx.conf")],
        capture_output=True,
        text=True,
    )
    assert test.returncode == 0, test.stderr

    app_log = folder / "gunicorn.log"
    with app_log.open("w") as log:
        gunicorn = subprocess.Popen(
            [str(GUNICORN), "-c", "config/gunicorn.conf.py"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    nginx = subprocess.Popen(
        [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "logs" / "nginx.out").open("w"),
    )
    front = Front(
        folder=folder,
        https_port=https_port,
        http_port=http_port,
        access_log=folder / "logs" / "mesa-access.log",
        app_log=app_log,
        static_root=static_root,
        publish_port=publish_port,
    )
    try:
        _wait_for(front, [gunicorn, nginx])
        yield front
    finally:
        for process in (nginx, gunicorn):
            process.terminate()
        for process in (nginx, gunicorn):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
