"""Each player's luck beside GNU Backgammon's own luck analysis, on the bench's games.

The games are bench/analysis.py's: the first game of each of its seeded bot
matches (carcelero against chofer, seeds 1000 on), for each kind of game
the site plays (partida simple, match to 5, sesión libre). For each one the
site's luck (games.analysis.game_luck, bgsage 1-ply) is set beside gnubg's,
run as a separate process at the same depth (its 0-ply, the default of its
luck analysis): the game goes to gnubg as the ``.mat`` file the site exports,
gnubg analyses it (``analyse match``) and prints its statistics (``show
statistics match``), from which "Luck total EMG" is read for each player.

The two evaluators have different networks, so the totals cannot agree
exactly. A player's luck in one game agrees when it is within TOLERANCE of
gnubg's (one lucky roll's worth); the site agrees with gnubg when at least
AGREEING of the players' game totals do, and the differences lean neither
way (their mean within BIAS of 0). docs/ANALYSIS.md has the figures.
Without gnubg it says so and stops.

    python -m bench.luck [--games 20]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from games.analysis import game_luck
from games.analysis.ladder import bot_game
from games.engine import Format, MatchRules
from games.engine.matfile import export_mat

from .gnubg_ref import Gnubg, find_gnubg

KINDS = {
    "partida simple": MatchRules(),
    "match to 5": MatchRules(format=Format.MATCH, length=5),
    "sesión libre": MatchRules(format=Format.SESSION),
}
PLAYERS = ("carcelero", "chofer")  # bench.analysis's players
FIRST_SEED = 1000  # bench.analysis's seeds for its spread of games
GAMES = 20
# A player's luck in one game, in EMG: agreement within this much of gnubg's,
# for this share of them at least, with a mean signed difference under BIAS.
TOLERANCE = 0.3
AGREEING = 0.9
BIAS = 0.05
LEVEL = "1ply"  # bgsage 1-ply is gnubg's 0-ply

_MARKS = ("very lucky", "lucky", "unlucky", "very unlucky")
# "Luck total EMG (MWC)      -0.183 ( -5.606%)       +0.759 ( +4.589%)"
_PAIR = r"([+-]?\d+\.\d+)\s*\(\s*([+-]?\d+\.\d+)%?\s*\)"
_LUCK = re.compile(rf"^Luck total EMG \((MWC|Points|ppg)\)\s+{_PAIR}\s+{_PAIR}", re.MULTILINE)
_ROLLS = re.compile(r"^Rolls marked (very lucky|lucky|unlucky|very unlucky)\s+(\d+)\s+(\d+)", re.M)
_RESULT = re.compile(
    r"^(Actual result|Luck adjusted result)\s+([+-]?\d+\.\d+)(%?)\s+([+-]?\d+\.\d+)%?", re.M
)


@dataclass(frozen=True, slots=True)
class GnubgLuck:
    """One player's luck as gnubg's statistics print it."""

    emg: float  # "Luck total EMG"
    units: float  # the same in MWC (a fraction) for a match, in points for money
    marks: tuple[int, int, int, int]  # very lucky, lucky, unlucky, very unlucky
    actual: float  # "Actual result": MWC (a fraction) or points
    adjusted: float  # "Luck adjusted result"


def parse_statistics(text: str) -> tuple[GnubgLuck, GnubgLuck]:
    """Both players' luck from gnubg's ``show statistics match`` (or ``game``)."""
    luck = _LUCK.search(text)
    if luck is None:
        raise ValueError(f"no luck total in gnubg's statistics:\n{text[-2000:]}")
    percent = luck.group(1) == "MWC"
    scale = 0.01 if percent else 1.0
    marks = {kind: (int(a), int(b)) for kind, a, b in _ROLLS.findall(text)}
    if set(marks) != set(_MARKS):
        raise ValueError(f"gnubg's statistics lack some marks of the rolls: {sorted(marks)}")
    results: dict[str, tuple[float, float]] = {}
    for name, first, is_percent, second in _RESULT.findall(text):
        factor = 0.01 if is_percent else 1.0
        results[name] = (float(first) * factor, float(second) * factor)
    if len(results) != 2:
        raise ValueError("gnubg's statistics lack the actual or the luck-adjusted result")

    def player(side: int) -> GnubgLuck:
        counts = [marks[kind][side] for kind in _MARKS]
        return GnubgLuck(
            emg=float(luck.group(2 + 2 * side)),
            units=float(luck.group(3 + 2 * side)) * scale,
            marks=(counts[0], counts[1], counts[2], counts[3]),
            actual=results["Actual result"][side],
            adjusted=results["Luck adjusted result"][side],
        )

    return player(0), player(1)


def gnubg_luck(gnubg: Gnubg, rules: MatchRules, mat: Path) -> tuple[GnubgLuck, GnubgLuck]:
    """gnubg's luck for both players of the match in ``mat``, analysed at its 0-ply."""
    commands = [
        "set analysis luckanalysis plies 0",
        "set analysis luckanalysis cubeful on",
        "set analysis chequerplay evaluation plies 0",
        "set analysis cubedecision evaluation plies 0",
    ]
    if rules.format is Format.SESSION:
        # gnubg's own defaults, not the .mat file's header, rule its money games.
        commands += [
            f"set jacoby {'on' if rules.jacoby else 'off'}",
            f"set beavers {'on' if rules.beavers else 'off'}",
        ]
    commands += [f"import mat {mat}", "analyse match", "show statistics match"]
    return parse_statistics(gnubg.ask(commands))


@dataclass(frozen=True, slots=True)
class Row:
    kind: str
    seed: int
    ours: tuple[float, float]  # each player's luck total, EMG
    theirs: tuple[float, float]

    @property
    def differences(self) -> tuple[float, float]:
        return (self.ours[0] - self.theirs[0], self.ours[1] - self.theirs[1])


def compare(gnubg: Gnubg, kind: str, seed: int, folder: Path) -> Row:
    rules = KINDS[kind]
    actions = bot_game(rules, PLAYERS, seed)
    luck = game_luck(rules, actions, range(len(actions)), LEVEL).summaries()
    mat = folder / f"{seed}.mat"
    mat.write_text(export_mat(rules, actions, PLAYERS))
    theirs = gnubg_luck(gnubg, rules, mat)
    return Row(kind, seed, (luck[0].luck, luck[1].luck), (theirs[0].emg, theirs[1].emg))


def run(games: int = GAMES) -> list[Row]:
    if find_gnubg() is None:
        print("GNU Backgammon is not installed (apt-get install gnubg): nothing to compare")
        return []
    print(
        f"each player's luck in EMG, Mesa (bgsage {LEVEL}) beside gnubg 0-ply, "
        f"first game of {games} bot matches per kind; agreement: within {TOLERANCE}"
    )
    rows: list[Row] = []
    started = time.perf_counter()
    with Gnubg(0) as gnubg, tempfile.TemporaryDirectory() as folder:
        for kind in KINDS:
            print(f"  {kind}")
            print(f"    {'seed':>5}  {PLAYERS[0]:>20}  {PLAYERS[1]:>20}   (Mesa / gnubg)")
            for seed in range(FIRST_SEED, FIRST_SEED + games):
                row = compare(gnubg, kind, seed, Path(folder))
                rows.append(row)
                cells = [
                    f"{ours:+7.3f} / {theirs:+7.3f}{' !' if abs(ours - theirs) > TOLERANCE else ''}"
                    for ours, theirs in zip(row.ours, row.theirs, strict=True)
                ]
                print(f"    {seed:>5}  {cells[0]:>20}  {cells[1]:>20}")
            mine = [r for r in rows if r.kind == kind]
            summary(mine, indent="    ")
    print("  all kinds:")
    if not summary(rows, indent="    "):
        raise SystemExit("the luck does not agree with gnubg's")
    print(f"  ({time.perf_counter() - started:.0f} s)")
    return rows


def summary(rows: list[Row], indent: str) -> bool:
    """Print how far the totals are from gnubg's; True when they agree (see the docstring)."""
    signed = [d for row in rows for d in row.differences]
    differences = sorted(abs(d) for d in signed)
    within = sum(d <= TOLERANCE for d in differences)
    bias = sum(signed) / len(signed)
    agree = within >= AGREEING * len(differences) and abs(bias) < BIAS
    totals = [sum(row.ours[side] for row in rows) for side in (0, 1)]
    theirs = [sum(row.theirs[side] for row in rows) for side in (0, 1)]
    print(
        f"{indent}{within} of {len(differences)} players' totals within {TOLERANCE} "
        f"(target {AGREEING:.0%}); difference median {differences[len(differences) // 2]:.3f}, "
        f"largest {differences[-1]:.3f}, mean signed {bias:+.3f} (target within {BIAS}): "
        f"{'agrees' if agree else 'DOES NOT AGREE'}"
    )
    print(
        f"{indent}summed over the games (Mesa / gnubg): {PLAYERS[0]} {totals[0]:+.2f} / "
        f"{theirs[0]:+.2f}, {PLAYERS[1]} {totals[1]:+.2f} / {theirs[1]:+.2f}"
    )
    return agree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=GAMES, help="games per kind")
    run(parser.parse_args().games)


if __name__ == "__main__":
    main()
