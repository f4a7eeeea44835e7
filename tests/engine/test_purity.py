"""The pure packages (the engine, the bots, the analysis) never pull Django in."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ("engine", "bots", "analysis")


@pytest.mark.parametrize(
    "modules",
    [
        "games.engine, games.engine.dice, games.engine.notation",
        "games.analysis, games.analysis.ladder",
    ],
)
def test_importing_a_pure_package_imports_no_django(modules):
    code = (
        f"import sys, {modules};"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("package", PURE_PACKAGES)
def test_no_pure_module_imports_django_even_inside_a_function(package):
    # The import test above only sees imports made at module load.
    sources = list((ROOT / "games" / package).glob("*.py"))
    assert len(sources) >= 3
    for path in sources:
        text = path.read_text()
        assert "import django" not in text and "from django" not in text, path.name


def test_the_engine_draws_no_randomness_of_its_own():
    # Dice are an input; secure dice and seeds live in games.services.dice.
    sources = list((ROOT / "games" / "engine").glob("*.py"))
    assert len(sources) >= 3  # an engine that moved must not pass by being absent
    for path in sources:
        text = path.read_text()
        for module in ("random", "secrets"):
            assert f"import {module}" not in text and f"from {module} " not in text, path.name
        assert "urandom" not in text, path.name
