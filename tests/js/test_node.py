"""Run the board's pure geometry tests (tests/js/*.test.mjs) with node.

So `make test` covers them too; skipped where node is not installed.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
HERE = Path(__file__).resolve().parent


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_board_geometry_passes_its_node_tests():
    result = subprocess.run(
        [NODE, "--test", str(HERE)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE.parents[1],
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
