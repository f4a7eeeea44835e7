"""The shape of the code, checked: imports flow one way and each rule has one home.

Read from the source with `ast`, nothing is imported: every first-party
import counts, at module level or inside a function (a function-level import
is how a cycle hides).
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "config")


def first_party_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


MODULES = first_party_modules()


def owner(name: str) -> str | None:
    """The first-party module an imported name lives in (a package's __init__ included)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, base] if base else parents)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            target = owner(name)
            # A package's modules may import the package itself (its __init__).
            if target and target != module and not module.startswith(target + "."):
                found.add(target)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or around a loop (Tarjan)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for module in graph:
        if module not in index:
            visit(module)
    return groups


def test_the_cycle_finder_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_itself_back_around_a_loop():
    assert cycles(GRAPH) == []


def test_accounts_never_imports_games():
    # games listens to accounts (a user_logged_in receiver), never the other way.
    wrong = {m: sorted(t for t in GRAPH[m] if t.startswith("games")) for m in GRAPH}
    assert {m: t for m, t in wrong.items() if m.startswith("accounts") and t} == {}


@pytest.mark.parametrize("reader", ["games.selectors", "games.presenters", "games.seats"])
def test_the_read_side_never_imports_the_services(reader):
    assert "games.services" not in GRAPH[reader]


def test_only_the_correspondence_clock_knows_the_deadlines():
    # The time limits of a game by mail are defined in games/deadlines.py and
    # only read through it (the board's JavaScript included).
    names = re.compile(
        r"\b(ABSENCE_AFTER|REMINDER_AFTER|ROOM_IDLE_AFTER|TURN_EMAIL_QUIET)\b"
        r"|hours=48|3600 \* 1000"  # the deadline or the board's old hour arithmetic, re-derived
    )
    sources = [*MODULES.values(), *(ROOT / "static").rglob("*.js")]
    knowing = sorted(
        str(path.relative_to(ROOT))
        for path in sources
        if path.name != "deadlines.py" and names.search(path.read_text())
    )
    assert knowing == []
