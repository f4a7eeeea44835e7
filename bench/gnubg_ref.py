"""GNU Backgammon as a reference player and evaluator, driven as a separate process.

GNU Backgammon (the Debian package ``gnubg``, GPL) runs in its own process
in tty mode; this module only writes its documented commands to its
standard input (``set gnubgid``, ``hint``, the ``set evaluation`` options)
and reads the text it prints. No gnubg code is linked or copied. The shipped
bots never use it: it is for benchmarks (``bench/duel.py``) and for finding
test positions. Everything here says "not available" cleanly when gnubg is
not installed (``find_gnubg() is None``).

Plies are gnubg's own: its 0-ply is the raw network (bgsage's and XG's
1-ply), its 2-ply ("World class") is bgsage's and XG's 3-ply.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from games.engine import Action, MatchState, Phase, Play, legal_plays, parse_play
from games.engine.matchid import gnubg_id

CANDIDATE_PATHS = ("/usr/games/gnubg", "/usr/bin/gnubg")

# "1. Double, take        +0.884", "3. No redouble   +0.389  (-0.495)"
_CUBE_LINE = re.compile(
    r"^\s*\d\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, take|(?:Re)?[Dd]ouble, pass)"
    r"\s+([+-]?\d+\.\d+)",
    re.MULTILINE,
)
# "    1. Cubeful 2-ply    24/13                        Eq.: +0.082"
_FIRST_MOVE = re.compile(r"^\s*1\.\s+(?:Cubeful|Cubeless)\s+\S+\s+(.+?)\s+Eq\.:", re.MULTILINE)


def find_gnubg() -> str | None:
    """The gnubg program's path, or None when it is not installed."""
    found = shutil.which("gnubg")
    if found:
        return found
    return next((path for path in CANDIDATE_PATHS if Path(path).exists()), None)


class GnubgUnavailable(RuntimeError):
    """gnubg is not installed (``apt-get install gnubg``)."""


@dataclass(frozen=True, slots=True)
class CubeVerdict:
    """gnubg's cubeful equities for the player who may double, normalised to the cube."""

    nd: float
    dt: float
    dp: float

    @property
    def double(self) -> bool:
        return min(self.dt, self.dp) > self.nd

    @property
    def take(self) -> bool:
        return self.dt <= self.dp


class Gnubg:
    """One gnubg process at a fixed depth for checker play and cube decisions."""

    def __init__(self, plies: int = 2, path: str | None = None, timeout: float = 120.0):
        path = path or find_gnubg()
        if path is None:
            raise GnubgUnavailable("GNU Backgammon is not installed (apt-get install gnubg)")
        self.plies = plies
        self.timeout = timeout
        self._markers = itertools.count()
        # gnubg creates ~/.gnubg on its first start and quits if another copy
        # made it in between: the duel's shards start together on a new machine.
        (Path.home() / ".gnubg").mkdir(mode=0o700, exist_ok=True)
        self._process = subprocess.Popen(
            [path, "-t", "-q", "-r"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.ask(
            [
                "set threads 1",
                f"set evaluation chequerplay evaluation plies {plies}",
                f"set evaluation cubedecision evaluation plies {plies}",
                "set evaluation chequerplay evaluation cubeful on",
                "set evaluation cubedecision evaluation cubeful on",
                "set evaluation chequerplay evaluation prune on",
                "set evaluation cubedecision evaluation prune on",
            ]
        )

    @property
    def name(self) -> str:
        return f"gnubg {self.plies}-ply"

    def ask(self, commands: list[str]) -> str:
        """Send ``commands`` and return what gnubg printed for them."""
        assert self._process.stdin is not None and self._process.stdout is not None
        # An unknown word makes gnubg print its name back: the end of the answer.
        marker = f"mesa_end_{next(self._markers)}"
        self._process.stdin.write("\n".join([*commands, marker]) + "\n")
        self._process.stdin.flush()
        lines: list[str] = []
        for line in self._process.stdout:
            if marker in line:
                return "".join(lines)
            lines.append(line)
        raise RuntimeError(f"gnubg stopped; it printed:\n{''.join(lines)[-2000:]}")

    def hint(self, state: MatchState) -> str:
        return self.ask([f"set gnubgid {gnubg_id(state)}", "hint"])

    def cube(self, state: MatchState) -> CubeVerdict | None:
        """gnubg's cube verdict for ``state`` (before a roll, or doubled); None: no cube action."""
        found = {kind.lower(): float(value) for kind, value in _CUBE_LINE.findall(self.hint(state))}
        values: dict[str, float] = {}
        for kind, value in found.items():
            if kind.startswith("no"):
                values["nd"] = value
            elif kind.endswith("take"):
                values["dt"] = value
            else:
                values["dp"] = value
        if len(values) != 3:
            return None
        return CubeVerdict(values["nd"], values["dt"], values["dp"])

    def best_play(self, state: MatchState) -> Play:
        """gnubg's play for the dice of ``state`` (phase MOVE), as an engine play."""
        assert state.dice is not None
        position = state.position_for(state.turn)
        plays = legal_plays(position, state.dice)
        if len({position.apply(play) for play in plays}) <= 1:
            return plays[0] if plays else ()
        output = self.hint(state)
        match = _FIRST_MOVE.search(output)
        if match is None:
            raise RuntimeError(f"no move in gnubg's hint:\n{output[-2000:]}")
        return parse_play(position, state.dice, match.group(1))

    def next_action(self, state: MatchState, side: int) -> Action | None:
        """What gnubg does as ``side`` in ``state`` (a match without resignations)."""
        if state.turn != side:
            return None
        if state.phase is Phase.ROLL:
            verdict = self.cube(state) if state.may_double(side) else None
            return Action("double" if verdict and verdict.double else "roll", side)
        if state.phase is Phase.DOUBLED:
            verdict = self.cube(state)
            took = verdict is None or verdict.take
            return Action("take" if took else "drop", side)
        if state.phase is Phase.MOVE:
            return Action("play", side, play=tuple(self.best_play(state)))
        if state.phase is Phase.RESIGN_OFFERED:
            return Action("resign_decline", side)
        return None

    def close(self) -> None:
        if self._process.poll() is None:
            assert self._process.stdin is not None
            try:
                self._process.stdin.write("quit\ny\n")
                self._process.stdin.close()
                self._process.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> Gnubg:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
