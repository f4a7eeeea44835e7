"""Every docstring example in the site's code runs, and can fail.

A module that shows `>>>` examples is found here by reading the source, so an
example added to a module nobody lists still runs (the engine's modules also
run theirs in tests/engine, without Django).
"""

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules_with_examples() -> list[str]:
    found = []
    paths = [path for package in ("games", "accounts") for path in (ROOT / package).rglob("*.py")]
    for path in sorted(paths):
        if "migrations" in path.parts or ">>>" not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_the_search_finds_the_examples_we_know_of():
    assert {"games.bots", "games.engine.notation", "games.engine.dice", "accounts.fibs"} <= set(
        modules_with_examples()
    )


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_docstring_examples_of_a_module_hold(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0, f"{name} shows >>> but doctest found no example"
    assert result.failed == 0
