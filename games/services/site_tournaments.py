"""The site's own tournaments: a small stated set always open to join (the beat's).

Each standing tournament has a key; when none with that key is open, the
sweep opens the next one. One that fills starts at once and the next opens on
the sweep after; one that has not filled by its start is cancelled by the
start sweep (games.services.tournaments.tournament_start_due), which tells
those who joined. Two beats running this at once make one of each: a unique
index admits one open tournament per key, and the loser's insert fails.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from games.lib import clock
from games.models import Tournament
from games.services.tournaments import tournament_create


@dataclass(frozen=True)
class SiteTournament:
    key: str
    name: str
    kind: str
    capacity: int
    lengths: tuple[int, ...]
    opens_for: timedelta
    minimum: int | None = None
    days_per_move: int = 2
    rating_min: int | None = None
    rating_max: int | None = None


KNOCKOUT, LEAGUE = Tournament.Kind.KNOCKOUT.value, Tournament.Kind.LEAGUE.value

# Always open: a daily knockout and a weekly league for anyone, and a knockout
# for each rating band (newcomers start at 1500).
SITE_TOURNAMENTS = (
    SiteTournament(
        "daily-knockout-5", "Eliminatoria del día, a 5", KNOCKOUT, 8, (5,), timedelta(days=1)
    ),
    SiteTournament(
        "weekly-league-3", "Liga de la semana, a 3", LEAGUE, 8, (3,), timedelta(days=7), minimum=4
    ),
    SiteTournament(
        "band-up-to-1500",
        "Copa de quien empieza (hasta 1500)",
        KNOCKOUT,
        8,
        (3,),
        timedelta(days=3),
        rating_max=1500,
    ),
    SiteTournament(
        "band-1500-1700",
        "Copa intermedia (1500 a 1700)",
        KNOCKOUT,
        8,
        (5,),
        timedelta(days=3),
        rating_min=1500,
        rating_max=1700,
    ),
    SiteTournament(
        "band-from-1700",
        "Copa de expertos (desde 1700)",
        KNOCKOUT,
        16,
        (5, 7),
        timedelta(days=7),
        days_per_move=3,
        rating_min=1700,
    ),
)


def open_site_keys_query() -> "QuerySet[Tournament, str]":
    """The keys of the standing tournaments open now (on the unique index of open keys)."""
    keys = [spec.key for spec in SITE_TOURNAMENTS]
    return (
        Tournament.objects.filter(status=Tournament.Status.OPEN, site_key__in=keys)
        .exclude(site_key="")  # the index's own condition, so the planner may use it
        .values_list("site_key", flat=True)
    )


def keep_site_tournaments_open() -> int:
    """Open the next of every standing tournament that has none open; how many it opened."""
    open_now = set(open_site_keys_query())
    opened = 0
    now = clock.now()
    for spec in SITE_TOURNAMENTS:
        if spec.key in open_now:
            continue
        try:
            with transaction.atomic():
                tournament_create(
                    host=None,
                    name=spec.name,
                    kind=spec.kind,
                    capacity=spec.capacity,
                    minimum=spec.minimum,
                    lengths=list(spec.lengths),
                    days_per_move=spec.days_per_move,
                    rating_min=spec.rating_min,
                    rating_max=spec.rating_max,
                    starts_at=now + spec.opens_for,
                    site_key=spec.key,
                )
        except IntegrityError:
            continue  # another beat opened it a moment ago
        opened += 1
    return opened
