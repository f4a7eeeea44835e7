"""How many visits to the board written answers and forced plays save, bot against bot.

    nice -n 19 python manage.py botvisits --matches 200 --minutes 10 --bot empresario

Each bot writes its answer to the opponent's next double at the end of its
turns; the log of each match is counted with and without what the table
plays for the players (games.bots.visits).
"""

import random
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.arena import PLAYER_NAMES, make_player
from games.bots.visits import MATCH5, measure
from games.engine import Format, MatchRules


class Command(BaseCommand):
    help = "Count the visits per game that written cube answers and forced plays save."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=200, help="matches to play at most")
        parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
        parser.add_argument("--length", type=int, default=MATCH5.length, help="points per match")
        parser.add_argument("--seed", type=int, default=0, help="seed for the dice and the bots")
        parser.add_argument("--bot", default="empresario", help=", ".join(PLAYER_NAMES))

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["bot"].strip().lower()
        if name not in PLAYER_NAMES:
            raise CommandError(f"unknown bot {name!r}; choose from {', '.join(PLAYER_NAMES)}")
        if options["matches"] < 1:
            raise CommandError("--matches must be at least 1")
        try:
            rules = MatchRules(format=Format.MATCH, length=options["length"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        seed = options["seed"]
        players = [make_player(name, random.Random(f"{seed}:{side}")) for side in (0, 1)]
        minutes = options["minutes"]
        report = measure(
            players, rules, options["matches"], seed, None if minutes is None else minutes * 60
        )
        title = f"{name} against itself, {rules.length}-point matches"
        self.stdout.write(f"{title}: {report.summary()}")
