"""Every environment variable the site's configuration reads (config/, parsed
with ast: `env(...)`, `env.str/int/bool/...(...)`, `os.environ.get(...)`,
`os.environ[...]`, `os.getenv(...)`) has a row in docs/CONFIGURATION.md's
table, the one place an operator looks for them (the README points there)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def is_os_environ(node: ast.expr) -> bool:
    """`os.environ` (config/ always reads it through the module)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "environ" and isinstance(node.value, ast.Name) and node.value.id == "os"
    return False


def name_read(node: ast.AST) -> str | None:
    if isinstance(node, ast.Subscript) and is_os_environ(node.value):
        key = node.slice
    elif isinstance(node, ast.Call) and node.args:
        func = node.func
        reads = (
            # env("X"), env.str("X"), env.bool("X"), env.db("X"), ...
            (isinstance(func, ast.Name) and func.id == "env")
            or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "env")
            # os.environ.get("X"), os.getenv("X")
            or (isinstance(func, ast.Attribute) and func.attr == "get"
                and is_os_environ(func.value))
            or (isinstance(func, ast.Attribute) and func.attr == "getenv"
                and isinstance(func.value, ast.Name) and func.value.id == "os")
        )  # fmt: skip
        if not reads:
            return None
        key = node.args[0]
    else:
        return None
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    raise AssertionError(f"line {node.lineno}: a variable read by a name computed at run time")


def variables_read() -> dict[str, str]:
    """Each variable's name and the first place that reads it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "config").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if name := name_read(node):
                found.setdefault(name, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def documented() -> set[str]:
    page = (ROOT / "docs" / "CONFIGURATION.md").read_text()
    section = page[page.index("\n## Every variable\n") :]
    section = section[: section.index("\n## ", 1)]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, "docs/CONFIGURATION.md's table"
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}


def test_the_reader_finds_each_kind_of_read():
    found = variables_read()
    # One of each kind: env.str, env.bool, env.db, os.environ.get.
    assert {"SECRET_KEY", "DEBUG", "DATABASE_URL", "GUNICORN_BIND"} <= set(found)


def test_every_variable_the_settings_read_is_in_the_configuration_table():
    missing = {name: where for name, where in variables_read().items() if name not in documented()}
    assert missing == {}
