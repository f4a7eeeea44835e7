"""deploy/mesa.env.example, the shipped file itself, read by each program that
reads it in production, and all of them must find the same settings:

- sh: deploy/mesa-manage sources it with `set -a; . file` (Debian's dash);
- systemd: every unit's `EnvironmentFile=`. No systemd manager runs here (a
  container), so systemd's own env-file parser (src/basic/env-file.c, the
  one EnvironmentFile= uses) reads it through a systemd program that runs
  alone and prints what it read: the environment.d generator;
- compose: `env_file: .env` in deploy/compose.yaml. There is no compose here
  (the docker CLI has no compose plugin); Compose v1 read env files with
  python-dotenv's `dotenv_values(..., encoding="utf-8-sig", interpolate=True)`,
  the call used below. Compose v2 (compose-go's dotenv) has the same rules for
  what the file uses: comments, bare values, double quotes;
- django-environ: `environ.Env.read_env`, as config/settings/base.py calls it.
"""

from __future__ import annotations

import shlex
import subprocess
from email.utils import parseaddr
from pathlib import Path

import dotenv
import environ
import pytest

from tests.helpers import missing

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "deploy" / "mesa.env.example"

ENVIRONMENT_D_GENERATOR = "systemd/user-environment-generators/30-systemd-environment-d-generator"


def systemd_environment(path: Path, tmp_path: Path) -> dict[str, str]:
    """The file read by systemd's own env-file parser: the environment.d
    generator runs it on each `*.conf` of $XDG_CONFIG_HOME/environment.d and
    prints the result, quoted for sh. The one difference from EnvironmentFile=
    is that it expands `$VAR` in values; the example has no `$` (see below)."""
    generator = next(
        (Path(lib) / ENVIRONMENT_D_GENERATOR for lib in ("/usr/lib", "/lib")
         if (Path(lib) / ENVIRONMENT_D_GENERATOR).exists()),
        None,
    )  # fmt: skip
    if generator is None:
        missing("systemd is not installed (its environment.d generator)")

    def generated(config: Path) -> dict[str, str]:
        run = subprocess.run(
            [str(generator)],
            env={"XDG_CONFIG_HOME": str(config)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0 and run.stderr == "", run.stderr
        return dict(word.split("=", 1) for word in shlex.split(run.stdout))

    (tmp_path / "with" / "environment.d").mkdir(parents=True)
    (tmp_path / "with" / "environment.d" / "mesa.conf").symlink_to(path)
    # What the machine's own environment.d files give is not the file's.
    own = generated(tmp_path / "without")
    return {
        name: value
        for name, value in generated(tmp_path / "with").items()
        if own.get(name) != value
    }


def sh_environment(path: Path) -> dict[str, str]:
    """What `set -a; . file` exports, as deploy/mesa-manage runs it."""

    def exported(script: str) -> dict[str, str]:
        run = subprocess.run(
            ["env", "-i", "/bin/sh", "-c", script, "sh", str(path)],
            capture_output=True,
            check=False,
        )
        assert run.returncode == 0 and run.stderr == b"", run.stderr.decode()
        pairs = (entry.decode().split("=", 1) for entry in run.stdout.split(b"\0") if entry)
        return dict(pairs)

    # Whatever sh sets by itself (PWD) is not the file's.
    own = exported("exec env -0")
    return {
        name: value
        for name, value in exported('set -a; . "$1"; exec env -0').items()
        if own.get(name) != value
    }


def compose_environment(path: Path) -> dict[str, str | None]:
    return dict(dotenv.dotenv_values(dotenv_path=path, encoding="utf-8-sig", interpolate=True))


def django_environ_environment(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    read: dict[str, str] = {}
    monkeypatch.setattr(environ.Env, "ENVIRON", read)
    environ.Env.read_env(path, overwrite=False)
    return read


def test_every_reader_finds_the_same_settings_in_the_shipped_example(monkeypatch, tmp_path):
    systemd = systemd_environment(EXAMPLE, tmp_path)
    readers = {
        "sh": sh_environment(EXAMPLE),
        "compose": compose_environment(EXAMPLE),
        "django-environ": django_environ_environment(EXAMPLE, monkeypatch),
    }
    for name, found in readers.items():
        assert found == systemd, name
    assert {"SECRET_KEY", "DATABASE_URL", "EMAIL_URL", "DEFAULT_FROM_EMAIL"} <= set(systemd)
    # The sender keeps its display name through every reader.
    assert parseaddr(systemd["DEFAULT_FROM_EMAIL"])[0] == "Mesa"
    # No "$" anywhere: sh, compose and the generator above would expand it,
    # EnvironmentFile= would not.
    assert "$" not in EXAMPLE.read_text()


def test_the_example_is_the_file_the_units_and_mesa_manage_read():
    manage = (ROOT / "deploy" / "mesa-manage").read_text()
    assert ". /etc/mesa/mesa.env;" in manage
    for unit in (ROOT / "deploy" / "systemd").glob("*.service"):
        assert "EnvironmentFile=/etc/mesa/mesa.env\n" in unit.read_text(), unit.name
    assert EXAMPLE.read_text().startswith("# /etc/mesa/mesa.env:")


def test_sh_refuses_the_unquoted_sender_the_example_once_had(tmp_path):
    # The defect this file had: a bare "Name <address>" is a redirection to sh.
    old = tmp_path / "mesa.env"
    old.write_text("DEFAULT_FROM_EMAIL=Mesa <mesa@mesa.example.com>\n")
    with pytest.raises(AssertionError):
        sh_environment(old)
