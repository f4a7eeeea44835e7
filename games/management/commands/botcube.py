"""How the bots use the cube: self-play matches, every cube decision graded.

    python manage.py botcube --matches 200 --length 5 --bots domador,chofer,carcelero

For each bot, matches against itself: the share decided in one game, the
highest cube, and the equity lost per cube decision against bgsage's own
verdict (GNU Backgammon's "cube error", normalised to the cube). The matches
themselves live in games.bots.cubebench.
"""

from django.core.management.base import BaseCommand, CommandError

from games.bots import BOT_NAMES
from games.bots.arena import REFERENCES
from games.bots.cubebench import self_play
from games.bots.sage import LEVELS

NAMES = (*BOT_NAMES, *REFERENCES)


class Command(BaseCommand):
    help = "Play bot-vs-bot matches with the cube and grade every cube decision."

    def add_arguments(self, parser):
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

    def handle(self, *args, **options):
        bots = [name.strip().lower() for name in options["bots"].split(",") if name.strip()]
        unknown = [name for name in bots if name not in NAMES]
        if unknown or not bots:
            raise CommandError(f"unknown bots {unknown}; choose from {', '.join(NAMES)}")
        if options["matches"] < 1 or options["length"] < 1:
            raise CommandError("--matches and --length must be at least 1")
        every = options["progress"]

        def progress(report):
            if every and len(report.matches) % every == 0:
                self.stdout.write(self.line(report.summary()))
                self.stdout.flush()

        for bot in bots:
            report = self_play(
                bot, options["matches"], options["length"], options["seed"], options["level"],
                on_match=progress,
            )  # fmt: skip
            self.stdout.write(self.line(report.summary()))

    @staticmethod
    def line(s: dict) -> str:
        return (
            f"{s['bot']}: {s['matches']} matches, {s['one_game_share']:.1%} decided in one game, "
            f"{s['games_per_match']:.2f} games per match, highest cube {s['highest_cube']} "
            f"(median {s['median_highest_cube']:g}); {s['decisions']} cube decisions "
            f"({s['doubles']} doubles, {s['takes']} takes, {s['drops']} drops), "
            f"{s['wrong_decisions']} wrong; cube error {s['mean_error'] * 1000:.1f} mEMG "
            f"per decision, {s['mean_error_when_wrong'] * 1000:.1f} per wrong one, "
            f"max {s['max_error'] * 1000:.1f}"
        )
