"""Browser tests: Playwright drives Debian's Chromium against the live server.

Each test gets fresh browser contexts (one per person at the table) whose pages
fail the test on any JavaScript error: an uncaught exception or a console error.
Dice come from the shared `dice` fixture (tests/conftest.py): the live server
runs in a thread of this process, so the scripted source reaches it too.
"""

import os
import threading
from pathlib import Path

import pytest
from django.core.signals import request_finished, request_started

from tests.helpers import missing, on_ci

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(config, items):
    # On CI a missing Chromium fails the browser tests (the `browser` fixture) instead.
    if CHROMIUM.exists() or on_ci():
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is missing: install Debian's chromium (apt)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def browser():
    # Playwright's sync API keeps an event loop in this thread; the ORM calls
    # the tests make between browser steps are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import expect, sync_playwright

    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing: install Debian's chromium (apt)")

    # What the other side did reaches a page by polling, which slows down to
    # one look every 20 seconds while nothing happens.
    expect.set_options(timeout=20_000)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class JsErrors(list):
    """Every JavaScript error seen on the pages of one test, while it runs."""

    watching = True

    def note(self, text):
        if self.watching:
            self.append(text)

    def watch(self, page, who):
        page.on("pageerror", lambda error: self.note(f"{who}: {error}"))
        page.on(
            "console",
            lambda message: message.type == "error" and self.note(f"{who}: {message.text}"),
        )
        return page


@pytest.fixture
def js_errors():
    errors = JsErrors()
    yield errors
    assert not errors, "JavaScript errors on the page:\n" + "\n".join(errors)


@pytest.fixture
def open_page(browser, js_errors):
    """open_page(name, url, viewport=, locale=, javascript=) -> a page in a context of its own."""
    contexts = []

    def open_(who, url, viewport=None, locale="es-ES", javascript=True):
        context = browser.new_context(
            viewport=viewport or {"width": 1280, "height": 800},
            locale=locale,
            java_script_enabled=javascript,
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = js_errors.watch(context.new_page(), who)
        page.goto(url)
        return page

    yield open_
    # Closing a page cuts its poll short; that is the test ending, not a page error.
    js_errors.watching = False
    for context in contexts:
        context.close()


@pytest.fixture(autouse=True)
def _server_quiet_before_the_flush(request):
    # Set up after the database (pytest-django's own autouse asks for it), so
    # torn down before its flush, and after the tests' pages have closed.
    yield
    if "live_server" in request.fixturenames:
        let_the_server_finish()


class InFlight:
    """The live server's requests not yet answered (its threads, not the test's)."""

    def __init__(self):
        self.count = 0
        self.changed = threading.Condition()

    def started(self, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            with self.changed:
                self.count += 1

    def finished(self, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            with self.changed:
                self.count -= 1
                self.changed.notify_all()

    def wait_until_none(self, timeout):
        with self.changed:
            return self.changed.wait_for(lambda: self.count <= 0, timeout)


IN_FLIGHT = InFlight()
request_started.connect(IN_FLIGHT.started, dispatch_uid="browser-in-flight-started")
request_finished.connect(IN_FLIGHT.finished, dispatch_uid="browser-in-flight-finished")


def let_the_server_finish(timeout=15):
    """End held long polls and wait for the live server's requests to finish.

    A closed page leaves its held poll running in the server's thread, which
    looks at the database every half second for up to 25 s. Were the test's
    database flushed meanwhile, that request would meet the flush (a TRUNCATE
    waiting on its locks, or a deadlock that fails the teardown) and then
    pytest-django's closed database.
    """
    from games.web import longpoll

    ticking = longpoll.monotonic
    longpoll.monotonic = lambda: float("inf")  # every held wait's deadline has passed
    try:
        with longpoll._news:
            longpoll._news.notify_all()
        assert IN_FLIGHT.wait_until_none(timeout), f"{IN_FLIGHT.count} requests still running"
    finally:
        longpoll.monotonic = ticking


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
