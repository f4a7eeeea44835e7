"""The vacation allowance: 30 days per calendar year, counted to the hour. Pure: no Django.

A vacation runs from when it starts to its planned end, or to when the
player came back early (moved in a game, or said so). Each started hour
counts as a whole hour, split at the new year (UTC) when a vacation crosses
it, so a vacation from 28 December to 4 January uses days of both years.
What a vacation does to the games is the clock's business (games' deadlines).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

DAYS_PER_YEAR = 30
HOURS_PER_YEAR = DAYS_PER_YEAR * 24
# The longest a player may ask for at once (the whole year's allowance).
MAX_DAYS = DAYS_PER_YEAR

Span = tuple[datetime, datetime]


def _year_start(year: int) -> datetime:
    return datetime(year, 1, 1, tzinfo=UTC)


def hours_in_year(span: Span, year: int) -> int:
    """Whole hours (a started hour counts) of a vacation that fall in a calendar year.

    >>> start = datetime(2026, 12, 31, 20, tzinfo=UTC)
    >>> hours_in_year((start, start + timedelta(hours=10, minutes=1)), 2026)
    4
    >>> hours_in_year((start, start + timedelta(hours=10, minutes=1)), 2027)
    7
    """
    start, end = span
    start, end = max(start, _year_start(year)), min(end, _year_start(year + 1))
    if end <= start:
        return 0
    return math.ceil((end - start) / timedelta(hours=1))


def hours_used(spans: Iterable[Span], year: int) -> int:
    return sum(hours_in_year(span, year) for span in spans)


def hours_left(spans: Iterable[Span], year: int) -> int:
    return max(0, HOURS_PER_YEAR - hours_used(spans, year))


def fits(spans: Iterable[Span], new: Span) -> bool:
    """The new vacation fits what is left of each calendar year it touches."""
    spans = list(spans)
    start, end = new
    if end <= start:
        return False
    return all(
        hours_used(spans, year) + hours_in_year(new, year) <= HOURS_PER_YEAR
        for year in range(start.astimezone(UTC).year, end.astimezone(UTC).year + 1)
    )
