"""The engine is a pure library: importing it must not pull Django in."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_engine_imports_no_django():
    code = (
        "import sys, games.engine, games.engine.dice, games.engine.notation;"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_engine_or_bot_module_imports_django_even_inside_a_function():
    # The import test above only sees imports made at module load.
    sources = [*(ROOT / "games" / "engine").glob("*.py"), *(ROOT / "games" / "bots").glob("*.py")]
    assert len(sources) > 10
    for path in sources:
        text = path.read_text()
        assert "import django" not in text and "from django" not in text, path.name
