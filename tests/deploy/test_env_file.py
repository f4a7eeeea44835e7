"""deploy/mesa.env.example, the shipped file itself, read by each program that
reads it in production, and all of them must find the same settings:

- sh: deploy/mesa-manage sources it with `set -a; . file` (Debian's dash);
- systemd: every unit's `EnvironmentFile=`. systemd cannot run here (no
  manager in a container), so `systemd_environment_file` follows its parser
  (src/basic/env-file.c, parse_env_file_internal, then the manager drops
  assignments with invalid names), as systemd.exec(5) documents it;
- compose: `env_file: .env` in deploy/compose.yaml. There is no compose here
  (the docker CLI has no compose plugin); Compose v1 read env files with
  python-dotenv's `dotenv_values(..., encoding="utf-8-sig", interpolate=True)`,
  the call used below. Compose v2 (compose-go's dotenv) has the same rules for
  what the file uses: comments, bare values, double quotes;
- django-environ: `environ.Env.read_env`, as config/settings/base.py calls it.
"""

from __future__ import annotations

import re
import subprocess
from email.utils import parseaddr
from pathlib import Path

import dotenv
import environ
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "deploy" / "mesa.env.example"

WHITESPACE = " \t\n\r"
NEWLINE = "\n\r"
# What a backslash escapes inside double quotes, as in sh (SHELL_NEED_ESCAPE).
SHELL_NEED_ESCAPE = '"\\`$'
VALID_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def systemd_environment_file(text: str) -> dict[str, str]:
    """The assignments systemd takes from an EnvironmentFile= with `text`."""
    found: dict[str, str] = {}
    state, key, value = "pre_key", "", ""
    key_end: int | None = None  # where trailing whitespace of the key starts
    value_end: int | None = None  # same for an unquoted value

    def push() -> None:
        name = key[:key_end] if key_end is not None else key
        if VALID_NAME.match(name):  # the manager drops invalid names
            found[name] = value

    for c in text:
        if state == "pre_key":
            if c in "#;":
                state = "comment"
            elif c not in WHITESPACE:
                state, key, key_end = "key", c, None
        elif state == "key":
            if c in NEWLINE:
                state = "pre_key"  # a line without "=" is ignored
            elif c == "=":
                state, value, value_end = "pre_value", "", None
            else:
                if c not in WHITESPACE:
                    key_end = None
                elif key_end is None:
                    key_end = len(key)
                key += c
        elif state == "pre_value":
            if c in NEWLINE:
                push()
                state = "pre_key"
            elif c == "'":
                state = "single"
            elif c == '"':
                state = "double"
            elif c == "\\":
                state = "value_escape"
            elif c not in WHITESPACE:
                state, value = "value", value + c
        elif state == "value":
            if c in NEWLINE:
                if value_end is not None:
                    value = value[:value_end]
                push()
                state = "pre_key"
            elif c == "\\":
                state, value_end = "value_escape", None
            else:
                if c not in WHITESPACE:
                    value_end = None
                elif value_end is None:
                    value_end = len(value)
                value += c
        elif state == "value_escape":
            state = "value"
            if c not in NEWLINE:  # an escaped newline joins the next line
                value += c
        elif state == "single":
            if c == "'":
                state = "pre_value"
            else:
                value += c
        elif state == "double":
            if c == '"':
                state = "pre_value"
            elif c == "\\":
                state = "double_escape"
            else:
                value += c
        elif state == "double_escape":
            state = "double"
            if c in SHELL_NEED_ESCAPE:
                value += c
            elif c != "\n":
                value += "\\" + c
        elif state == "comment":
            if c == "\\":
                state = "comment_escape"
            elif c in NEWLINE:
                state = "pre_key"
        elif state == "comment_escape":
            state = "pre_key" if c in NEWLINE else "comment"
    if state not in ("pre_key", "key", "comment", "comment_escape"):
        if state == "value" and value_end is not None:
            value = value[:value_end]
        push()
    return found


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


def test_every_reader_finds_the_same_settings_in_the_shipped_example(monkeypatch):
    systemd = systemd_environment_file(EXAMPLE.read_text())
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


def test_the_example_is_the_file_the_units_and_mesa_manage_read():
    manage = (ROOT / "deploy" / "mesa-manage").read_text()
    assert ". /etc/mesa/mesa.env;" in manage
    for unit in (ROOT / "deploy" / "systemd").glob("*.service"):
        assert "EnvironmentFile=/etc/mesa/mesa.env\n" in unit.read_text(), unit.name
    assert EXAMPLE.read_text().startswith("# /etc/mesa/mesa.env:")


# The systemd reader above, on the rules systemd.exec(5) states for
# EnvironmentFile=: comments, quotes, continued lines, whitespace.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# A=1\n; B=2\nC=3\n", {"C": "3"}),
        ('A="word1 word2"\nB=\'$x "y"\'\n', {"A": "word1 word2", "B": '$x "y"'}),
        ("A=one \\\n  two\n", {"A": "one   two"}),
        ("  A = spaced  \n", {"A": "spaced"}),
        ('A="x\\"y\\n"\n', {"A": 'x"y\\n'}),
        ("A=1\nA=2\nnot a line\n1BAD=3\nB=", {"A": "2", "B": ""}),
    ],
)
def test_the_systemd_reader_follows_systemd_rules(text, expected):
    assert systemd_environment_file(text) == expected


def test_sh_refuses_the_unquoted_sender_the_example_once_had(tmp_path):
    # The defect this file had: a bare "Name <address>" is a redirection to sh.
    old = tmp_path / "mesa.env"
    old.write_text("DEFAULT_FROM_EMAIL=Mesa <mesa@mesa.example.com>\n")
    with pytest.raises(AssertionError):
        sh_environment(old)
