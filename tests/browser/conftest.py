"""Browser tests: Playwright drives Debian's Chromium against the live server.

Each test gets fresh browser contexts (one per person at the table) whose pages
fail the test on any JavaScript error: an uncaught exception or a console error.
Dice come from the shared `dice` fixture (tests/conftest.py): the live server
runs in a thread of this process, so the scripted source reaches it too.
"""

import os
from pathlib import Path

import pytest

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


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
