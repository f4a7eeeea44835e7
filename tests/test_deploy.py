"""The production shape: `manage.py check --deploy` is clean under production variables."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

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
