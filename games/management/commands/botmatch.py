"""Play bots against each other: cubeless money games with duplicate dice.

    python manage.py botmatch carcelero chofer --games 1000 --seed 1

Prints the points per game for the first player ± one standard error and the
median time each side took per move. The games themselves live in
games.bots.arena, which bench and the tests reuse.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.arena import PLAYER_NAMES, MatchResult, duplicate_match


class Command(BaseCommand):
    help = (
        "Play cubeless money games between two players with duplicate dice (each dice "
        "sequence from both seats) and report points per game and time per move."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        names = ", ".join(PLAYER_NAMES)
        parser.add_argument("a", help=f"first player: {names}")
        parser.add_argument("b", help="second player, same choices")
        parser.add_argument("--games", type=int, default=100, help="games to play (even)")
        parser.add_argument("--seed", type=int, default=0, help="seed for the dice and the bots")
        parser.add_argument(
            "--progress", type=int, default=0, metavar="K",
            help="print the running result every K games",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        a, b = options["a"].lower(), options["b"].lower()
        for name in (a, b):
            if name not in PLAYER_NAMES:
                choices = ", ".join(PLAYER_NAMES)
                raise CommandError(f"unknown player {name!r}; choose from {choices}")
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        every = options["progress"]

        def report(result: MatchResult) -> None:
            if every and result.games % every == 0:
                self.stdout.write(result.summary())
                self.stdout.flush()

        result = duplicate_match(a, b, options["games"], seed=options["seed"], on_pair=report)
        self.stdout.write(result.summary())
