"""With 1,000 tournaments open (and 3,000 over, with 15,000 matches), every sweep's query and the
list's read an index on PostgreSQL: the plans, printed with -s, are in
docs/TOURNAMENTS.md."""

from datetime import timedelta

import pytest
from django.db import connection

from games.lib import clock as game_clock
from games.models import Tournament, TournamentMatch
from games.selectors import due
from games.selectors import tournaments as read
from games.services import site_tournaments

pytestmark = pytest.mark.django_db


@pytest.fixture
def many(clock):
    if connection.vendor != "postgresql":
        pytest.skip("EXPLAIN output differs on SQLite")
    now = game_clock.now()
    rows = []
    for number in range(1000):
        rows.append(
            Tournament(
                name=f"Abierto {number}",
                kind="knockout",
                capacity=8,
                minimum=8,
                lengths=[5],
                # A few are due now; the rest start over the next weeks.
                starts_at=now + timedelta(minutes=10 * number - 30),
                created_at=now,
                site_key=site_tournaments.SITE_TOURNAMENTS[number].key if number < 5 else "",
            )
        )
    for number in range(3000):
        over = Tournament.Status.FINISHED if number % 2 else Tournament.Status.CANCELLED
        rows.append(
            Tournament(
                name=f"Pasado {number}",
                kind="league",
                status=over,
                capacity=8,
                minimum=4,
                lengths=[3],
                starts_at=now - timedelta(days=30),
                created_at=now - timedelta(days=40),
                started_at=now - timedelta(days=30),
                ended_at=now - timedelta(days=1, minutes=number),
                site_key=site_tournaments.SITE_TOURNAMENTS[number % 5].key,
            )
        )
    Tournament.objects.bulk_create(rows)
    # The finished ones' matches (no rooms: the hook's query looks a room up).
    TournamentMatch.objects.bulk_create(
        TournamentMatch(tournament=row, round=1, index=index, length=3, status="finished")
        for row in rows[1000:]
        for index in range(5)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_tournament")
        cursor.execute("ANALYZE games_tournamentmatch")
    return now


QUERIES = {
    "start-due": lambda: due.tournaments_due_query()[:100],
    "site-open": lambda: site_tournaments.open_site_keys_query(),
    "list-open": lambda: read.open_to_join(Tournament.objects.filter(private=False))[:30],
    "list-finished": lambda: Tournament.objects.filter(
        private=False, status=Tournament.Status.FINISHED
    ).order_by("-ended_at")[:30],
    "match-ended": lambda: TournamentMatch.objects.filter(room_id=1).values_list(
        "tournament_id", flat=True
    ),
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_each_query_reads_an_index_with_a_thousand_open(many, name):
    plan = QUERIES[name]().explain()
    print(f"\n-- {name}\n{plan}")
    assert "Seq Scan" not in plan, plan
    assert "Index" in plan, plan
