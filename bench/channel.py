"""static/js/channel.js's roomChannel without its fetch, for the clients that play
the board (bench/load's and scripts/chaos's): the message id it sends back,
what an answer means, the version a message names, and its minute of rest
after a failure."""

from __future__ import annotations

import math
import re
import time
from datetime import timedelta
from email.utils import format_datetime, parsedate_to_datetime

REST = 60.0  # channel.js's REST_MS: a broken channel is left alone this long
PULSE = re.compile(r"(\d+):\d+:\d+:\d+(?::\d+)?")  # channel.js's pulseVersion


def pulse_version(text: str) -> int | None:
    """The room's version a message's pulse names (channel.js's pulseVersion)."""
    found = PULSE.fullmatch(text.strip())
    return int(found[1]) if found else None


class ChannelWaits:
    """One board's place on its room's channel."""

    def __init__(self, page_date: str | None = None) -> None:
        self.last: tuple[str, str | None] | None = None  # Last-Modified, Etag
        if page_date is not None:  # the page's channelSince: a second before its state
            since = parsedate_to_datetime(page_date) - timedelta(seconds=1)
            self.last = (format_datetime(since, usegmt=True), "0")
        self.rest_until = -math.inf
        self.news: int | None = None  # the version the last message named

    def resting(self) -> bool:
        return time.monotonic() < self.rest_until

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "text/plain"}
        if self.last is not None:
            headers["If-Modified-Since"] = self.last[0]
            if self.last[1] is not None:
                headers["If-None-Match"] = self.last[1]
        return headers

    def heard(self, status: int, modified: str | None, tag: str | None, body: str = "") -> str:
        """ "message", "quiet" or "broken" (then resting), for one answer."""
        if status in (408, 304):
            return "quiet"
        if status != 200 or not modified or self.last == (modified, tag):
            return self.broken()
        self.last = (modified, tag)
        self.news = pulse_version(body)
        return "message"

    def broken(self) -> str:
        self.last = None
        self.rest_until = time.monotonic() + REST
        return "broken"
