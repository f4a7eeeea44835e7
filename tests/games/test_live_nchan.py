"""The pulse POSTed to nginx's nchan publisher after every commit, and the
board told where to wait (games.services.live, games.templatetags.board_words).

A small HTTP server in this process stands in for nginx's publisher here;
tests/deploy/test_nginx_channels.py runs the real one from the template.
"""

import json
import threading
import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import transaction

from games import services
from games.selectors.pulse import room_pulse
from games.services import live
from tests.helpers import action_url, bind, first_legal_play, post_json, version_of


class Publisher(ThreadingHTTPServer):
    """What an nchan publisher is asked: (path, body), and how it answers."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.posts: list[tuple[str, str]] = []
        self.status = 202
        self.delay = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/rooms/"


class Handler(BaseHTTPRequestHandler):
    server: Publisher

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        time.sleep(self.server.delay)
        self.server.posts.append((self.path, body))
        self.send_response(self.server.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def publisher(settings) -> Iterator[Publisher]:
    server = Publisher()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.LIVE_REDIS_URL = ""  # only the channel here
    settings.LIVE_NCHAN_URL = [server.url]
    live.reset()
    yield server
    live.reset()
    server.shutdown()
    server.server_close()


def play(room, alice):
    return services.game_play(
        seat=alice.seat, version=version_of(room), play=first_legal_play(room, 0)
    )


def pulse_text(room) -> str:
    found = room_pulse(room_id=room.pk)
    assert found is not None
    return found[1].encode()


@pytest.mark.django_db(transaction=True)
def test_a_committed_move_posts_the_rooms_pulse_to_its_channel_once(room, alice, publisher):
    services.act_with_message(seat=alice.seat, text="suerte", act=lambda: play(room, alice))
    assert publisher.posts == [(f"/rooms/{room.slug}", pulse_text(room))]


@pytest.mark.django_db(transaction=True)
def test_an_action_posted_to_the_api_reaches_the_channel(room, alice, publisher):
    bind(alice, room)
    response = post_json(
        alice.client,
        action_url(room, "play"),
        {"version": version_of(room), "play": first_legal_play(room, 0)},
    )
    assert response.status_code == 200, response.content
    assert publisher.posts == [(f"/rooms/{room.slug}", pulse_text(room))]


@pytest.mark.django_db(transaction=True)
def test_the_publisher_is_reached_directly_whatever_proxy_the_environment_names(
    room, alice, publisher, monkeypatch
):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    play(room, alice)
    assert publisher.posts == [(f"/rooms/{room.slug}", pulse_text(room))]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_move_posts_nothing(room, alice, publisher):
    with pytest.raises(RuntimeError), transaction.atomic():
        play(room, alice)
        raise RuntimeError("the request failed after the move")
    assert publisher.posts == []


@pytest.mark.django_db(transaction=True)
def test_a_publisher_that_fails_loses_no_move_and_is_left_alone_for_a_while(
    room, alice, publisher, caplog
):
    publisher.status = 503  # nchan without its Redis
    before = version_of(room)
    play(room, alice)
    assert version_of(room) == before + 1  # the move stands
    assert len(publisher.posts) == 1
    assert "nchan publish of room" in caplog.text
    live.publish_rooms({room.pk})  # within the pause: not asked again
    assert len(publisher.posts) == 1


@pytest.mark.django_db(transaction=True)
def test_every_nodes_publisher_hears_it_and_one_away_keeps_none_from_the_others(
    room, alice, publisher, settings
):
    other = Publisher()
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        settings.LIVE_NCHAN_URL = [publisher.url, "http://127.0.0.1:9/rooms/", other.url]
        play(room, alice)  # the node in the middle refuses: the others still hear it
        sent = (f"/rooms/{room.slug}", pulse_text(room))
        assert publisher.posts == [sent] and other.posts == [sent]
    finally:
        other.shutdown()
        other.server_close()


@pytest.mark.django_db(transaction=True)
def test_a_publisher_that_hangs_costs_a_move_its_timeout_and_no_more(
    room, alice, publisher, settings
):
    settings.LIVE_REDIS_TIMEOUT = 0.2
    publisher.delay = 3.0
    before = version_of(room)
    started = time.monotonic()
    play(room, alice)
    assert time.monotonic() - started < 2.0
    assert version_of(room) == before + 1


@pytest.mark.django_db(transaction=True)
def test_nothing_is_posted_without_a_publisher(room, alice, settings):
    settings.LIVE_NCHAN_URL = []
    settings.LIVE_REDIS_URL = ""
    live.reset()
    assert live._announce(room.slug, room_pulse(room_id=room.pk)[1]) == 0


def board_config(client, room) -> dict:
    page = client.get(f"/mesa/{room.slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    start = html.index('<script id="board-config" type="application/json">')
    body = html[start:].split(">", 1)[1].split("</script>", 1)[0]
    return json.loads(body)


@pytest.mark.django_db
def test_the_board_waits_on_its_rooms_channel_only_where_nginx_holds_the_waits(
    client, room, settings
):
    settings.LIVE_NCHAN_URL = []
    config = board_config(client, room)
    assert config["channelUrl"] is None
    assert config["stateUrl"] == f"/api/rooms/{room.slug}/"
    settings.LIVE_NCHAN_URL = ["http://127.0.0.1:8090/rooms/"]
    config = board_config(client, room)
    assert config["channelUrl"] == f"/live/rooms/{room.slug}"
    since = parsedate_to_datetime(config["channelSince"]).timestamp()
    assert time.time() - 3 < since < time.time()  # a second before the page
