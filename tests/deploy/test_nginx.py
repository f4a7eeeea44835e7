"""Through the front (deploy/nginx/mesa.conf.template, started by conftest):
the app sees each client's own address, slow clients do not starve the site,
static files come from nginx, and neither log holds a private link whole."""

from __future__ import annotations

import json
import re
import socket
import ssl
import statistics
import threading
import time
from http.cookies import SimpleCookie

from .conftest import HOST, ROOT

SECRET = "Zx-_9abcDEFsecretTOKEN"


def csrf(front, source="127.0.0.1", forwarded_for=None):
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    status, response_headers, _body = front.request("GET", "/", source=source, headers=headers)
    assert status == 200
    cookie = SimpleCookie()
    for name, value in response_headers:
        if name.lower() == "set-cookie":
            cookie.load(value)
    return cookie["csrftoken"].value


def create_room(front, *, source="127.0.0.1", forwarded_for=None):
    return post_room(front, source=source, forwarded_for=forwarded_for)[0]


def post_room(front, *, source="127.0.0.1", forwarded_for=None):
    token = csrf(front, source, forwarded_for)
    headers = {
        "Content-Type": "application/json",
        "Cookie": f"csrftoken={token}",
        "X-CSRFToken": token,
        "Origin": f"https://{HOST}",
        "Referer": f"https://{HOST}/",
    }
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    body = json.dumps({"nickname": "ana", "rules": {"format": "single"}})
    return front.request("POST", "/api/rooms", source=source, headers=headers, body=body)


def test_two_clients_behind_the_proxy_are_limited_separately(front):
    # The test's own client plays a load balancer at 127.0.0.1 (a trusted
    # proxy, TRUSTED_PROXIES): the entry it forwards is the client.
    first = [create_room(front, forwarded_for="198.51.100.1") for _ in range(3)]
    second = create_room(front, forwarded_for="198.51.100.2")
    assert first == [201, 201, 429]
    assert second == 201


def test_a_client_that_is_no_proxy_cannot_forge_its_address(front):
    # 127.0.0.2 is not trusted: whatever X-Forwarded-For it sends, it is itself.
    answers = [
        create_room(front, source="127.0.0.2", forwarded_for=f"203.0.113.{n}") for n in range(3)
    ]
    assert answers == [201, 201, 429]
    assert create_room(front, source="127.0.0.3", forwarded_for="203.0.113.1") == 201
    # gunicorn's access line names the same client the limits counted.
    log = front.app_log.read_text()
    assert re.search(r"^127\.0\.0\.2 .*POST /api/rooms", log, re.M), log[-2000:]
    assert re.search(r"^198\.51\.100\.1 .*POST /api/rooms", log, re.M)
    assert not re.search(r"^203\.0\.113\.\d+ ", log, re.M)


def slow_client(front) -> ssl.SSLSocket:
    raw = socket.create_connection(("127.0.0.1", front.https_port), timeout=30)
    tls = front.context().wrap_socket(raw, server_hostname="127.0.0.1")
    tls.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n".encode())
    return tls


def test_sixty_slow_clients_leave_a_normal_request_answered(front, record_property):
    clients = [slow_client(front) for _ in range(60)]
    stop = threading.Event()
    dripped = {"rounds": 0}

    def drip():
        # One header line every 2 s on every connection, never the blank line.
        while not stop.wait(2):
            for n, client in enumerate(clients):
                try:
                    client.sendall(f"X-Slow-{n}: {dripped['rounds']}\r\n".encode())
                except OSError:
                    pass
            dripped["rounds"] += 1

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        time.sleep(2.5)
        latencies = []
        for _ in range(5):
            started = time.monotonic()
            status, _headers, body = front.request("GET", "/")
            latencies.append(time.monotonic() - started)
            assert status == 200 and b"Mesa" in body
            time.sleep(0.5)
        held = 0
        for client in clients:
            client.setblocking(False)
            try:
                held += client.recv(1) == b""  # closed by nginx
            except (BlockingIOError, ssl.SSLWantReadError):
                pass
            except OSError:
                held += 1
        held = len(clients) - held
    finally:
        stop.set()
        dripper.join(timeout=5)
    # After client_header_timeout (10 s) nginx drops them all.
    time.sleep(9)
    dropped = 0
    for client in clients:
        client.settimeout(3)
        try:
            client.recv(4096)  # b"" once closed, or nginx's 408
            dropped += 1
        except TimeoutError:
            pass  # still open
        except OSError:
            dropped += 1  # reset
        client.close()
    numbers = {
        "slow connections held while measuring": held,
        "normal GET / latency median (s)": round(statistics.median(latencies), 3),
        "normal GET / latency max (s)": round(max(latencies), 3),
        "slow connections dropped by nginx after its header timeout": dropped,
    }
    record_property("slow_clients", numbers)
    print("\nslow clients:", numbers)
    assert held == 60
    assert max(latencies) < 5, numbers
    assert dropped == 60, numbers


def test_static_files_come_from_nginx_not_the_app(front):
    (front.static_root / "probe.css").write_text("body{}")
    status, headers, body = front.request("GET", "/static/probe.css")
    assert status == 200 and body == b"body{}"
    assert "immutable" in dict(headers)["Cache-Control"]
    assert "/static/probe.css" not in front.app_log.read_text()


def test_the_app_sees_https_and_plain_http_is_sent_there(front):
    status, headers, _body = front.request("GET", "/")
    # SITE_URL is https: the app trusts X-Forwarded-Proto from the front (HSTS only over https).
    assert status == 200 and "Strict-Transport-Security" in dict(headers)
    import http.client

    plain = http.client.HTTPConnection("127.0.0.1", front.http_port, timeout=10)
    plain.request("GET", "/mesa/x/", headers={"Host": HOST})
    response = plain.getresponse()
    assert response.status == 301
    assert response.getheader("Location") == f"https://{HOST}:{front.https_port}/mesa/x/"


def test_the_access_logs_mask_every_private_link(front):
    paths = [
        f"/mesa/abcdef12/asiento/{SECRET}/",
        f"/cuenta/correo/confirmar/{SECRET}:1tY:abc/",
        f"/cuenta/correo/baja/{SECRET}/",
        f"/cuenta/clave/nueva/MQ/{SECRET}/",
        f"/cuenta/entrar/?next=%2Fmesa%2Fabcdef12%2Fasiento%2F{SECRET}%2F",
    ]
    for path in paths:
        status, _headers, _body = front.request(
            "GET", path, headers={"Referer": f"https://{HOST}{path}"}
        )
        assert status < 500, path
    time.sleep(0.5)
    nginx_log = front.access_log.read_text()
    app_log = front.app_log.read_text()
    assert SECRET not in nginx_log
    assert SECRET not in app_log
    for masked in (
        "/mesa/abcdef12/asiento/***/",
        "/cuenta/correo/baja/***/",
        "/cuenta/clave/nueva/***/",
    ):
        assert masked in nginx_log, nginx_log[-3000:]
        assert masked in app_log, app_log[-3000:]
    assert "%2Fasiento%2F***%2F" in nginx_log


def test_the_long_poll_outlasts_nothing_in_the_front(front):
    # The board's state request is held up to 45 s on uvicorn (games/web/live/)
    # and 25 s on gunicorn (games/web/longpoll.py): the front's read timeout must
    # be above both, and below gunicorn's own (config/gunicorn.conf.py).
    import runpy

    from games.web import longpoll
    from games.web.live import waits

    site = (front.folder / "mesa.conf").read_text()
    (seconds,) = re.findall(r"proxy_read_timeout (\d+)s;", site)
    gunicorn_timeout = runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))["timeout"]
    assert max(waits.WAIT_SECONDS, longpoll.WAIT_SECONDS) < int(seconds) < gunicorn_timeout
    for directive in ("client_header_timeout", "client_body_timeout", "send_timeout"):
        assert re.search(rf"{directive} \d+s;", site), directive


def test_without_the_front_the_same_slow_clients_starve_gunicorn(front, record_property):
    # Why the front exists: gunicorn's threads wait on slow headers themselves.
    # Straight to its socket, 60 slow clients leave no thread for a real request.
    sock_path = str(front.folder / "gunicorn.sock")
    clients = []
    for _ in range(60):
        client = socket.socket(socket.AF_UNIX)
        client.connect(sock_path)
        client.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n".encode())
        clients.append(client)
    try:
        time.sleep(1)
        probe = socket.socket(socket.AF_UNIX)
        probe.settimeout(5)
        probe.connect(sock_path)
        started = time.monotonic()
        probe.sendall(
            f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode()
        )
        try:
            answered = probe.recv(64)
        except TimeoutError:
            answered = b""
        waited = round(time.monotonic() - started, 2)
        probe.close()
    finally:
        for client in clients:
            client.close()
    record_property("direct_to_gunicorn", {"answered": bool(answered), "waited_s": waited})
    print("\ndirect to gunicorn:", {"answered": answered[:15], "waited_s": waited})
    assert answered == b"", "gunicorn answered despite 60 slow clients: the front's reason changed"


def test_a_long_poll_is_held_its_whole_25_seconds_through_the_front(front):
    status, headers, _body = post_room(front, forwarded_for="198.51.100.50")
    assert status == 201
    slug = dict(headers)["Location"].strip("/").split("/")[-1]
    status, _headers, body = front.request("GET", f"/api/rooms/{slug}/")
    version = json.loads(body)["version"]

    started = time.monotonic()
    status, _headers, body = front.request("GET", f"/api/rooms/{slug}/?wait={version}", timeout=60)
    held = time.monotonic() - started

    # Nobody moved: the app answers the unchanged state after its wait, and
    # the front (proxy_read_timeout) did not cut it short with a 504. This
    # front runs no uvicorn: the wait went to gunicorn, mesa_live's backup.
    assert status == 200, body[:200]
    assert json.loads(body)["version"] == version
    assert 24 < held < 35


def test_a_header_longer_than_the_buffer_a_board_keeps_is_still_answered(front):
    """The template keeps 2 KB of header a waiting board (its connection holds it
    while it waits); a longer header, a browser's with many cookies, borrows one
    of the large buffers and is answered as any other."""
    status, _headers, body = post_room(front)
    assert status == 201
    slug = json.loads(body)["room"]["slug"]
    padding = "x" * 3000  # past client_header_buffer_size, well within 16k
    headers = {"Cookie": f"other={padding}", "Accept-Language": "es"}
    status, _headers, body = front.request("GET", f"/api/rooms/{slug}/", headers=headers)
    assert status == 200 and json.loads(body)["room"]["slug"] == slug
