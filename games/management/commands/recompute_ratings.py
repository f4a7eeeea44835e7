"""Rate every match again from the match records and compare with the stored ratings.

    python manage.py recompute_ratings

Replays the FIBS formula over every rated match (Match.rated_length set),
in the order they ended, from 1500 and no experience, and compares the
result with each stored Rating and RatingChange, to the last bit. Prints
what it replayed and each difference; exits with an error when there is one.
Reads only: nothing is written.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.selectors import ratings


class Command(BaseCommand):
    help = "Recompute all ratings from the match records and check the stored ones agree."

    def handle(self, *args: Any, **options: Any) -> None:
        found = ratings.check_stored()
        for line in found.differences:
            self.stderr.write(line)
        summary = f"{found.matches} rated matches, {found.players} players"
        if not found.agrees:
            raise CommandError(f"{len(found.differences)} differences ({summary})")
        self.stdout.write(f"The stored ratings agree with the records: {summary}.")
