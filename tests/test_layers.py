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


# The layers of games/, top to bottom: a module may import its own layer and
# any layer below it, never one above. mail and services share a rank and
# never import each other. games.admin, games.apps and the templatetags stand
# with the web (Django calls them); the management commands run the bots.
LAYERS = [
    ("games.web", "games.admin", "games.apps", "games.templatetags", "games.management"),
    ("games.tasks",),
    ("games.mail", "games.services"),
    ("games.selectors",),
    ("games.lib",),
    ("games.models",),
    ("games.engine", "games.bots", "games.analysis", "games.tournaments"),
]
SIBLINGS_APART = [("games.mail", "games.services")]
READ_SIDE = "games.selectors"
WRITERS = ("games.services", "games.mail", "games.tasks", "games.web")


def _within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def rank(module: str, layers=LAYERS) -> int | None:
    """The module's layer (0 = the top), None for a module outside games/."""
    for number, prefixes in enumerate(layers):
        if _within(module, prefixes):
            return number
    return None


def upward_imports(graph: dict[str, set[str]], layers=LAYERS) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a lower layer imports a higher one."""
    wrong = []
    for module, targets in graph.items():
        mine = rank(module, layers)
        for target in targets:
            theirs = rank(target, layers)
            if mine is not None and theirs is not None and theirs < mine:
                wrong.append((module, target))
    return sorted(wrong)


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def read_side_reaching_writers(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each read-side module that reaches a writer, directly or transitively."""
    found = {}
    for module in graph:
        if _within(module, (READ_SIDE,)):
            writers = sorted(t for t in reachable(graph, module) if _within(t, WRITERS))
            if writers:
                found[module] = writers
    return found


def engine_paths(module: str) -> list[str]:
    """Engine names this module imports from a path other than games.engine itself."""
    path = MODULES[module]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [name for name in names if name.startswith("games.engine.")]
    return found


def test_the_layer_checks_find_what_they_look_for():
    graph = {
        "games.lib.clock": {"games.services.rooms"},  # lower imports higher
        "games.services.rooms": {"games.selectors.board", "games.selectors.due"},
        "games.selectors.board": {"games.lib.clock"},  # reaches services through lib
        "games.mail.claims": {"games.selectors.due"},
        "games.selectors.due": {"games.models"},
        "games.models": set(),
    }
    assert upward_imports(graph) == [("games.lib.clock", "games.services.rooms")]
    assert read_side_reaching_writers(graph) == {"games.selectors.board": ["games.services.rooms"]}
    assert cycles(graph) == [["games.lib.clock", "games.selectors.board", "games.services.rooms"]]


def test_every_module_of_games_has_a_layer():
    assert [m for m in MODULES if m.startswith("games.") and rank(m) is None] == []


def test_no_layer_imports_a_layer_above_it():
    assert upward_imports(GRAPH) == []


@pytest.mark.parametrize(("one", "other"), SIBLINGS_APART)
def test_mail_and_the_services_never_import_each_other(one, other):
    crossing = sorted(
        (module, target)
        for module, targets in GRAPH.items()
        for target in targets
        if (_within(module, (one,)) and _within(target, (other,)))
        or (_within(module, (other,)) and _within(target, (one,)))
    )
    assert crossing == []


def test_the_read_side_never_reaches_a_writer_even_through_another_module():
    assert read_side_reaching_writers(GRAPH) == {}


def test_outside_the_engine_engine_names_come_from_games_engine_only():
    # One import path: the engine's package names what the site may use.
    outside = [m for m in MODULES if not _within(m, ("games.engine",))]
    assert {m: engine_paths(m) for m in outside if engine_paths(m)} == {}


def test_only_the_correspondence_clock_knows_the_deadlines():
    # The time limits of a game by mail are defined in games/lib/deadlines.py and
    # only read through it (the board's JavaScript included).
    names = re.compile(
        r"\b(ABSENCE_AFTER|REMINDER_AFTER|ROOM_IDLE_AFTER|TURN_EMAIL_QUIET|TURN_EMAIL_PAUSE"
        r"|YOUR_TURN_PAUSE)\b = "  # defined, not read
        r"|\b(ABSENCE_AFTER|REMINDER_AFTER|ROOM_IDLE_AFTER|TURN_EMAIL_QUIET)\b"
        r"|hours=48|3600 \* 1000"  # the deadline or the board's old hour arithmetic, re-derived
    )
    sources = [*MODULES.values(), *(ROOT / "static").rglob("*.js")]
    knowing = sorted(
        str(path.relative_to(ROOT))
        for path in sources
        if path.name != "deadlines.py" and names.search(path.read_text())
    )
    assert knowing == []
