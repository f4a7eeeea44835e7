"""The production shape: `manage.py check --deploy` is clean under production variables."""

import ast
import atexit
import os
import re
import runpy
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A run with DEBUG on makes a Web Push key pair (config/vapid.py): never in the checkout.
SCRATCH = Path(tempfile.mkdtemp(prefix="mesa-deploy-tests-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def production_env(**overrides):
    # Production variables only: nothing inherited from the test run (such as the
    # DJANGO_ALLOW_ASYNC_UNSAFE the browser tests set) may leak into the check.
    # A None value leaves that variable out.
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        SITE_URL="https://mesa.example.com",
        SECRET_KEY=secrets.token_urlsafe(64),
        DEBUG="false",
        ALLOWED_HOSTS="mesa.example.com",
        # The production services of docs/DEPLOY.md (nothing connects to them
        # unless a test says so): config/checks.py refuses the embedded ones.
        DATABASE_URL="postgres://mesa:secret@127.0.0.1:5432/mesa",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        CACHE_URL="redis://127.0.0.1:6379/1",
        TRUSTED_PROXIES="127.0.0.1",
        VAPID_KEY_FILE=str(SCRATCH / "vapid.json"),
    )
    env.update(overrides)
    return {key: value for key, value in env.items() if value is not None}


def run(args, **overrides):
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=production_env(**overrides),
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_deploy_check(**overrides):
    return run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **overrides)


def django_script(code, **overrides):
    return run(["-c", "import django; django.setup()\n" + code], **overrides)


def test_the_deploy_check_is_clean_with_production_variables():
    result = run_deploy_check()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_check_catches_a_plain_http_site_with_debug_on():
    # Proves the check above is not vacuous: the same command fails on a dev-like setup.
    result = run_deploy_check(SITE_URL="http://mesa.example.com", DEBUG="true")
    assert result.returncode != 0
    assert "security.W" in result.stdout + result.stderr


def test_without_a_secret_key_production_refuses_to_start():
    result = run(["manage.py", "check"], SECRET_KEY=None)
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY is not set" in result.stderr
    result = run(["manage.py", "check"], SECRET_KEY="")
    assert "SECRET_KEY is not set" in result.stderr


def test_a_development_run_starts_without_a_key():
    # `make run` turns DEBUG on and needs no key; the suite's settings bring their own.
    assert run(["manage.py", "check"], SECRET_KEY=None, DEBUG="true").returncode == 0
    result = run(
        ["manage.py", "check"],
        SECRET_KEY=None,
        DJANGO_SETTINGS_MODULE="config.settings.test",
    )
    assert result.returncode == 0, result.stderr


def test_without_cache_url_the_rate_limits_count_in_the_database_for_every_worker(tmp_path):
    # Three processes, like three gunicorn workers: the failures the first two
    # count add up in the third, so a guesser cannot spread attempts over workers.
    database = {"DATABASE_URL": f"sqlite:///{tmp_path / 'mesa.sqlite3'}", "CACHE_URL": None}
    assert run(["manage.py", "createcachetable"], **database).returncode == 0
    fail_ten = (
        "from accounts import ratelimit\n"
        "for _ in range(10): ratelimit.login_failed(address='198.51.100.1')\n"
    )
    for _worker in range(2):
        result = django_script(fail_ten, **database)
        assert result.returncode == 0, result.stderr
    result = django_script(
        "from django.conf import settings\n"
        "from accounts import ratelimit\n"
        "print(settings.CACHES['default']['BACKEND'])\n"
        "print(ratelimit.address_is_blocked('198.51.100.1'))\n",
        **database,
    )
    assert result.stdout.split() == ["django.core.cache.backends.db.DatabaseCache", "True"]


def test_a_request_error_reaches_stderr_with_its_traceback():
    # What gunicorn collects (config/gunicorn.conf.py): Django's 500s log to stderr.
    result = django_script(
        "import logging\n"
        "try:\n"
        "    raise RuntimeError('the bug')\n"
        "except RuntimeError:\n"
        "    log = logging.getLogger('django.request')\n"
        "    log.error('Internal Server Error: /x', exc_info=True)\n"
    )
    assert "ERROR django.request: Internal Server Error: /x" in result.stderr
    assert "Traceback" in result.stderr and "RuntimeError: the bug" in result.stderr


def test_the_gunicorn_config_sends_errors_and_output_to_the_log():
    namespace = runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))
    assert namespace["errorlog"] == "-"
    assert namespace["capture_output"] is True
    assert namespace["wsgi_app"] == "config.wsgi"
    # The board's long poll holds a thread up to 25 s (games/web/longpoll.py).
    assert namespace["worker_class"] == "gthread"
    assert namespace["timeout"] > 25
    assert namespace["threads"] > 16  # above LONG_POLL_WAITERS' default


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
    from games.engine import MatchRules

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
    imports = re.findall(r'^import [^;]*? from "(\.[^"]+)";', main.read_text(), re.M | re.S)
    assert imports and all(re.search(r"\.[0-9a-f]{12}\.js$", name) for name in imports), imports
    # A JSDoc type import is a comment: left as written, while the statements
    # after it (in render.js an import and an export of one module) are hashed once.
    (render,) = (tmp_path / "js" / "board").glob("render.*.js")
    text = render.read_text()
    assert '/** @import { DrawnView, PieceStyle, SpotKey } from "../types.js" */' in text
    assert re.search(
        r'^export \{ pieceIcon, styleOf \} from "\./pieces\.[0-9a-f]{12}\.js";', text, re.M
    )


def test_the_rate_limit_scale_multiplies_every_count_and_keeps_the_windows():
    code = "from django.conf import settings; print(settings.MESA_RATE_LIMITS)"
    plain = django_script(code)
    club = django_script(code, MESA_RATE_LIMIT_SCALE="3")
    assert plain.returncode == club.returncode == 0, plain.stderr + club.stderr
    limits, scaled = ast.literal_eval(plain.stdout), ast.literal_eval(club.stdout)
    assert limits["create"]["address"] == (30, 600)
    assert scaled == {
        kind: {who: (count * 3, seconds) for who, (count, seconds) in by_who.items()}
        for kind, by_who in limits.items()
    }
