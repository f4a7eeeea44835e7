"""`make run` holds a table of friends: the processes of the Makefile's own recipe.

The test runs `make run` itself (on a free port, with a SQLite file and the
broker's folders in a temporary folder), so the web server, the three
workers and the beat are started by the recipe's own lines. Twelve players
act at once through the JSON API for a minute: four rooms played by link
between two people (matches to 3, with the cube: rolls, doubles, takes and
drops) and four against the computer, while another process sends the
sweeps through the embedded broker every half second and the beat runs the
follow-up sweep every two. Then:

- no answer is a 5xx, and no worker died or retried on a locked database;
- every acknowledged action is stored exactly once: each player's own Turn
  rows, in order, are the actions the site answered 200 to;
- SIGTERM to `make run`'s process group (what a service manager or a
  terminal's Ctrl-C sends) ends every process it started within seconds.
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

from games.engine import Position, legal_plays
from tests.helpers import free_port, missing

ROOT = Path(__file__).resolve().parents[1]
PLAY_SECONDS = 60
LINK_ROOMS = 4
BOTS = ("domador", "chofer", "carcelero", "chofer")
STARTUP_SECONDS = 120  # a fresh database is migrated first
STOP_SECONDS = 15  # the launcher kills what is left after 10
ENGINE_KINDS = {"roll", "double", "take", "drop", "play"}


@dataclass
class Action:
    kind: str
    body: dict[str, Any]
    status: int
    seconds: float
    answer: Any


@dataclass
class Player:
    base: str
    name: str
    rng: random.Random
    statuses: Counter[int] = field(default_factory=Counter)
    actions: list[Action] = field(default_factory=list)
    slug: str = ""
    seat: int = 0

    def __post_init__(self) -> None:
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        csrf = next((c.value for c in self.cookies if c.name == "csrftoken"), "")
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                "X-CSRFToken": csrf,
            },
        )
        try:
            with self.opener.open(request, timeout=60) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        except OSError:
            status, text = 599, b""  # no answer at all
        self.statuses[status] += 1
        try:
            return status, json.loads(text or b"null")
        except ValueError:
            return status, None

    def open_room(self, bot: str | None) -> None:
        self.request("GET", "/")  # the csrftoken cookie
        rules = {"format": "single"} if bot else {"format": "match", "length": 3}
        status, state = self.request(
            "POST", "/api/rooms", {"nickname": self.name, "rules": rules, "bot": bot}
        )
        assert status == 201, (status, state)
        self.slug, self.seat = state["room"]["slug"], 1

    def join(self, host: "Player") -> None:
        self.request("GET", "/")
        status, state = self.request(
            "POST", f"/api/rooms/{host.slug}/join", {"nickname": self.name}
        )
        assert status == 200, (status, state)
        self.slug, self.seat = host.slug, 2

    def choose(self, state: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """What a person at this seat does now (None: wait for the other side)."""
        match = state.get("match")
        if not match:
            return None
        allowed, version = match["allowed"], state["version"]
        if "rematch_accept" in allowed:
            return "rematch_accept", {}
        if "rematch_offer" in allowed and self.seat == 1:
            return "rematch_offer", {}
        if "take" in allowed:
            return self.rng.choice(["take", "take", "drop"]), {"version": version}
        if "double" in allowed and self.rng.random() < 0.15:
            return "double", {"version": version}
        if "roll" in allowed:
            return "roll", {"version": version}
        if "play" in allowed:
            position = Position(tuple(match["position"]["me"]), tuple(match["position"]["them"]))
            plays = legal_plays(position, tuple(match["dice"]))
            if plays:
                play = [list(step) for step in self.rng.choice(plays)]
                return "play", {"version": version, "play": play}
        return None

    def play(self, stop: threading.Event) -> None:
        while not stop.is_set():
            status, state = self.request("GET", f"/api/rooms/{self.slug}/")
            choice = self.choose(state) if status == 200 else None
            if choice is None:
                stop.wait(0.3)
                continue
            kind, body = choice
            started = time.monotonic()
            status, answer = self.request("POST", f"/api/rooms/{self.slug}/actions/{kind}", body)
            self.actions.append(Action(kind, body, status, time.monotonic() - started, answer))
            if status >= 500:
                stop.wait(1)  # as the board does after a 503: wait, read again


def run_env(folder: Path, port: int) -> dict[str, str]:
    """Only what a person's shell holds, and the run's own folder: no CI variable
    (its PostgreSQL, its Redis) reaches the embedded defaults."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
    return {
        **{name: os.environ[name] for name in keep if name in os.environ},
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_DIR": str(folder / "celery"),
        "SITE_URL": f"http://127.0.0.1:{port}",
        # Twelve players from one address: a club behind one router.
        "MESA_RATE_LIMIT_SCALE": "20",
        # The beat's follow-up sweep and bot nudge every 2 s instead of every minute.
        "FOLLOW_UP_SWEEP_SECONDS": "2",
    }


def processes_of(session: int) -> dict[int, str]:
    """The live processes of a session (zombies are gone: only their exit status is left)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, sid = fields[0], int(fields[3])
        if sid == session and state != "Z":
            found[int(entry.name)] = command.strip()
    return found


def wait_until_up(base: str, run: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert run.poll() is None, f"make run ended:\n{log.read_text()[-3000:]}"
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(
        f"make run did not answer in {STARTUP_SECONDS} s:\n{log.read_text()[-3000:]}"
    )


def stored_actions(database: Path, slug: str, seat: int) -> list[tuple[str, Any]]:
    """The seat's own Turn rows (not the table's automatic ones), in order."""
    with sqlite3.connect(database) as db:
        rows = db.execute(
            """
            SELECT turn.kind, turn.steps FROM games_turn turn
            JOIN games_game game ON turn.game_id = game.id
            JOIN games_match match ON game.match_id = match.id
            JOIN games_room room ON match.room_id = room.id
            JOIN games_seat seat ON turn.seat_id = seat.id
            WHERE room.slug = ? AND seat.number = ? AND NOT turn.automatic
            ORDER BY match.number, game.number, turn.number
            """,
            (slug, seat),
        ).fetchall()
    return [
        (kind, sorted(map(tuple, json.loads(steps))) if kind == "play" else None)
        for kind, steps in rows
        if kind in ENGINE_KINDS  # not the next game a match starts on its own
    ]


def acknowledged_actions(player: Player) -> list[tuple[str, Any]]:
    return [
        (action.kind, sorted(map(tuple, action.body["play"])) if action.kind == "play" else None)
        for action in player.actions
        if action.status == 200 and action.kind in ENGINE_KINDS
    ]


def first_difference(stored: list[Any], acknowledged: list[Any]) -> str:
    at = next(
        (i for i, pair in enumerate(zip(stored, acknowledged, strict=False)) if pair[0] != pair[1]),
        min(len(stored), len(acknowledged)),
    )
    return (
        f"{len(stored)} stored, {len(acknowledged)} acknowledged, from #{at}: "
        f"stored {stored[at : at + 3]}, acknowledged {acknowledged[at : at + 3]}"
    )


def test_make_run_serves_twelve_players_and_its_sweeps_and_stops_on_sigterm(tmp_path):
    if not Path("/proc/self/stat").exists():
        missing("no /proc: the test finds the processes of `make run` there")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "make-run.log"
    env = run_env(tmp_path, port)
    with log.open("wb") as output:
        run = subprocess.Popen(
            ["make", "--no-print-directory", "run", f"RUN_ADDR=127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own session and process group, as a terminal gives it
        )
    try:
        wait_until_up(base, run, log)
        rng = random.Random(34)
        players: list[Player] = []
        for index in range(LINK_ROOMS):
            host = Player(base, f"anfitrion{index}", random.Random(rng.random()))
            guest = Player(base, f"invitado{index}", random.Random(rng.random()))
            host.open_room(bot=None)
            guest.join(host)
            players += [host, guest]
        for index, bot in enumerate(BOTS):
            human = Player(base, f"humano{index}", random.Random(rng.random()))
            human.open_room(bot=bot)
            players.append(human)

        sweeper = subprocess.Popen(
            [sys.executable, "-m", "tests.sweeper", str(PLAY_SECONDS)],
            cwd=ROOT,
            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings.base", "DEBUG": "true"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        stop = threading.Event()
        threads = [threading.Thread(target=player.play, args=(stop,)) for player in players]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(PLAY_SECONDS)
        stop.set()
        for thread in threads:
            thread.join(90)
        seconds = time.monotonic() - started
        sweeps_output, _ = sweeper.communicate(timeout=60)
        load = os.getloadavg()[0]

        statuses = sum((player.statuses for player in players), Counter())
        actions = [action for player in players for action in player.actions]
        kinds = Counter(action.kind for action in actions if action.status == 200)
        failed = [a for a in actions if a.status >= 500]
        times = sorted(action.seconds for action in actions)
        latency = times[-1] if times else 0.0
        p95 = times[int(len(times) * 0.95)] if times else 0.0
        mismatched = {
            f"{player.slug}/{player.seat}": first_difference(stored, acknowledged)
            for player in players
            if (stored := stored_actions(tmp_path / "db.sqlite3", player.slug, player.seat))
            != (acknowledged := acknowledged_actions(player))
        }
        output = log.read_text(errors="replace")
        summary = (
            f"{len(players)} players, {len(actions)} actions in {seconds:.0f} s "
            f"({dict(kinds)}), 5xx: {len(failed)} "
            f"({len(failed) / max(len(actions), 1):.1%}), "
            f"action p95 {p95:.2f} s, max {latency:.2f} s, "
            f"statuses {dict(statuses)}, load {load:.2f}; "
            f"{sweeps_output.decode().strip().splitlines()[-1:]}; locked in the log: "
            f"{output.count('database is locked')}; stored != acknowledged: {mismatched}"
        )
        print(summary)

        assert sweeper.returncode == 0, sweeps_output.decode()
        assert kinds["play"] > 50 and kinds["roll"] > 10, summary
        # The bots' worker answered each human against the computer, over and over.
        against_bots = players[2 * LINK_ROOMS :]
        assert all(
            sum(a.kind == "play" and a.status == 200 for a in human.actions) >= 5
            for human in against_bots
        ), summary
        assert not failed, summary
        assert statuses[599] == 0, summary
        assert not mismatched, f"stored != acknowledged (stored, acknowledged): {mismatched}"
        assert "database is locked" not in output, summary
        assert "Unrecoverable error" not in output, output[-3000:]
        assert "Traceback" not in output, output[-5000:]
    finally:
        session = run.pid
        before = processes_of(session)
        os.killpg(session, signal.SIGTERM)
        signalled = time.monotonic()
        deadline = signalled + STOP_SECONDS
        while processes_of(session) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = processes_of(session)
        print(
            f"{len(before)} processes before SIGTERM, {len(left)} left "
            f"{time.monotonic() - signalled:.1f} s after it"
        )
        for pid in left:
            os.kill(pid, signal.SIGKILL)  # leave nothing behind, then say so
        run.wait(10)
    assert len(before) >= 6, before  # make, its shell, the web server, the three workers
    assert not left, f"still running {STOP_SECONDS} s after SIGTERM: {left}"
