"""The site's single source of "now".

Services, selectors and sweeps ask `now()` instead of `timezone.now()` so a
test can move time forward by days (absence claims, reminders, expiry)
without sleeping or patching Django. Like `PasswordResetTokenGenerator._now`.

Tests move time with this clock (the `clock` fixture), and with time-machine in
four tests of accounts only, where this clock cannot reach. This one moves the
site's "now" alone, so a test jumps two days while the rest of the process
keeps real time (the live server's sessions and caches, the timeouts of Redis,
Celery and the browser's driver), as other processes and the database do
anyway. time-machine moves the whole process's time.time(), which is what
Django's own code reads where accounts depends on time: a signed link's age
(signing's max_age) and a rate limit's window (a cache entry's expiry). Those
readers ask no clock of ours, and accounts never imports games.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.utils import timezone

_source: Callable[[], datetime] = timezone.now


def now() -> datetime:
    return _source()


@contextmanager
def frozen(at: datetime) -> Iterator["FrozenClock"]:
    """Stop the clock at `at` inside the block; `tick()` moves it on."""
    clock = FrozenClock(at)
    with use(clock):
        yield clock


@contextmanager
def use(source: Callable[[], datetime]) -> Iterator[None]:
    global _source
    previous, _source = _source, source
    try:
        yield
    finally:
        _source = previous


class FrozenClock:
    def __init__(self, at: datetime):
        if timezone.is_naive(at):
            raise ValueError("the clock needs an aware datetime")
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def tick(self, delta: timedelta) -> datetime:
        self.at += delta
        return self.at
