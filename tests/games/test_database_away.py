"""The database away is a clear 503 (games.web.http_errors).

Every query fails here as it does with PostgreSQL stopped, restarting or
terminating the backend: Django's OperationalError from the cursor. The
answer is 503 with Retry-After, JSON in the player's language under /api/,
templates/503.html elsewhere, one log line however many requests, and no
traceback. A connection lost during COMMIT leaves the outcome unknown: the
answer does not say the move failed, and the state read again shows it kept.
"""

import logging
import socket
from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.db.backends.utils import CursorWrapper
from django.test import Client, override_settings

from config.settings import base
from tests.helpers import action_url, bind, current_match, first_legal_play, post_json, state_url

REFUSED = 'connection to server at "127.0.0.1", port 5432 failed: Connection refused'


def refuse(self, *args, **kwargs):
    raise OperationalError(REFUSED)


@contextmanager
def database_away():
    """Within it every query raises, as with the database stopped."""
    with (
        mock.patch.object(CursorWrapper, "execute", refuse),
        mock.patch.object(CursorWrapper, "executemany", refuse),
    ):
        yield


def request_lines(caplog):
    return [r for r in caplog.records if r.name == "django.request"]


@pytest.mark.django_db
def test_the_api_answers_503_in_json_with_retry_after_in_the_players_language(room, caplog):
    with database_away(), caplog.at_level(logging.INFO):
        response = Client(HTTP_ACCEPT_LANGUAGE="en").get(state_url(room))
    assert response.status_code == 503
    assert response["Retry-After"] == str(base.UNAVAILABLE_RETRY_AFTER)
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == "unavailable"
    assert error["message"].startswith("We cannot reach the games right now.")
    assert "failed" not in error["message"]
    assert request_lines(caplog) == []  # no "Service Unavailable" line with a traceback


@pytest.mark.django_db
def test_a_move_posted_with_the_database_away_is_a_503_not_a_500(room, alice):
    bind(alice, room)
    play = first_legal_play(room, 0)
    with database_away():
        response = post_json(
            alice.client,
            action_url(room, "play"),
            {"version": 1, "play": play},
            HTTP_ACCEPT_LANGUAGE="es",
        )
    assert response.status_code == 503
    assert response.json()["error"]["message"].startswith("No podemos llegar a las partidas")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "title"), [("es", "Volvemos enseguida"), ("en", "Back in a moment")]
)
def test_a_page_answers_a_short_503_page(room, language, title):
    with database_away():
        response = Client(HTTP_ACCEPT_LANGUAGE=language).get(f"/mesa/{room.slug}/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(base.UNAVAILABLE_RETRY_AFTER)
    assert response["Content-Type"].startswith("text/html")
    assert response["Content-Language"] == language
    page = response.content.decode()
    assert f"<h1>{title}</h1>" in page and f'lang="{language}"' in page


@pytest.mark.django_db
def test_many_requests_with_the_database_away_log_one_line_and_no_traceback(room, caplog):
    with database_away(), caplog.at_level(logging.INFO):
        statuses = {Client().get(state_url(room)).status_code for _ in range(20)}
        statuses |= {Client().get(f"/mesa/{room.slug}/").status_code for _ in range(5)}
    assert statuses == {503}
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in lines] == ["games.web.http_errors"]
    assert lines[0].exc_info is None and "Connection refused" in lines[0].getMessage()


@pytest.mark.django_db
def test_readyz_says_the_database_is_failing():
    with database_away():
        response = Client().get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"]["status"] == "failing"


class BrokenConnectionInAMiddleware:
    """A middleware whose query finds the connection closed (Django's handler500 path)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise InterfaceError("connection already closed")


@pytest.mark.django_db
def test_a_database_error_raised_in_a_middleware_is_a_503_too(caplog):
    middleware = [*base.MIDDLEWARE, "tests.games.test_database_away.BrokenConnectionInAMiddleware"]
    with override_settings(MIDDLEWARE=middleware), caplog.at_level(logging.INFO):
        # (the test client would re-raise what reached Django's handler500)
        # (an API URL the whole stack serves: the state GET skips the middleware
        # after games.web.lean's, this one included)
        api = Client(raise_request_exception=False).get("/api/rooms/abc/steps")
        page = Client(raise_request_exception=False).get("/reglas/")
    assert (api.status_code, page.status_code) == (503, 503)
    assert api.json()["error"]["code"] == "unavailable"
    assert "Retry-After" in page
    assert request_lines(caplog) == []


@pytest.mark.django_db
def test_other_errors_are_still_500s_with_their_traceback(room, monkeypatch, caplog):
    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("games.selectors.board.room_state_and_until", boom)
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.INFO):
        response = client.get(state_url(room))
    assert response.status_code == 500
    assert [r.exc_info is not None for r in request_lines(caplog)] == [True]


@pytest.mark.django_db
def test_a_move_saved_before_the_database_went_away_is_answered_as_saved(room, alice, monkeypatch):
    bind(alice, room)
    body = {"version": 1, "play": first_legal_play(room, 0)}

    def state_response(request, slug):  # the read after the commit: the database gone
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr("games.web.api.state_response", state_response)
    response = post_json(alice.client, action_url(room, "play"), body, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 503
    assert response["Retry-After"] == str(base.UNAVAILABLE_RETRY_AFTER)
    assert response.json()["error"] == {
        "code": "saved_unavailable",
        "message": "Your move was saved, but we cannot show you the game right now. "
        "The board will show it in a few seconds.",
    }
    assert current_match(room).version == 2


@pytest.mark.django_db(transaction=True)
def test_a_commit_whose_answer_was_lost_is_not_called_failed_and_the_state_shows_it(
    room, alice, monkeypatch
):
    bind(alice, room)
    body = {"version": 1, "play": first_legal_play(room, 0)}
    commit = connection.commit

    def commit_then_lose_the_answer():
        commit()  # PostgreSQL has it...
        raise OperationalError("server closed the connection unexpectedly")  # ...we never heard

    with monkeypatch.context() as patch:
        patch.setattr(connection, "commit", commit_then_lose_the_answer)
        response = post_json(alice.client, action_url(room, "play"), body)
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"

    # What the board does next: it reads the state again. The move is there.
    assert alice.client.get(state_url(room)).json()["version"] == 2
    assert current_match(room).version == 2
    # Sending it again cannot play it twice: its version is stale now.
    again = post_json(alice.client, action_url(room, "play"), body)
    assert again.status_code == 409 and again.json()["error"]["code"] == "stale_version"


@pytest.mark.django_db(transaction=True)
def test_a_stopped_database_is_a_503_and_the_first_request_once_it_is_back_connects(room):
    client = Client()
    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "postgresql":
        with socket.socket() as probe:  # a port nothing listens on: refused, as when stopped
            probe.bind(("127.0.0.1", 0))
            connection.settings_dict["PORT"] = probe.getsockname()[1]
    else:
        connection.settings_dict["NAME"] = "/nonexistent/mesa.sqlite3"  # cannot be opened
    try:
        away = client.get(state_url(room))
        page = client.get(f"/mesa/{room.slug}/")
    finally:
        connection.close()
        connection.settings_dict.update(saved)
    assert (away.status_code, page.status_code) == (503, 503)
    assert away.json()["error"]["code"] == "unavailable"
    assert client.get(state_url(room)).status_code == 200  # connects again by itself
