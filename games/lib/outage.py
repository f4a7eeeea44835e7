"""A service seen failing, remembered for a moment: one log line, not a storm.

The request path touches Redis (the cache, the rate limits, the broker's
publish after a commit) and PostgreSQL. When one of them is away, every
request of every thread meets the same error: logging each with its traceback
buries the log, and waiting on each one's timeout holds every thread.

An `Outage` is shared by the threads of a process. `failed()` notes an error
and logs one line at most every `log_every` seconds (with how many more
failures it did not log); `skipping()` tells the caller, for `skip_for`
seconds after a failure, to not even try and take its fail-open answer at
once; `ok()` after a success logs one line that the service is back.
`monotonic` is a module attribute so a test can move time; `reset_all`
forgets every outage (the suite does it between tests).
"""

from __future__ import annotations

import logging
import threading
import time

monotonic = time.monotonic
_every: list[Outage] = []


def reset_all() -> None:
    for outage in _every:
        outage.reset()


class Outage:
    def __init__(
        self,
        what: str,
        logger: logging.Logger,
        *,
        meanwhile: str = "",
        skip_for: float = 0.0,
        log_every: float = 30.0,
    ) -> None:
        self.what = what
        self.meanwhile = meanwhile  # what the caller does instead, for the log line
        self.logger = logger
        self.skip_for = skip_for
        self.log_every = log_every
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._skip_until = 0.0
        self._logged_at: float | None = None
        self._unlogged = 0
        self.failures = 0  # since the process started: tests and the operator read it
        self.reason = ""
        _every.append(self)

    def reset(self) -> None:
        with self._lock:
            self._down_since, self._skip_until, self._logged_at = None, 0.0, None
            self._unlogged, self.failures, self.reason = 0, 0, ""

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def skipping(self) -> bool:
        """True for `skip_for` seconds after a failure: answer without trying."""
        return self._down_since is not None and monotonic() < self._skip_until

    def failed(self, error: BaseException) -> None:
        """Note one failure; log it unless a line went out less than `log_every` ago."""
        now = monotonic()
        with self._lock:
            self.failures += 1
            self.reason = f"{type(error).__name__}: {error}"
            if self._down_since is None:
                self._down_since = now
            self._skip_until = now + self.skip_for
            if self._logged_at is not None and now - self._logged_at < self.log_every:
                self._unlogged += 1
                return
            self._logged_at, unlogged, self._unlogged = now, self._unlogged, 0
        more = f" ({unlogged} more failures since the last line)" if unlogged else ""
        self.logger.warning(
            "%s unavailable (%s): %s%s", self.what, self.meanwhile, self.reason, more
        )

    def ok(self) -> None:
        """A call went through: if the service was down, say once that it is back."""
        if self._down_since is None:
            return
        with self._lock:
            if self._down_since is None:
                return
            seconds = monotonic() - self._down_since
            self._down_since, self._logged_at, unlogged, self._unlogged = (
                None,
                None,
                self._unlogged,
                0,
            )
        self.logger.warning(
            "%s back after %.1f s (%d failures not logged)", self.what, seconds, unlogged
        )
