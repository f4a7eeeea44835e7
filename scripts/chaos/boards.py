"""The players' boards, waiting: each polls the room's state as the real board does,
and notes when it first saw each move of the other player.

Behind the front the board waits on its room's channel in nginx
(static/js/channel.js): GET /live/rooms/<slug>, held by nchan until the
room's next pulse, sending back the last message's id; after a message that
names a newer version it reads the state as a ?wait= from its own (answered
at once: controller.js), after any other message or nchan's 408 without
waiting. A channel that answers
anything else (Redis away: nchan's 5xx; nginx gone) is left alone for 60 s,
and meanwhile the board long polls as below.

The long poll, the fallback: static/js/poll.js's livePoll around
static/js/board/api.js's state(): one GET /api/rooms/<slug>/?wait=<version>
at a time, with the ETag (If-None-Match) and the pass (X-Mesa-Pass) of its
last answer. A held answer (news, or one that took 3 s or more) is followed
by the next request at once; one that came back at once with nothing new
means the server would not hold it, and the next waits 1 s, then 1.5 times
longer each time up to 20 s; an error (a 5xx, a dropped connection: api.js
throws) waits 20 s. A held request
whose uvicorn dies is not the board's to retry: nginx sends it on to gunicorn
(proxy_next_upstream error timeout, mesa_live's backup), which answers it.
"""

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.channel import ChannelWaits
from games.models import Match
from scripts.chaos.env import SITE, db
from scripts.chaos.players import GATEWAY, STATUS_LOCK, STATUSES, TLS, Player
from scripts.chaos.polling import FAST, HELD, Owed, from_the_gateway, next_poll

REREAD = 600.0  # channel.js: a quiet board reads its state this often
HEARD = ("message", "quiet", "broken")


class Board(threading.Thread):
    """One seat's board, polling in a thread of its own until stopped."""

    def __init__(self, player: Player):
        super().__init__(daemon=True, name=f"board-{player.name}")
        self.player = player
        # The seat's browser: its cookies, but a connection of the board's own.
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(player.cookies),
            urllib.request.HTTPSHandler(context=TLS),
        )
        self.etag: str | None = None
        self.live_pass: str | None = None
        self.version: int | None = None
        self.owed = Owed()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.requests = self.held = self.errors = 0
        self.waits = ChannelWaits()  # its place on the room's channel
        self.heard = dict.fromkeys(HEARD, 0)
        self.read = time.monotonic()  # its last read of the state

    def listen(self) -> str:
        """channel.js's next(): one wait on the room's channel, "message", "quiet"
        (nchan's 408 after 90 s) or "broken" (then left alone for 60 s)."""
        if self.waits.resting():
            return "broken"
        url = f"{SITE}/live/rooms/{self.player.slug}"
        request = urllib.request.Request(url, headers=self.waits.headers())
        body = b""
        try:
            with self.opener.open(request, timeout=150) as response:
                status, given = response.status, response.headers
                body = response.read()
        except urllib.error.HTTPError as error:
            status, given = error.code, error.headers
        except OSError:
            status, given = 599, None
        modified = given.get("Last-Modified") if given is not None else None
        tag = given.get("Etag") if given is not None else None
        return self.waits.heard(status, modified, tag, body.decode("latin-1"))

    def refresh(self, wait: bool) -> bool:
        """api.js state() and controller.js refresh(): True when the version changed."""
        headers = {"Accept": "application/json"}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if wait and self.live_pass:
            headers["X-Mesa-Pass"] = self.live_pass
        path = f"/api/rooms/{self.player.slug}/"
        if wait and self.version is not None:
            path += f"?wait={self.version}"
        request = urllib.request.Request(f"{SITE}{path}", headers=headers)
        try:
            # Above nginx's proxy_read_timeout (55 s): nginx answers first.
            with self.opener.open(request, timeout=60) as response:
                status, text, given = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, text, given = error.code, error.read(), error.headers
        except OSError:
            status, text, given = 599, b"", None
        if from_the_gateway(status, text):
            status = GATEWAY
        with STATUS_LOCK:
            STATUSES[status if status in (GATEWAY, 599) else status // 100 * 100] += 1
        self.requests += 1
        if given is not None and given.get("X-Mesa-Pass"):
            self.live_pass = given["X-Mesa-Pass"]
        if status == 304:
            return False
        if status != 200:
            raise ConnectionError(f"state answered {status}")
        state = json.loads(text)
        self.etag = given.get("ETag") if given is not None else None
        if self.version is None and given is not None and given.get("Date"):
            self.waits = ChannelWaits(given["Date"])  # the page's channelSince
        changed = state["version"] != self.version
        self.version = state["version"]
        with self.lock:
            self.owed.saw(self.version, time.time())
        return changed

    def run(self) -> None:
        delay, pause = FAST, 0.0
        while not self.stopping.wait(pause):
            started = time.monotonic()
            try:
                heard = self.listen()
                self.heard[heard] += 1
                waited = time.monotonic() - started
                if heard == "broken":
                    changed, failed = self.refresh(wait=True), False
                    self.read = time.monotonic()
                elif heard == "quiet" and waited >= HELD and time.monotonic() - self.read < REREAD:
                    changed, failed = True, False  # channel.js: no read before REREAD
                else:  # channel.js's channelCheck; controller.js's read after a message
                    news = self.waits.news if heard == "message" else None
                    ahead = news is not None and self.version is not None and news > self.version
                    changed = self.refresh(wait=ahead)
                    changed, failed = heard == "message" or waited >= HELD or changed, False
                    self.read = time.monotonic()
            except (ConnectionError, ValueError, KeyError):
                changed, failed = False, True
                self.errors += 1
            took = time.monotonic() - started
            self.held += took >= HELD
            delay, pause = next_poll(delay, changed=changed, took=took, failed=failed)

    def owe(self, version: int, acknowledged: float) -> None:
        with self.lock:
            self.owed.owe(version, acknowledged)

    def unseen(self) -> int:
        with self.lock:
            return len(self.owed.waiting)


def seat_of(player: Player) -> tuple[str, int]:
    """(room slug, seat number): a seated player's board."""
    assert player.slug is not None and player.seat is not None, "not seated"
    return player.slug, player.seat.number


class Boards:
    """The boards of a scenario, by room and seat: a move acknowledged to one seat is
    owed to the other seat's board."""

    def __init__(self, access_log: Path) -> None:
        self.by_seat: dict[tuple[str, int], Board] = {}
        # nginx's access log: the held polls it had to send to a second server.
        self.access_log = access_log
        self.log_from = access_log.stat().st_size if access_log.exists() else 0

    def open(self, players: list[Player]) -> None:
        for player in players:
            board = Board(player)
            board.refresh(wait=False)  # the page as drawn: its state, ETag and pass
            self.by_seat[seat_of(player)] = board
        for board in self.by_seat.values():
            board.start()

    def moved(self, player: Player, version: int, acknowledged: float) -> None:
        slug, number = seat_of(player)
        for (room, seat), board in self.by_seat.items():
            if room == slug and seat != number:
                board.owe(version, acknowledged)

    def settled(self) -> bool:
        return all(board.unseen() == 0 for board in self.by_seat.values())

    def behind(self) -> list[str]:
        """The rooms whose board does not show the room's version now: moves nobody
        acknowledged to a player (the computer's) are owed as well as theirs."""
        versions = db(
            lambda: dict(
                Match.objects.filter(room__slug__in={slug for slug, _ in self.by_seat})
                .order_by("room_id", "-number")
                .distinct("room_id")
                .values_list("room__slug", "version")
            )
        )
        return [
            slug
            for (slug, _seat), board in self.by_seat.items()
            if board.version != versions.get(slug)
        ]

    def close(self) -> None:
        for board in self.by_seat.values():
            board.stopping.set()
        for board in self.by_seat.values():
            board.join(70)

    def lateness(self) -> list[float]:
        return [late for board in self.by_seat.values() for late in board.owed.late]

    def unseen(self) -> int:
        return sum(board.unseen() for board in self.by_seat.values())

    def failed_over(self) -> int:
        """Held polls nginx sent on to gunicorn after uvicorn failed them: two upstream
        times in the line ("0.000, 1.234"), since the boards opened."""
        with self.access_log.open("rb") as lines:
            lines.seek(self.log_from)
            return sum(1 for line in lines if b"?wait=" in line and b", " in line.split(b'"')[-1])

    def summary(self) -> str:
        """The boards' polls: how many, how many held, how many failed or went on to
        gunicorn; the median lateness."""
        boards = self.by_seat.values()
        seen = sorted(self.lateness())
        median = f", median {seen[len(seen) // 2]:.1f} s late" if seen else ""
        heard = {
            what: sum(b.heard[what] for b in boards) for what in ("message", "quiet", "broken")
        }
        return (
            f"{len(self.by_seat)} boards, channel waits: {heard['message']} messages, "
            f"{heard['quiet']} quiet, {heard['broken']} on the fallback; "
            f"{sum(b.requests for b in boards)} state reads "
            f"({sum(b.held for b in boards)} held 3 s+, {sum(b.errors for b in boards)} "
            f"failed, {self.failed_over()} sent on to gunicorn by nginx){median}"
        )
