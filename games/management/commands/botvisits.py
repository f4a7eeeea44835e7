"""How many visits to the board written answers and forced plays save, bot against bot.

    nice -n 19 python manage.py botvisits --matches 200 --jobs 2 --bot empresario

Each bot writes its answer to the opponent's next double at the end of its
turns; the log of each match is counted with and without what the table
plays for the players (games.bots.visits). With ``--jobs`` the matches are
split in parts played by that many processes, one core each; the counts
add up to those of one run with the same dice.
"""

import random
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.arena import PLAYER_NAMES, make_player
from games.bots.visits import MATCH5, VisitReport, measure
from games.engine import Format, MatchRules


class Command(BaseCommand):
    help = "Count the visits per game that written cube answers and forced plays save."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=200, help="matches to play at most")
        parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
        parser.add_argument("--length", type=int, default=MATCH5.length, help="points per match")
        parser.add_argument("--seed", type=int, default=0, help="seed for the dice and the bots")
        parser.add_argument("--bot", default="empresario", help=", ".join(PLAYER_NAMES))
        parser.add_argument("--jobs", type=int, default=1, help="processes to play in")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["bot"].strip().lower()
        if name not in PLAYER_NAMES:
            raise CommandError(f"unknown bot {name!r}; choose from {', '.join(PLAYER_NAMES)}")
        if options["matches"] < 1:
            raise CommandError("--matches must be at least 1")
        jobs = options["jobs"]
        if not 1 <= jobs <= options["matches"]:
            raise CommandError("--jobs must be between 1 and --matches")
        try:
            rules = MatchRules(format=Format.MATCH, length=options["length"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        seed, matches, minutes = options["seed"], options["matches"], options["minutes"]
        seconds = None if minutes is None else minutes * 60
        # Part j plays matches [starts[j], starts[j + 1]).
        starts = [matches * j // jobs for j in range(jobs + 1)]
        parts = [
            (name, rules, starts[j], starts[j + 1] - starts[j], seed, seconds) for j in range(jobs)
        ]
        report = VisitReport()
        if jobs == 1:
            report.add(play_part(*parts[0]))
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for part in pool.map(play_part, *zip(*parts, strict=True)):
                    report.add(part)
        title = f"{name} against itself, {rules.length}-point matches"
        self.stdout.write(f"{title}: {report.summary()}")


def play_part(
    name: str, rules: MatchRules, first: int, matches: int, seed: int, seconds: float | None
) -> VisitReport:
    """One process's share of the matches, from match number ``first``."""
    players = [make_player(name, random.Random(f"{seed}:{first}:{side}")) for side in (0, 1)]
    report = measure(players, rules, matches, seed, seconds, first=first)
    print(f"matches {first}-{first + matches - 1}: {report.matches} played", file=sys.stderr)
    return report
