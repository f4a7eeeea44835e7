"""The browser's JS is typed and linted (docs/JS.md): tsc with the real
jsconfig.json and eslint with the real eslint.config.js, as `make lint` runs
them, from the checkers that package-lock.json pins (installed by the
Makefile's own stamp rule, `npm ci` only when the lock changed).

So `make test` checks the JS too, and one test shows that the shapes bind:
a module that misreads the room state is refused.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import missing

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"


@pytest.fixture(scope="module")
def checkers() -> Path:
    """The pinned tsc and eslint, installed through the Makefile's rule."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        missing("node and npm are not installed (Debian's nodejs and npm)")
    make = subprocess.run(
        ["make", "--no-print-directory", "node_modules/.installed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert make.returncode == 0, make.stdout[-2000:] + make.stderr[-2000:]
    return BIN


def run(command: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_modules_type_check_at_strict_settings(checkers: Path) -> None:
    result = run([str(checkers / "tsc"), "-p", "jsconfig.json", "--noEmit"])
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_the_modules_and_their_tests_pass_eslint(checkers: Path) -> None:
    result = run([str(checkers / "eslint"), "static/js", "tests/js"])
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


# A module as a developer might write it against the real types and the real
# table.js: the lines marked "refused" misread the room state, the others are
# right. tsc must refuse exactly the marked lines.
PROBE = """\
/** @import { Model, RoomState } from "TYPES_JS" */
import { allowed, match, viewerSide } from "TABLE_JS";

/** @param {RoomState} state */
export function phaseOf(state) {
  return state.match.phase; // refused: no match while the room waits for its guest
}

/** @param {Model} model */
export function rolling(model) {
  return match(model).phase === "rol"; // refused: no such phase
}

/** @param {Model} model */
export function mayDouble(model) {
  return allowed(model, "redouble"); // refused: no such action
}

/** @param {Model} model */
export function opponent(model) {
  return 1 - viewerSide(model); // refused: a spectator has no side
}

/** @param {Model} model */
export function ownerName(model) {
  const owner = match(model).cube.owner;
  return owner === null ? "" : model.state.seats[owner].nickname;
}

/** @param {RoomState} state */
export function messages(state) {
  return state.talk ? state.talk.messages.map((line) => line.text) : [];
}
"""


def test_a_module_that_misreads_the_room_state_is_refused(checkers: Path, tmp_path: Path) -> None:
    probe = tmp_path / "probe.js"
    probe.write_text(
        PROBE.replace("TYPES_JS", str(ROOT / "static" / "js" / "types.js")).replace(
            "TABLE_JS", str(ROOT / "static" / "js" / "board" / "table.js")
        )
    )
    # The project's own settings, only over the probe (and what it imports).
    config = {"extends": str(ROOT / "jsconfig.json"), "include": [str(probe)]}
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    result = run([str(checkers / "tsc"), "-p", str(tmp_path / "tsconfig.json")], cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    refused = {int(line) for line in re.findall(r"probe\.js\((\d+),\d+\): error TS\d+", output)}
    wanted = {
        n for n, text in enumerate(probe.read_text().splitlines(), start=1) if "// refused" in text
    }
    assert len(wanted) == 4
    assert refused == wanted, output
    # Nothing else of the project's was found wanting on the way.
    assert all("probe.js" in line for line in output.splitlines() if "error TS" in line), output
