"""How the bots use the cube: self-play matches, every cube decision graded.

    python manage.py botcube --matches 200 --length 5 --bots domador,chofer,carcelero

For each bot, matches against itself: the share decided in one game, the
highest cube, and the equity lost per cube decision against bgsage's own
verdict (GNU Backgammon's "cube error", normalised to the cube). The matches
themselves live in games.bots.cubebench.
"""

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots import BOT_NAMES
from games.bots.arena import REFERENCES
from games.bots.cubebench import CubeReport, self_play
from games.bots.sage import LEVELS

NAMES = (*BOT_NAMES, *REFERENCES)


class Command(BaseCommand):
    help = "Play bot-vs-bot matches with the cube and grade every cube decision."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=200, help="matches per bot")
        parser.add_argument("--length", type=int, default=5, help="points to win a match")
        parser.add_argument("--seed", type=int, default=0, help="seed for the dice and the bots")
        parser.add_argument(
            "--bots", default="domador,chofer,carcelero",
            help=f"comma-separated, from {', '.join(NAMES)} (sageN: noiseless bgsage N-ply)",
        )  # fmt: skip
        parser.add_argument(
            "--level", default="1ply", choices=LEVELS, help="bgsage level that grades decisions"
        )
        parser.add_argument("--progress", type=int, default=0, metavar="K", help="report every K")
        parser.add_argument(
            "--first", type=int, default=0, help="number of the first match (to split a run)"
        )
        parser.add_argument("--save", metavar="FILE", help="write every match's record as JSON")
        parser.add_argument(
            "--read", nargs="+", metavar="FILE",
            help="report on saved records instead of playing (the parts of a split run)",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        if options["read"]:
            self.read(options["read"])
            return
        bots = [name.strip().lower() for name in options["bots"].split(",") if name.strip()]
        unknown = [name for name in bots if name not in NAMES]
        if unknown or not bots:
            raise CommandError(f"unknown bots {unknown}; choose from {', '.join(NAMES)}")
        if options["matches"] < 1 or options["length"] < 1:
            raise CommandError("--matches and --length must be at least 1")
        every = options["progress"]

        def progress(report: CubeReport) -> None:
            if every and len(report.matches) % every == 0:
                self.stdout.write(self.line(report.summary()))
                self.stdout.flush()

        saved = []
        for bot in bots:
            report = self_play(
                bot, options["matches"], options["length"], options["seed"], options["level"],
                on_match=progress, first=options["first"],
            )  # fmt: skip
            self.stdout.write(self.line(report.summary()))
            saved.append(report.to_json())
        if options["save"]:
            Path(options["save"]).write_text(json.dumps(saved))

    def read(self, paths: Iterable[str]) -> None:
        """One line per bot, over every saved part that holds its matches."""
        reports: dict[tuple[str, int], CubeReport] = {}
        for path in paths:
            for data in json.loads(Path(path).read_text()):
                part = CubeReport.from_json(data)
                whole = reports.setdefault(
                    (part.bot, part.length), CubeReport(part.bot, part.length)
                )
                whole.matches.extend(part.matches)
        for report in reports.values():
            self.stdout.write(self.line(report.summary()))

    @staticmethod
    def line(s: dict[str, Any]) -> str:
        return (
            f"{s['bot']}: {s['matches']} matches, {s['one_game_share']:.1%} decided in one game, "
            f"{s['games_per_match']:.2f} games per match, highest cube {s['highest_cube']} "
            f"(median {s['median_highest_cube']:g}); {s['decisions']} cube decisions "
            f"({s['doubles']} doubles, {s['takes']} takes, {s['drops']} drops), "
            f"{s['wrong_decisions']} wrong; cube error {s['mean_error'] * 1000:.1f} mEMG "
            f"per decision, {s['mean_error_when_wrong'] * 1000:.1f} per wrong one, "
            f"max {s['max_error'] * 1000:.1f}"
        )
