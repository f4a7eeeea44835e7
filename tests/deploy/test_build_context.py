"""The container image's build context, computed from .dockerignore itself by
Docker's matching rules (the `docker` package's, ported from moby's
fileutils): no secret, history, environment or local data goes into the
image, and everything the site runs does.

The image itself is not built here: there is no Docker engine in CI
(docs/DEPLOY.md says so). The context is computed over a copy of the
repository's tracked files (empty) plus what an operator's checkout holds
beside them, with the shipped .dockerignore copied unchanged.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from docker.utils.build import exclude_paths

from tests.helpers import missing

ROOT = Path(__file__).resolve().parent.parent.parent

# What a checkout that has run the site, its tests and `docker compose`
# holds beside the repository's own files.
SECRETS = [
    "deploy/.env",
    ".env",
    ".env.production",
    "deploy/tls/privkey.pem",
    "deploy/tls/server.key",
]
LOCAL_STATE = [
    ".git/config",
    ".git/objects/pack/pack-1.pack",
    ".venv/bin/python",
    ".venv-engine/bin/python",
    "db.sqlite3",
    "db.sqlite3-journal",
    "db.sqlite3-wal",
    ".celery/out/1.msg",
    "celerybeat-schedule",
    "staticfiles/staticfiles.json",
    "node_modules/playwright/index.js",
    "tests/js/node_modules/x/index.js",
    "games/__pycache__/models.cpython-311.pyc",
    "games/engine/__pycache__/board.cpython-311.pyc",
    ".pytest_cache/v/cache/lastfailed",
    ".ruff_cache/CACHEDIR.TAG",
    ".mypy_cache/3.11/games.data.json",
    ".hypothesis/examples/x",
    "test-artifacts/trace.zip",
    "bench/results/load-20261204.json",
]
# What the image runs: every tracked file of these, plus these files.
RUN = ["config", "games", "accounts", "templates", "static", "locale"]
RUN_FILES = ["manage.py", "requirements.txt", "deploy/Dockerfile"]


def tracked_files() -> list[str]:
    if not shutil.which("git"):
        missing("git is not installed (the repository's file list)")
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listing.returncode != 0:
        missing(f"not a git checkout: {listing.stderr.decode().strip()}")
    return [name for name in listing.stdout.decode().split("\0") if name]


def compose_build() -> tuple[Path, str]:
    """The context folder and Dockerfile deploy/compose.yaml builds with."""
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    build = compose["x-mesa"]["build"]
    return (ROOT / "deploy" / build["context"]).resolve(), build["dockerfile"]


def ignore_patterns(path: Path) -> list[str]:
    """The patterns as the docker package's APIClient.build reads the file."""
    lines = [line.strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def context(tmp_path_factory) -> set[str]:
    folder, dockerfile = compose_build()
    assert folder == ROOT
    checkout = tmp_path_factory.mktemp("checkout")
    for name in [*tracked_files(), *SECRETS, *LOCAL_STATE]:
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).touch()
    shutil.copyfile(ROOT / ".dockerignore", checkout / ".dockerignore")
    patterns = ignore_patterns(checkout / ".dockerignore")
    sent = exclude_paths(str(checkout), patterns, dockerfile=dockerfile)
    return {path for path in sent if (checkout / path).is_file()}


def test_no_secret_goes_into_the_image(context):
    assert not context & set(SECRETS)


def test_no_history_environment_cache_or_local_data_goes_into_the_image(context):
    assert not context & set(LOCAL_STATE)
    assert not [path for path in context if path.startswith(("tests/", "docs/", ".git/"))]


def test_everything_the_site_runs_goes_into_the_image(context):
    needed = {name for name in tracked_files() if name.split("/")[0] in RUN or name in RUN_FILES}
    assert needed - context == set()
    assert "locale/en/LC_MESSAGES/django.mo" in context
