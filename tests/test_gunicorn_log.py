"""A 500 under gunicorn, DEBUG off, started as docs/DEPLOY.md says:
its traceback reaches gunicorn's log (stderr), and under /api/ the client still
reads JSON."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.test_deploy import production_env

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port():
    # The port range this project's test runs may use on a shared machine.
    for port in range(int(os.environ.get("MESA_TEST_PORT_BASE", "18150")), 18200):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    pytest.skip("no free port")


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed")
def test_gunicorn_logs_the_traceback_of_a_500(tmp_path):
    port = free_port()
    env = production_env(
        DJANGO_SETTINGS_MODULE="tests.deploy_boom.settings",
        ALLOWED_HOSTS="127.0.0.1",
        SITE_URL="http://127.0.0.1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CACHE_URL="locmemcache://",
        CELERY_BROKER_URL="memory://",
        MESA_ALLOW_EMBEDDED="1",
        PYTHONPATH=str(ROOT),
    )
    log = (tmp_path / "gunicorn.log").open("w+")
    server = subprocess.Popen(
        [
            str(GUNICORN),
            "-c",
            "config/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(100):
            try:
                status, _headers, _body = fetch(f"http://127.0.0.1:{port}/boom/")
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        else:
            pytest.fail("gunicorn did not answer")
        assert status == 500
        status, headers, body = fetch(f"http://127.0.0.1:{port}/api/boom")
        assert status == 500
        assert headers["Content-Type"] == "application/json"
        assert json.loads(body)["error"]["code"] == "server_error"
    finally:
        server.terminate()
        server.wait(timeout=30)
    log.seek(0)
    text = log.read()
    assert "Internal Server Error: /boom/" in text
    assert "Traceback" in text and "RuntimeError: a bug nobody caught" in text
    assert "Internal Server Error: /api/boom" in text
