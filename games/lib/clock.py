"""The site's single source of "now".

Services, selectors and sweeps ask `now()` instead of `timezone.now()` so a
test can move time forward by days (absence claims, reminders, expiry)
without sleeping or patching Django. Like `PasswordResetTokenGenerator._now`.
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
