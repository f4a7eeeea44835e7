"""What the harness decides without a server: the board's poll timing
(static/js/poll.js), the moves a board owes, nginx's own error pages, a push
sender gone before its answer. Free of the run's settings (scripts.chaos.env):
tests/test_chaos_polling.py."""

import select
import socket
from dataclasses import dataclass, field


def from_the_gateway(status: int, body: bytes) -> bool:
    """nginx's own answer for an upstream that died mid-request (its HTML page), not
    the app's (always JSON on the API): for the board, the same as a dropped
    connection, the app never answered."""
    return status in (502, 504) and not body.lstrip().startswith(b"{")


def sender_gone(connection: socket.socket) -> bool:
    """The client closed its end (a process that died does): readable, and at its end."""
    readable, _, _ = select.select([connection], [], [], 0)
    try:
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


# static/js/poll.js's livePoll defaults (the board passes none of its own).
FAST, SLOW, FACTOR, HELD = 1.0, 20.0, 1.5, 3.0


def next_poll(delay: float, *, changed: bool, took: float, failed: bool) -> tuple[float, float]:
    """livePoll's step: (its new delay, the pause before the next request)."""
    if failed:
        return SLOW, SLOW  # offline or the server is away: try again later
    if changed or took >= HELD:
        return FAST, 0.0
    delay = min(delay * FACTOR, SLOW)
    return delay, delay


@dataclass
class Owed:
    """Moves a board has yet to show: (version it must reach, when the move was acknowledged)."""

    waiting: list[tuple[int, float]] = field(default_factory=list)
    late: list[float] = field(default_factory=list)  # each seen move's lateness
    shown: int = -1  # the newest version the board showed

    def owe(self, version: int, acknowledged: float) -> None:
        if version <= self.shown:  # the board showed it before the mover heard back
            self.late.append(0.0)
        else:
            self.waiting.append((version, acknowledged))

    def saw(self, version: int, at: float) -> None:
        """The board showed `version` at `at`: every move up to it is seen; a board
        that showed it before the mover heard back was 0 s late."""
        self.shown = max(self.shown, version)
        still = []
        for owed, acknowledged in self.waiting:
            if version >= owed:
                self.late.append(max(0.0, at - acknowledged))
            else:
                still.append((owed, acknowledged))
        self.waiting = still
