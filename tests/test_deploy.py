"""The production shape: `manage.py check --deploy` is clean under production variables."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_deploy_check(**overrides):
    # Production variables only: nothing inherited from the test run (such as the
    # DJANGO_ALLOW_ASYNC_UNSAFE the browser tests set) may leak into the check.
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        SITE_URL="https://mesa.example.com",
        SECRET_KEY=secrets.token_urlsafe(64),
        DEBUG="false",
        ALLOWED_HOSTS="mesa.example.com",
    )
    env.update(overrides)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_deploy_check_is_clean_with_production_variables():
    result = run_deploy_check()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_check_catches_a_plain_http_site_with_debug_on():
    # Proves the check above is not vacuous: the same command fails on a dev-like setup.
    result = run_deploy_check(SITE_URL="http://mesa.example.com", DEBUG="true")
    assert result.returncode != 0
    assert "security.W" in result.stdout + result.stderr


@pytest.mark.django_db
def test_every_page_finds_its_hashed_static_files_after_collectstatic(tmp_path, settings):
    # Production serves hashed names from the manifest; a template naming a
    # file that does not exist would be a 500 there and nowhere else.
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "config.storage.StaticFilesStorage"},
    }
    settings.DEBUG = False
    call_command("collectstatic", interactive=False, verbosity=0)

    from games import services
    from games.engine.match import MatchRules

    host = services.room_create(rules=MatchRules(), nickname="alice")
    guest = services.room_join(room=host.room, nickname="bob")
    browser = Client()
    browser.get(reverse("games:seat_link", args=[host.room.slug, host.token]))
    pages = [
        reverse("games:home"),
        reverse("games:rules"),
        reverse("games:my_rooms"),
        reverse("games:room", args=[host.room.slug]),
    ]
    for url in pages:
        response = browser.get(url)
        assert response.status_code == 200, url
        assert re.search(r"/static/css/site\.[0-9a-f]{12}\.css", response.content.decode()), url
    assert guest.room == host.room
    # The board's modules import each other by their hashed names too, so a
    # browser never mixes modules of two deploys.
    (main,) = (tmp_path / "js" / "board").glob("main.*.js")
    imports = re.findall(r'from "(\.[^"]+)"', main.read_text())
    assert imports and all(re.search(r"\.[0-9a-f]{12}\.js$", name) for name in imports), imports
