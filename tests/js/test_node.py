"""Run the board's pure JS tests (tests/js/*.test.mjs) with node.

So `make test` covers them too. Where node is not installed the test is
skipped, except on CI (CI=true, set by .ci/run, which installs node): there
it fails, so the JS tests cannot drop out of a green run unseen.
"""

import re
import shutil
import subprocess
from pathlib import Path

from tests.helpers import missing

NODE = shutil.which("node")
HERE = Path(__file__).resolve().parent


def test_the_board_modules_pass_their_node_tests():
    if NODE is None:
        missing("node is not installed (Debian's nodejs)")
    result = subprocess.run(
        [NODE, "--test", str(HERE)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE.parents[1],
    )
    output = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, output
    # node's TAP summary: some tests ran, and none failed, was cancelled or skipped.
    counts = re.findall(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$", result.stdout, re.M)
    summary = dict(counts)
    assert int(summary.get("tests", 0)) > 0, output
    assert summary["pass"] == summary["tests"], output
