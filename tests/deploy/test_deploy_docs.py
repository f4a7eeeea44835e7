"""docs/DEPLOY.md as an operator follows it on a fresh Debian 12: every tool
its commands use comes from a package section 1 installs (or is part of every
Debian), and what it says `check --deploy` prints is what it prints."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

from tests.helpers import missing
from tests.test_deploy import django_script, run_deploy_check

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = (ROOT / "docs" / "DEPLOY.md").read_text()

# For each command the walk-through may use that is not of priority required
# or important (so not on every Debian 12): the package section 1 installs,
# and the package that holds the command (itself, or one it depends on). A
# test below asks dpkg and apt-cache where they can, so a wrong entry shows.
NOT_IN_EVERY_DEBIAN = {
    "sudo": ("sudo", "sudo"),
    "envsubst": ("gettext-base", "gettext-base"),
    "curl": ("curl", "curl"),
    "git": ("git", "git"),
    "certbot": ("certbot", "certbot"),
    "nginx": ("nginx", "nginx"),
    "redis-cli": ("redis-server", "redis-tools"),
    "psql": ("postgresql", "postgresql-client-common"),
    "pg_dump": ("postgresql", "postgresql-client-common"),
    "pg_restore": ("postgresql", "postgresql-client-common"),
    "createuser": ("postgresql", "postgresql-client-common"),
    "createdb": ("postgresql", "postgresql-client-common"),
    "dropdb": ("postgresql", "postgresql-client-common"),
    "python3": ("python3", "python3-minimal"),
}
# What is in every Debian (priority required or important: coreutils, passwd,
# systemd, cron, nano's `editor`...), or this site's own (mesa-manage), or the
# containers' section's.
EVERYWHERE = {
    "apt-get", "systemctl", "journalctl", "install", "cp", "rm", "cat", "sed", "grep",
    "chown", "chmod", "mkdir", "useradd", "usermod", "cd", "export", "echo", "editor",
    "test", "ls", "find", "date", "sleep", "mesa-manage", "docker", "tar", "gzip", "mv",
}  # fmt: skip


def sh_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", DOCS, re.S)


def commands_used() -> set[str]:
    used = set()
    for block in sh_blocks():
        text = block.replace("\\\n", " ")
        here_doc_end = None
        for line in text.splitlines():
            if here_doc_end is not None:  # a file's content, not commands
                here_doc_end = None if line.strip() == here_doc_end else here_doc_end
                continue
            if here_doc := re.search(r"<<-?'?(\w+)'?", line):
                here_doc_end = here_doc[1]
            line = line.split(" #")[0].strip()
            if not line or line.startswith("#") or re.match(r"^[A-Z_]+=", line):
                continue  # a comment, or a settings file shown as a block
            for part in re.split(r"&&|\|\||[|;]|\$\(", line):
                words = [w for w in shlex.split(part, posix=True) if w not in ("(", ")")]
                while words and re.match(r"^[A-Z_]+=", words[0]):
                    words.pop(0)  # VAR=value command
                if not words:
                    continue
                if words[0] == "sudo":
                    used.add("sudo")
                    words = words[3:] if words[1:2] == ["-u"] else words[1:]
                if words and not words[0].startswith(("/", ".", "<", ">")):
                    used.add(words[0])
    return used


def installed_by_the_docs() -> set[str]:
    section = DOCS[DOCS.index("## 1. Packages") : DOCS.index("## 2.")]
    (line,) = re.findall(r"apt-get install -y ((?:[^\n\\]|\\\n)+)", section)
    return set(line.replace("\\\n", " ").split())


def test_every_command_of_the_walk_through_is_installed_by_it():
    used = commands_used()
    assert {"sudo", "envsubst", "systemctl", "certbot"} <= used  # the reader reads
    unknown = used - set(NOT_IN_EVERY_DEBIAN) - EVERYWHERE
    assert unknown == set(), "add them to one of the two lists above"
    needed = {NOT_IN_EVERY_DEBIAN[name][0] for name in used if name in NOT_IN_EVERY_DEBIAN}
    assert needed - installed_by_the_docs() == set()


def test_each_command_comes_from_the_package_named_for_it():
    if not shutil.which("dpkg"):
        missing("dpkg is not installed (a Debian machine's package database)")
    asked = set()
    for command, (installed, holder) in NOT_IN_EVERY_DEBIAN.items():
        path = shutil.which(command, path="/usr/sbin:/usr/bin:/sbin:/bin")
        if not path:
            continue  # not on this machine (certbot): nothing to ask
        owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
        assert owner.stdout.split(":")[0] == holder, command
        if holder != installed:
            depends = subprocess.run(
                ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                 "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", installed],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            assert re.search(rf"Depends: {re.escape(holder)}$", depends.stdout, re.M), command
        asked.add(command)
    if not {"sudo", "envsubst"} <= asked:
        missing("sudo or envsubst is not installed: their packages cannot be checked")


def test_the_docs_quote_what_check_deploy_prints_and_why_checks_are_silenced():
    result = run_deploy_check()
    assert result.returncode == 0, result.stdout + result.stderr
    (said,) = [line for line in result.stdout.splitlines() if "System check identified" in line]
    assert f'`check --deploy` must say "{said}"' in DOCS.replace("\n", " ")
    silenced = django_script(
        "from django.conf import settings; print(*settings.SILENCED_SYSTEM_CHECKS)"
    )
    for check in silenced.stdout.split():
        assert f"`{check}`" in DOCS, check
