"""games.analysis is pure like the engine and the bots: importing it pulls no Django in."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_analysis_imports_no_django():
    code = (
        "import sys, games.analysis, games.analysis.ladder;"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_analysis_module_mentions_django():
    sources = list((ROOT / "games" / "analysis").glob("*.py"))
    assert len(sources) >= 5
    for path in sources:
        text = path.read_text()
        assert "import django" not in text and "from django" not in text, path.name
