"""The front's own answers (deploy/nginx/mesa.conf.template, started by
conftest): a stranger's Host is closed at the door, plain HTTP is sent to
the HTTPS port nginx listens on, static files carry one Cache-Control and
nosniff, and the app's own 503 on the boards' held path reaches the board as
the 503 it is, without taking the servers out."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import time

import pytest

from .conftest import HOST, ROOT
from .test_nginx import post_room

STRANGER = "stranger.example.net"
DEPLOY = ROOT / "deploy"


def closed_without_answer(send) -> bool:
    try:
        response = send()
    except (http.client.RemoteDisconnected, ConnectionResetError):
        return True
    pytest.fail(f"answered {response.status}")


def test_a_stranger_host_is_closed_without_reaching_the_app(front):
    def https(host_header: str, server_name: str | None):
        raw = socket.create_connection(("127.0.0.1", front.https_port), timeout=10)
        tls = front.context().wrap_socket(raw, server_hostname=server_name or "127.0.0.1")
        connection = http.client.HTTPSConnection("127.0.0.1", front.https_port, timeout=10)
        connection.sock = tls
        connection.request("GET", "/", headers={"Host": host_header})
        return connection.getresponse()

    def plain(host_header: str):
        connection = http.client.HTTPConnection("127.0.0.1", front.http_port, timeout=10)
        connection.request("GET", "/", headers={"Host": host_header})
        return connection.getresponse()

    # By name (the certificate's, or none at all), then the wrong Host.
    assert closed_without_answer(lambda: https(STRANGER, HOST))
    assert closed_without_answer(lambda: https(STRANGER, None))
    assert closed_without_answer(lambda: plain(STRANGER))
    # The site's own name is still the site, with and without a server name.
    assert https(HOST, HOST).status == 200
    assert https(HOST, None).status == 200
    time.sleep(0.3)
    log = front.app_log.read_text()
    assert STRANGER not in log
    assert "DisallowedHost" not in log and "Invalid HTTP_HOST" not in log


def test_plain_http_is_sent_to_the_https_port_nginx_listens_on(front):
    assert front.https_port != 443
    plain = http.client.HTTPConnection("127.0.0.1", front.http_port, timeout=10)
    plain.request("GET", "/mesa/x/?a=1", headers={"Host": f"{HOST}:{front.http_port}"})
    response = plain.getresponse()
    assert response.status == 301
    assert response.getheader("Location") == f"https://{HOST}:{front.https_port}/mesa/x/?a=1"


@pytest.mark.parametrize(("name", "status"), [("probe.js", 200), ("gone.js", 404)])
def test_static_files_say_nosniff_and_one_cache_control(front, name, status):
    (front.static_root / "probe.js").write_text("export {};")
    answer, headers, _body = front.request("GET", f"/static/{name}")
    assert answer == status
    named = [(key.lower(), value) for key, value in headers]
    assert ("x-content-type-options", "nosniff") in named
    if status == 200:
        (cache,) = [value for key, value in named if key == "cache-control"]
        assert "immutable" in cache and "max-age=31536000" in cache


def test_the_apps_503_on_the_held_path_reaches_the_board_and_downs_no_server(front):
    status, headers, _body = post_room(front, forwarded_for="198.51.100.77")
    assert status == 201
    slug = dict(headers)["Location"].strip("/").split("/")[-1]
    status, _headers, body = front.request("GET", f"/api/rooms/{slug}/")
    version = json.loads(body)["version"]

    # The database away: the app answers each held request 503 itself.
    database = front.folder / "db.sqlite3"
    # In WAL mode SQLite removes its -wal and -shm files when the last connection
    # closes, which may happen between a listing and a rename: gone is fine.
    kept = {path: path.with_name("kept-" + path.name) for path in front.folder.glob("db.sqlite3*")}
    for path, aside in kept.items():
        with contextlib.suppress(FileNotFoundError):
            path.rename(aside)
    try:
        answers = [front.request("GET", f"/api/rooms/{slug}/?wait={version}")[0] for _ in range(6)]
    finally:
        for path in front.folder.glob("db.sqlite3*"):
            path.unlink(missing_ok=True)  # the empty database sqlite made meanwhile
        for path, aside in kept.items():
            if aside.exists():
                aside.rename(path)
    assert database.exists()
    assert answers == [503] * 6
    # At once the next wait reaches the app again (another version: answered now).
    status, _headers, body = front.request("GET", f"/api/rooms/{slug}/?wait={version + 1}")
    assert status == 200, body[:300]
    assert json.loads(body)["version"] == version
    errors = (front.folder / "logs" / "mesa-error.log").read_text()
    assert "no live upstreams" not in errors


def test_the_templates_comments_name_the_sockets_the_units_serve_on():
    served = set()
    for unit in (DEPLOY / "systemd").glob("*.service"):
        text = unit.read_text()
        served |= set(re.findall(r"GUNICORN_BIND=unix:(\S+)", text))
        served |= set(re.findall(r"--uds (\S+)", text))
    template = (DEPLOY / "nginx" / "mesa.conf.template").read_text()
    comments = "\n".join(line for line in template.splitlines() if line.lstrip().startswith("#"))
    named = set(re.findall(r"unix:(/\S+?\.sock)", comments))
    assert named and named <= served, named - served
    assert {"/run/mesa/gunicorn.sock", "/run/mesa-live/uvicorn.sock"} <= served
