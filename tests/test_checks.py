"""config/checks.py: with DEBUG off the embedded defaults are errors unless the
operator says so, and a missing cache table stops the start (check and gunicorn)."""

import subprocess
import sys
from pathlib import Path

from tests.test_deploy import ROOT, production_env, run

GUNICORN = Path(sys.executable).with_name("gunicorn")
EMBEDDED = {"DATABASE_URL": None, "CELERY_BROKER_URL": None, "CACHE_URL": None}


def output(result):
    return result.stdout + result.stderr


def test_with_debug_off_sqlite_the_filesystem_broker_and_the_database_cache_are_refused():
    result = run(["manage.py", "check"], **EMBEDDED)
    assert result.returncode != 0
    for code in ("mesa.E001", "mesa.E002", "mesa.E003"):
        assert code in output(result), output(result)


def test_a_per_process_cache_is_refused_too():
    result = run(["manage.py", "check"], CACHE_URL="locmemcache://")
    assert result.returncode != 0 and "mesa.E003" in output(result)


def test_sessions_in_the_cache_alone_are_a_warning_the_database_ones_are_fine():
    cached = run(
        ["manage.py", "check", "--fail-level", "WARNING"],
        SESSION_ENGINE="django.contrib.sessions.backends.cache",
    )
    assert cached.returncode != 0 and "mesa.W020" in output(cached)
    both = run(
        ["manage.py", "check", "--fail-level", "WARNING"],
        SESSION_ENGINE="django.contrib.sessions.backends.cached_db",
    )
    assert both.returncode == 0, output(both)


def test_the_operator_may_say_they_mean_the_embedded_defaults():
    result = run(["manage.py", "check"], MESA_ALLOW_EMBEDDED="1", **EMBEDDED)
    assert result.returncode == 0, output(result)


def test_a_development_run_needs_no_permission():
    result = run(["manage.py", "check"], DEBUG="true", **EMBEDDED)
    assert result.returncode == 0, output(result)


def test_a_missing_cache_table_is_an_error_of_the_checks_until_it_is_created(tmp_path):
    site = {**EMBEDDED, "MESA_ALLOW_EMBEDDED": "1"}
    site["DATABASE_URL"] = f"sqlite:///{tmp_path / 'mesa.sqlite3'}"
    missing = run(["manage.py", "check", "--database", "default"], **site)
    assert missing.returncode != 0
    assert "mesa.E010" in output(missing) and "createcachetable" in output(missing)

    assert run(["manage.py", "createcachetable"], **site).returncode == 0
    present = run(["manage.py", "check", "--database", "default"], **site)
    assert present.returncode == 0, output(present)


def test_gunicorn_refuses_to_start_without_the_cache_table(tmp_path):
    site = {**EMBEDDED, "MESA_ALLOW_EMBEDDED": "1"}
    site["DATABASE_URL"] = f"sqlite:///{tmp_path / 'mesa.sqlite3'}"
    result = subprocess.run(
        [str(GUNICORN), "-c", "config/gunicorn.conf.py", "--bind", f"unix:{tmp_path / 'g.sock'}"],
        cwd=ROOT,
        env=production_env(**site),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "mesa.E010" in output(result)
    assert not (tmp_path / "g.sock").exists()
