"""The boards' waits in nginx (nchan), through the front rendered from
deploy/nginx/mesa.conf.template: the app publishes a room's pulse after its
commit, a board waiting on /live/rooms/<slug> hears it, a board that sends
back its last message's id is held until the next, and nobody outside
publishes. static/js/channel.js is the board's side; tests/js its own tests.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.request

from .conftest import HOST
from .test_nginx import csrf, post_room


class Wait(threading.Thread):
    """One board's wait on its room's channel, in the background."""

    def __init__(self, front, slug: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(daemon=True)
        self.front, self.slug, self.headers = front, slug, headers or {}
        self.answer: tuple[int, dict[str, str], bytes] | None = None
        self.start()

    def run(self) -> None:
        status, headers, body = self.front.request(
            "GET",
            f"/live/rooms/{self.slug}",
            headers={"Accept": "text/plain", **self.headers},
            timeout=120,
        )
        self.answer = (status, {name.lower(): value for name, value in headers}, body)

    def heard(self, seconds: float) -> tuple[int, dict[str, str], bytes] | None:
        self.join(seconds)
        return self.answer


def publish(front, slug: str, text: str) -> int:
    """What games.services.live does: POST the pulse to the node's publisher."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{front.publish_port}/rooms/{slug}", data=text.encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        return answer.status


def new_room(front, address: str) -> str:
    status, headers, body = post_room(front, forwarded_for=address)
    assert status == 201, body
    return dict(headers)["Location"].strip("/").split("/")[-1]


def join(front, slug: str, address: str) -> None:
    token = csrf(front, forwarded_for=address)
    status, _headers, body = front.request(
        "POST",
        f"/api/rooms/{slug}/join",
        headers={
            "Content-Type": "application/json",
            "Cookie": f"csrftoken={token}",
            "X-CSRFToken": token,
            "Origin": f"https://{HOST}",
            "Referer": f"https://{HOST}/",
            "X-Forwarded-For": address,
        },
        body=json.dumps({"nickname": "bea"}),
    )
    assert status in (200, 201), body


def test_a_board_hears_the_apps_publish_and_then_waits_for_the_next(front):
    slug = new_room(front, "198.51.100.140")
    waiting = Wait(front, slug)
    assert waiting.heard(1.0) is None  # nothing published yet: held by nginx
    join(front, slug, "198.51.100.141")  # the game starts: the app publishes after its commit
    answer = waiting.heard(10.0)
    assert answer is not None, "the board never heard the join"
    status, headers, body = answer
    assert status == 200
    version, *_rest = body.decode().split(":")
    assert int(version) >= 1  # the pulse of the started game
    assert headers["cache-control"] == "no-store"
    # Sent back, the message's id holds the board until the next message.
    again = Wait(
        front,
        slug,
        {"If-Modified-Since": headers["last-modified"], "If-None-Match": headers["etag"]},
    )
    assert again.heard(1.5) is None
    assert publish(front, slug, "99:0:1:0:99") in (201, 202)
    status, _headers, body = again.heard(10.0) or (0, {}, b"")
    assert (status, body) == (200, b"99:0:1:0:99")


def test_a_board_without_an_id_reads_the_newest_pulse_at_once(front):
    slug = new_room(front, "198.51.100.142")
    publish(front, slug, "1:0:1:0:1")
    publish(front, slug, "2:0:1:0:2")
    started = time.monotonic()
    status, _headers, body = Wait(front, slug).heard(10.0) or (0, {}, b"")
    assert status == 200 and body in (b"1:0:1:0:1", b"2:0:1:0:2")
    assert time.monotonic() - started < 5


def test_nobody_publishes_through_the_site(front):
    slug = new_room(front, "198.51.100.143")
    waiting = Wait(front, slug)
    assert waiting.heard(0.5) is None
    # The subscriber location takes no message...
    status, _headers, _body = front.request("POST", f"/live/rooms/{slug}", body=b"7:0:1:0:7")
    assert status >= 400
    # ...and the publisher's path on the site's port is the app's, which has no such page.
    status, _headers, _body = front.request("POST", f"/rooms/{slug}", body=b"7:0:1:0:7")
    assert status in (403, 404)
    assert waiting.heard(1.0) is None  # nothing reached the waiting board


def test_the_publisher_listens_only_where_the_template_says(front):
    refused = False
    try:
        connection = http.client.HTTPConnection("127.0.0.2", front.publish_port, timeout=3)
        connection.request("POST", "/rooms/abc", body=b"1:0:1:0:1")
        refused = connection.getresponse().status == 403
    except OSError:
        refused = True  # bound to 127.0.0.1 alone
    assert refused
