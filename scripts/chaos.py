"""`make chaos`: the fault scenarios against real processes on 127.0.0.1.

Starts, in a temporary folder: a PostgreSQL of its own (initdb, so that it
may restart it and terminate its backends; never the machine's shared one),
a Redis of its own (append-only file, so a stop and start keeps what it
held, as a production Redis would; the broker and, as in production, the
cache, CACHE_URL), gunicorn as the README deploys it (3 gthread workers ×
20 threads, config/gunicorn.conf.py), a Celery worker for bots and sweeps,
one for mail, one for the analysis, beat, and an SMTP server in this process that it can hang (a
socket that accepts and never answers), stop, and make lose its answers (it
keeps the message, the "250" comes after EMAIL_TIMEOUT). Ports from
CHAOS_PORT_BASE (18200): web, Redis, SMTP, PostgreSQL are base+0..3.

Scenarios (`--only NAME[,NAME]` runs some; all by default):

  redis-stop    Redis (broker and cache) stopped 45 s while people move, join
                and open rooms against the computer
  worker-kill   the bots' worker SIGKILLed again and again mid turn
  web-kill      a gunicorn worker SIGKILLed 6 times with actions in flight
  postgres      PostgreSQL restarted (pg_ctl restart -m fast) and its
                backends terminated while people and the computer play
  two-beats     a second beat for the whole scenario, sweeps every 15 s, and
                the deadlines of the games moved back in the database (the
                reminder, "ya puedes cerrar", closing by absence, the digest,
                a room's expiry all fall due)
  smtp          SMTP hung, then down for "20 minutes", then losing its answers
  redis-empty   Redis SIGKILLed and started again empty (no persistence)
  postgres-stop PostgreSQL stopped 20 s as turn emails fall due and the
                computer plays, then its backends terminated
  redis-kill    Redis SIGKILLed and started again on its append-only file

Every scenario prints the same columns: moves sent / acknowledged (200) /
stored (in the turn log); saved but told it failed (an HTTP error for a move
that is stored); bot turns owed / played and the latest lateness (from the
turn that made it the computer's to the computer's action); emails owed /
delivered / duplicated / unowed (counted from what the SMTP server received,
by address and kind, after the whole run); 5xx answers; games stuck waiting
for the computer. The run fails (exit 1) when a move is saved but told it
failed, a game is stuck, an owed email never came, an email nobody was owed
came, or a duplicate came other than after a lost answer (at most one each),
or an analysis never finished. Beside them, the longest lateness of each kind
of follow-up: a bot's action (from the person's action before it), each kind
of email (from when it fell due: "Es tu turno" 60 s after the turn passed,
the others when their event happened; to its arrival at the SMTP server),
an analysis (asked for to done); what fell due during an outage of some
length (Redis stopped, PostgreSQL stopped, the mail server away) counts from
the outage's end, and the note gives it from the due time too. Targets
(docs/OPERATIONS.md): a bot within 30 s, everything else within 2 minutes.

The follow-up machinery runs on production's timings (the follow-up sweep,
the bot nudge, the re-drive deadlines, the liveness probe), so its lateness
is what a player would see. Two things are shortened: mail retries start at
4 s instead of 2 minutes (a scale of 1:30, so the SMTP server is down for
40 s = 20 minutes of retries), and the beat's other sweeps (the reminder,
"ya puedes cerrar", the digest, closing by absence) run every 15 s instead
of every 10 minutes or daily (scripts/chaos_settings.py): their emails'
lateness is the shortened sweep's, not production's. The people in the games "leave the board" by
having their last_seen_at set an hour back, so that "Es tu turno" is due.
Every wait has a deadline; everything started is stopped at the end,
whatever happens.
"""

import argparse
import email
import email.policy
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from datetime import timedelta
from http.cookiejar import CookieJar
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# CHAOS_PORT_BASE moves every port of the run together.
PORT_BASE = int(os.environ.get("CHAOS_PORT_BASE", "18200"))
WEB, REDIS, SMTP, PG = PORT_BASE, PORT_BASE + 1, PORT_BASE + 2, PORT_BASE + 3
DATABASE_URL = f"postgres://postgres@127.0.0.1:{PG}/mesa_chaos"
REDIS_URL = f"redis://127.0.0.1:{REDIS}/0"
EMAIL_TIMEOUT = 2
TURN_EMAIL_PAUSE = 60  # games.lib.deadlines: "Es tu turno" leaves 60 s after the turn passed
RUN_DEADLINE = 45 * 60  # the whole run, whatever happens
SETTINGS = {
    "DJANGO_SETTINGS_MODULE": "scripts.chaos_settings",
    "DATABASE_URL": DATABASE_URL,
    "CELERY_BROKER_URL": REDIS_URL,
    # The cache on the broker's Redis, another database: the README's production column.
    "CACHE_URL": f"redis://127.0.0.1:{REDIS}/1",
    "EMAIL_URL": f"smtp://127.0.0.1:{SMTP}",
    "EMAIL_TIMEOUT": str(EMAIL_TIMEOUT),
    "SITE_URL": f"http://127.0.0.1:{WEB}",
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECRET_KEY": "chaos-" + "k" * 50,
    "DEBUG": "false",
    "SECURE_SSL_REDIRECT": "false",
    "GUNICORN_BIND": f"127.0.0.1:{WEB}",
    "WEB_CONCURRENCY": "3",
    # The follow-up machinery runs on production's own timings (the follow-up
    # sweep, the bot nudge, the re-drive deadlines, the workers' liveness
    # probe): the lateness measured here is the lateness a player would see.
    "MESA_WORKER_EXIT_GRACE_SECONDS": "5",
    # Every player of the run comes from 127.0.0.1: one address opening dozens of rooms.
    "MESA_RATE_LIMIT_SCALE": "100",
    "MAIL_RETRY_FIRST_SECONDS": "4",
    "MAIL_RETRY_MAX_SECONDS": "60",
    "MAIL_TRIES": "10",
    "CHAOS_SWEEP_SECONDS": "15",
    "LOG_LEVEL": "WARNING",
    # No collectstatic for a throwaway run: plain static file names.
    "STATICFILES_BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage",
}
os.environ.update(SETTINGS)

import django  # noqa: E402 - the settings above first

django.setup()

from aiosmtpd.controller import Controller  # noqa: E402
from django.db import InterfaceError, OperationalError, connection, transaction  # noqa: E402
from django.db.models import F  # noqa: E402
from django.utils import timezone  # noqa: E402

from games import services  # noqa: E402
from games.engine import MatchState, Phase, legal_plays  # noqa: E402
from games.models import (  # noqa: E402
    FollowUp,
    GameAnalysis,
    Match,
    Room,
    Seat,
    SentEmail,
    Turn,
)
from games.selectors import replay_match  # noqa: E402

STARTED = time.monotonic()


def log(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:6.1f}s] {text}", flush=True)


def wait_until(condition, seconds: float, step: float = 0.5) -> bool:
    deadline = min(time.monotonic() + seconds, STARTED + RUN_DEADLINE)
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def db(read, seconds: float = 90):
    """Run an ORM call, again and again while the database is away (the postgres scenario)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return read()
        except (OperationalError, InterfaceError):
            connection.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


# --- processes ------------------------------------------------------------------


class Processes:
    """Everything this run starts, each in its own process group, stopped at the end.

    Like systemd's Restart=always for the site's own processes: one that exits
    by itself (not killed here) is started again, and counted.
    """

    SUPERVISED = ("web", "bots", "mail", "analysis", "beat", "beat2")

    def __init__(self, folder: Path):
        self.folder = folder
        self.running: dict[str, subprocess.Popen] = {}
        self.argv: dict[str, list[str]] = {}
        self.restarts = Counter()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        threading.Thread(target=self._supervise, daemon=True).start()

    def _supervise(self):
        while not self.stopping.wait(1):
            with self.lock:
                died = [
                    name
                    for name, process in self.running.items()
                    if name in self.SUPERVISED and process.poll() is not None
                ]
                for name in died:
                    log(
                        f"{name} exited by itself "
                        f"(code {self.running[name].returncode}): restarting"
                    )
                    self.restarts[name] += 1
                    self._start(name, self.argv[name])

    def start(self, name: str, argv: list[str]) -> subprocess.Popen:
        with self.lock:
            return self._start(name, argv)

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen:
        out = open(self.folder / f"{name}.log", "ab")  # closed with the process
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**os.environ, **SETTINGS},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.running[name] = process
        self.argv[name] = argv
        return process

    def kill(self, name: str, sig=signal.SIGKILL) -> None:
        with self.lock:
            process = self.running.pop(name, None)
        if process is None:
            return
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def children(self, name: str) -> list[int]:
        """The processes `name` forked (gunicorn's workers)."""
        pid = self.running[name].pid
        try:
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def stop_all(self) -> None:
        self.stopping.set()
        for name in list(self.running):
            self.kill(name, signal.SIGTERM)


def celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", *args, "--loglevel=WARNING"]


def worker(name: str, queues: str, concurrency: int) -> list[str]:
    return celery(
        "worker", "-n", f"{name}@chaos", "-Q", queues, f"--concurrency={concurrency}",
        "--without-gossip", "--without-mingle",
    )  # fmt: skip


def beat(processes: Processes, name: str) -> None:
    schedule = processes.folder / f"{name}-schedule"
    processes.start(name, celery("beat", "--schedule", str(schedule)))


def redis_argv(processes: Processes) -> list[str]:
    return [
        "redis-server",
        "--port", str(REDIS), "--bind", "127.0.0.1",
        "--dir", str(processes.folder / "redis"),
        "--save", "", "--appendonly", "yes", "--appendfsync", "always",
    ]  # fmt: skip


def start_redis(processes: Processes) -> None:
    (processes.folder / "redis").mkdir(exist_ok=True)
    processes.start("redis", redis_argv(processes))
    wait_until(lambda: port_open(REDIS), 10, 0.1)


def start_bots_worker(processes: Processes) -> None:
    processes.start("bots", worker("bots", "bots,sweeps", 2))


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


# --- a PostgreSQL of the run's own ------------------------------------------------


class Postgres:
    """initdb in the run's folder, started on PG; restarted and stopped with pg_ctl."""

    def __init__(self, folder: Path):
        self.data = folder / "pg"
        self.log = folder / "postgres.log"
        bin_dir = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.bin = Path(bin_dir)
        # PostgreSQL refuses to run as root: then it runs as the postgres user.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *argv: str, check: bool = True) -> None:
        subprocess.run(
            [*self.as_user, *argv], check=check, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )

    def init(self) -> None:
        self.data.mkdir()
        if self.as_user:
            os.chmod(self.data.parent, 0o755)
            shutil.chown(self.data, "postgres", "postgres")
            self.log.touch()
            shutil.chown(self.log, "postgres", "postgres")
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
            "--auth=trust", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        self.ctl("start")
        with psycopg.connect(self.url("postgres"), autocommit=True) as server:
            server.execute("CREATE DATABASE mesa_chaos")

    def ctl(self, *action: str) -> None:
        options = (
            f"-p {PG} -c listen_addresses=127.0.0.1 -k {self.data} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
            "-o", options, *action,
        )  # fmt: skip

    def url(self, name: str = "mesa_chaos") -> str:
        return f"postgres://postgres@127.0.0.1:{PG}/{name}"

    def terminate_backends(self) -> int:
        with psycopg.connect(self.url("postgres"), autocommit=True) as server:
            rows = server.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = 'mesa_chaos' AND pid <> pg_backend_pid()"
            ).fetchall()
        return len(rows)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop",
                check=False,
            )  # fmt: skip


# --- the mail server --------------------------------------------------------------


def kind_of(subject: str) -> str:
    """Which email a subject is (templates/emails/*_subject.txt, Spanish)."""
    for words, kind in (
        ("se sentó a tu mesa", "joined"),
        ("Te quedan 24 horas", "reminder"),
        ("Ya puedes cerrar", "claimable"),
        ("Terminó la partida", "ended"),
        ("resumen del día", "digest"),
    ):
        if words in subject:
            return kind
    return "turn"


class Inbox:
    def __init__(self):
        self.received = Counter()  # (address, kind) -> messages
        self.arrivals: dict = {}  # (address, kind) -> when each came (time.time())
        self.lost = Counter()  # (address, kind) -> messages whose answer came too late
        self.lose_next = 0  # this many next messages are kept, and their "250" comes too late

    async def handle_DATA(self, server, session, envelope):
        import asyncio

        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        key = (str(message["To"]), kind_of(str(message["Subject"])))
        self.received[key] += 1
        self.arrivals.setdefault(key, []).append(time.time())
        if self.lose_next > 0:
            self.lose_next -= 1
            self.lost[key] += 1
            await asyncio.sleep(EMAIL_TIMEOUT + 1.5)  # kept, but the "250" comes too late
        return "250 Message accepted"


class MailServer:
    """The SMTP server on SMTP: up, hung (accepts, never speaks) or down."""

    def __init__(self):
        self.inbox = Inbox()
        self.controller = None
        self.hole = None
        self.held = []

    def up(self):
        self._clear()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=SMTP)
        self.controller.start()

    def hung(self):
        self._clear()
        self.hole = socket.socket()
        self.hole.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.hole.bind(("127.0.0.1", SMTP))
        self.hole.listen(50)

        self.hole.settimeout(0.2)
        hole, self.swallowing = self.hole, threading.Event()

        def swallow(stop):
            while not stop.is_set():
                try:
                    connection, _ = hole.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                self.held.append(connection)  # never answered

        self.swallower = threading.Thread(target=swallow, args=(self.swallowing,), daemon=True)
        self.swallower.start()

    def down(self):
        self._clear()

    def _clear(self):
        if self.controller is not None:
            self.controller.stop()
            self.controller = None
        if self.hole is not None:
            self.swallowing.set()
            self.swallower.join()
            self.hole.close()
            self.hole = None
        for held in self.held:
            held.close()
        self.held = []


# --- people on the site --------------------------------------------------------------

STATUSES = Counter()  # every HTTP status the players got, by hundreds (599: no answer)
STATUS_LOCK = threading.Lock()


class Player:
    """One browser: its cookies, its seat, every status it got."""

    def __init__(self, name: str, address: str = ""):
        self.name, self.address = name, address
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.slug = None
        self.seat = None
        self.request("GET", "/")  # the csrftoken cookie

    def request(self, method: str, path: str, body=None):
        csrf = next((c.value for c in self.cookies if c.name == "csrftoken"), "")
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{WEB}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        )
        try:
            with self.opener.open(request, timeout=30) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        except OSError:
            status, text = 599, b""  # no answer at all: the connection died
        with STATUS_LOCK:
            STATUSES[599 if status == 599 else status // 100 * 100] += 1
        try:
            return status, json.loads(text or b"null")
        except ValueError:
            return status, None

    def open_room(self, bot=None, rules=None) -> bool:
        body = {"nickname": self.name, "rules": rules or {}}
        if bot:
            body["bot"] = bot
        status, state = self.request("POST", "/api/rooms", body)
        if status != 201:
            return False
        self.slug = state["room"]["slug"]
        self.seat = db(lambda: Seat.objects.get(room__slug=self.slug, number=1))
        return True

    def join(self, host: "Player") -> bool:
        status, _state = self.request(
            "POST", f"/api/rooms/{host.slug}/join", {"nickname": self.name}
        )
        if status != 200:
            return False
        self.slug = host.slug
        self.seat = db(lambda: Seat.objects.get(room__slug=self.slug, number=2))
        return True

    def match(self) -> Match | None:
        return db(lambda: Match.objects.filter(room__slug=self.slug).order_by("-number").first())

    def turns(self) -> int:
        """The actions of this seat in the turn log (not the table's automatic ones)."""
        return db(lambda: Turn.objects.filter(seat=self.seat, automatic=False).count())

    def next_action(self):
        """(action, body) when it is our turn, else None."""
        match = self.match() if self.slug else None
        if match is None or match.status != Match.Status.PLAYING:
            return None
        if match.turn_seat_id != self.seat.pk:
            return None
        state = MatchState.from_json(match.state)
        side = match.side_of(self.seat)
        body = {"version": match.version}
        if state.phase is Phase.ROLL:
            action = "roll"
        elif state.phase is Phase.DOUBLED:
            action = "take"
        elif state.phase is Phase.RESIGN_OFFERED:
            action = "resign_decline"
        elif state.phase is Phase.MOVE:
            action = "play"
            play = legal_plays(state.position_for(side), state.dice)[0]
            body["play"] = [list(step) for step in play]
        else:
            return None
        return action, body


def leave_the_board(players, notify: str = Seat.Notify.EVERY_TURN) -> None:
    """Everyone listed gives an address, and left the board an hour ago."""
    for player in players:
        db(
            lambda player=player: Seat.objects.filter(pk=player.seat.pk).update(
                email=player.address,
                email_consent=True,
                notify=notify,
                last_seen_at=timezone.now() - timedelta(hours=1),
            )
        )


def on_turn(host: Player, guest: Player) -> Player:
    match = host.match()
    return host if match.turn_seat_id == host.seat.pk else guest


def move_and_owe(report: "Report", host: Player, guest: Player) -> None:
    """The player on turn plays: when the turn passed, the other is owed "Es tu turno";
    when it did not (the move failed), the player is, for the turn still waiting."""
    mover = on_turn(host, guest)
    report.move(mover)
    other = guest if mover is host else host
    report.owe(other.address if on_turn(host, guest) is other else mover.address, "turn")


def rooms_of_two(tag: str, count: int):
    pairs = []
    for index in range(count):
        host = Player(f"h{index}", f"{tag}-{index}-host@chaos.test")
        guest = Player(f"g{index}", f"{tag}-{index}-guest@chaos.test")
        assert host.open_room() and guest.join(host), "setup failed"
        pairs.append((host, guest))
    return pairs


def against_the_computer(tag: str, count: int, rules=None):
    humans = [Player(f"{tag}b{index}", f"{tag}-{index}-human@chaos.test") for index in range(count)]
    for human in humans:
        assert human.open_room(bot="domador", rules=rules), "setup failed"
    return humans


def waiting_for_the_computer(humans) -> list[Player]:
    stuck = []
    for human in humans:
        match = human.match()
        if match.status == Match.Status.PLAYING and match.turn_seat_id != human.seat.pk:
            stuck.append(human)
    return stuck


# --- what each scenario measured -------------------------------------------------------


class Report:
    rows: list["Report"] = []

    def __init__(self, name: str, tag: str):
        self.name, self.tag = name, tag
        self.started_at = timezone.now()
        self.statuses_before = Counter(STATUSES)
        self.lock = threading.Lock()
        self.sent = self.acknowledged = self.stored = 0
        self.told_failed = self.unanswered_stored = self.unknown_stored = 0
        self.owed: Counter = Counter()  # (address, kind) -> emails owed
        self.due: dict = {}  # (address, kind) -> when each owed email fell due (time.time())
        self.bots: list[Player] = []  # the people playing the computer
        self.note = ""
        self.late: dict[str, float] = {}  # kind of follow-up -> the longest lateness seen
        self.analyses = self.analyses_unfinished = 0
        # When an outage of some length ended (time.time()): lateness counts from
        # then for what fell due during it (nothing can be done while the broker or
        # the database is away; the promise is about recovering). None: no outage.
        self.fault_over: float | None = None
        self.raw_late = 0.0  # the longest lateness counted from the due time alone

    def lateness(self, due: float, done: float) -> float:
        """How late `done` is for something due at `due`, after the outage if any."""
        self.raw_late = max(self.raw_late, done - due)
        return done - max(due, self.fault_over or due)

    def act(self, player: Player) -> bool | None:
        """Take one action if it is the player's turn: True acknowledged, False not, None none."""
        action = player.next_action()
        if action is None:
            return None
        name, body = action
        before = player.turns()
        status, answer = player.request("POST", f"/api/rooms/{player.slug}/actions/{name}", body)
        stored = player.turns() > before
        # A 503 that says the move was saved (its state could not be read back)
        # is an acknowledgement; one that says the games cannot be reached now
        # tells neither way, and the board reads the state again (docs/API.md).
        said = json.dumps(answer) if status == 503 else ""
        told_saved = status == 200 or '"saved_unavailable"' in said
        with self.lock:
            self.sent += 1
            self.acknowledged += told_saved
            self.stored += stored
            if stored and not told_saved:
                if status == 599:
                    self.unanswered_stored += 1  # the connection died: the board reads the state
                elif '"unavailable"' in said:
                    self.unknown_stored += 1
                else:
                    self.told_failed += 1
        return told_saved

    def move(self, player: Player) -> None:
        """Take every action the player owes now (a roll, then the play)."""
        for _ in range(3):
            if not self.act(player):
                return

    def owe(self, address: str, kind: str, count: int = 1, due: float | None = None) -> None:
        """`count` emails of `kind` owed to `address`, due at `due` (now by default;
        "Es tu turno" after its pause)."""
        self.owed[(address, kind)] += count
        if due is None:
            due = time.time() + (TURN_EMAIL_PAUSE if kind == "turn" else 0)
        self.due.setdefault((address, kind), []).extend([due] * count)

    def close(self, note: str = "") -> None:
        """What is known now: moves, bots, answers. The emails are counted after the run."""
        if self.unknown_stored:
            note += f"; {self.unknown_stored} saved moves answered 503 'cannot be reached now'"
        if self.unanswered_stored and "unanswered" not in note:
            note += f"; {self.unanswered_stored} saved moves unanswered (the connection died)"
        self.note = note
        statuses = STATUSES - self.statuses_before
        self.errors = statuses[500]
        self.unanswered = statuses[599]
        stuck = waiting_for_the_computer(self.bots)
        self.stuck = len(stuck)
        played, latest = bot_lateness(self.bots, self.started_at, self)
        self.bot_played = played
        self.bot_owed = played + self.stuck
        now = timezone.now()
        for human in stuck:
            last = db(
                lambda human=human: (
                    Turn.objects.filter(game__match__room__slug=human.slug).order_by("-pk").first()
                )
            )
            if last is not None:
                latest = max(latest, (now - last.created_at).total_seconds())
        self.latest = latest
        Report.rows.append(self)
        log(
            f"{self.name}: moves {self.sent}/{self.acknowledged}/{self.stored}, "
            f"told failed {self.told_failed}, bots {self.bot_owed}/{self.bot_played} "
            f"late {self.latest:.1f}s, 5xx {self.errors}, stuck {self.stuck}; {note}"
        )

    def mail(self, inbox: Inbox) -> None:
        """Emails owed / delivered / duplicated / unowed, and duplicates outside a lost answer."""
        received = {k: n for k, n in inbox.received.items() if k[0].startswith(self.tag)}
        self.emails_owed = sum(self.owed.values())
        self.delivered = sum(min(received.get(k, 0), n) for k, n in self.owed.items())
        self.duplicated = sum(max(0, received.get(k, 0) - n) for k, n in self.owed.items())
        self.unowed = sum(n for k, n in received.items() if k not in self.owed)
        self.lost_answers = sum(n for k, n in inbox.lost.items() if k[0].startswith(self.tag))
        # A duplicate is fine only after a lost answer, and one at most per lost answer.
        self.bad_duplicates = sum(
            max(0, received.get(k, 0) - n - inbox.lost[k]) for k, n in self.owed.items()
        )
        # Lateness, by kind: the n-th copy that came for an address against the n-th
        # time one fell due (a copy before its due time is 0 s late).
        for key, dues in self.due.items():
            came = sorted(inbox.arrivals.get(key, []))
            for due, arrival in zip(sorted(dues), came, strict=False):
                kind = key[1]
                self.late[kind] = max(self.late.get(kind, 0.0), self.lateness(due, arrival))

    def failed(self) -> bool:
        return bool(
            self.told_failed
            or self.stuck
            or self.delivered < self.emails_owed
            or self.unowed
            or self.bad_duplicates
            or self.analyses_unfinished
        )

    def late_column(self, kind: str) -> str:
        if kind == "bot":
            return f"{self.latest:.0f}" if self.bot_owed else "-"
        if kind == "other":
            rest = [
                s for k, s in self.late.items() if k not in ("turn", "joined", "ended", "analysis")
            ]
            return f"{max(rest):.0f}" if rest else "-"
        return f"{self.late[kind]:.0f}" if kind in self.late else "-"


def bot_lateness(humans, since, report: "Report") -> tuple[int, float]:
    """The computer's actions since `since` in these rooms, and the longest it made a
    person wait: from the turn before it (the person's) to the computer's next action."""
    played, latest = 0, 0.0
    for human in humans:
        turns = db(
            lambda human=human: list(
                Turn.objects.filter(game__match__room__slug=human.slug, created_at__gte=since)
                .order_by("game__match__number", "game__number", "number")
                .values("seat_id", "automatic", "created_at")
            )
        )
        previous = None
        for turn in turns:
            if turn["seat_id"] != human.seat.pk and not turn["automatic"]:
                played += 1
                if previous is not None and previous["seat_id"] == human.seat.pk:
                    due, done = previous["created_at"].timestamp(), turn["created_at"].timestamp()
                    latest = max(latest, report.lateness(due, done))
            previous = turn
    return played, latest


def play_in_threads(report: Report, players, seconds: float, pause: float = 0.2) -> threading.Event:
    """Each player acts whenever it is their turn, on a thread of their own, for `seconds`."""
    stop = threading.Event()

    def run(player):
        until = time.monotonic() + seconds
        try:
            while time.monotonic() < until and not stop.is_set():
                try:
                    report.act(player)
                except (OperationalError, InterfaceError):
                    connection.close()
                time.sleep(pause)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(p,), daemon=True) for p in players]
    for thread in threads:
        thread.start()
    stop.threads = threads
    return stop


def join_all(stop: threading.Event, seconds: float = 60) -> None:
    for thread in stop.threads:
        thread.join(seconds)


def emails_in(inbox: Inbox, report: Report) -> bool:
    """Every owed email of the report has arrived."""
    return all(inbox.received[key] >= n for key, n in report.owed.items())


# --- the scenarios -------------------------------------------------------------------


def redis_stop(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    report = Report("Redis (broker+cache) stopped 45 s", "s1")
    pairs = rooms_of_two("s1", 8)
    waiting_hosts = [Player(f"w{index}", f"s1-{index}-waiting@chaos.test") for index in range(4)]
    for host in waiting_hosts:
        assert host.open_room()
    leave_the_board([p for pair in pairs for p in pair] + waiting_hosts)

    log("Redis (the broker and the cache) stopped for 45 s")
    processes.kill("redis", signal.SIGTERM)
    down_at = time.monotonic()
    for host, guest in pairs:
        move_and_owe(report, host, guest)
    for index, host in enumerate(waiting_hosts):
        guest = Player(f"j{index}")
        if guest.join(host):  # "j se sentó a tu mesa" to the host
            report.owe(host.address, "joined")
    humans = [Player(f"s1b{index}") for index in range(4)]
    for human in humans:
        if human.open_room(bot="domador"):
            report.bots.append(human)
    while time.monotonic() < down_at + 45:
        for human in report.bots:
            report.move(human)
        time.sleep(0.5)
    log("Redis back")
    start_redis(processes)
    report.fault_over = time.time()

    def settled():
        return not waiting_for_the_computer(report.bots) and emails_in(mail.inbox, report)

    wait_until(settled, 150)
    report.close("joins and rooms against the computer opened while Redis was down")


def worker_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    report = Report("bots' worker SIGKILLed mid turn", "s2")
    report.bots = against_the_computer("s2", 8, rules={"format": "match", "length": 3})
    kills = 0
    deadline = time.monotonic() + 30
    next_kill = time.monotonic() + random.uniform(1, 3)
    while time.monotonic() < deadline:
        for human in report.bots:
            report.move(human)
        if time.monotonic() >= next_kill:
            processes.kill("bots", signal.SIGKILL)
            kills += 1
            time.sleep(0.5)
            start_bots_worker(processes)
            next_kill = time.monotonic() + random.uniform(2, 5)
        time.sleep(0.2)
    # Killed every 2-5 s, the worker hardly runs at all for those 30 s (a start
    # takes seconds): the recovery is counted from the last kill.
    report.fault_over = time.time()
    # No more moves: every bot must answer the turn it owes, whatever was killed.
    wait_until(lambda: not waiting_for_the_computer(report.bots), 90, 1)
    report.close(f"{kills} kills")


def web_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    report = Report("a web worker SIGKILLed, actions in flight", "s3")
    report.bots = against_the_computer("s3", 10)
    players = play_in_threads(report, report.bots, 32, pause=0.05)
    kills = 0
    for _ in range(6):
        time.sleep(random.uniform(3, 5))
        workers = processes.children("web")
        if workers:
            os.kill(random.choice(workers), signal.SIGKILL)
            kills += 1
    join_all(players)
    wait_until(lambda: not waiting_for_the_computer(report.bots), 60, 1)
    report.close(
        f"{kills} kills; {report.unanswered_stored} saved moves unanswered "
        "(the connection died; the board reads the state again)"
    )


def postgres_restart(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    report = Report("PostgreSQL restarted, backends killed", "s4")
    pairs = rooms_of_two("s4", 4)
    leave_the_board([p for pair in pairs for p in pair])
    for host, guest in pairs:  # their turn emails fall due while the database restarts
        move_and_owe(report, host, guest)
    report.bots = against_the_computer("s4", 8)
    players = play_in_threads(report, report.bots, 40)
    faults = []
    for fault in ("restart", "terminate", "restart", "terminate"):
        time.sleep(7)
        if fault == "restart":
            log("PostgreSQL: pg_ctl restart -m fast")
            pg.ctl("-m", "fast", "restart")
        else:
            log(f"PostgreSQL: {pg.terminate_backends()} backends terminated")
        faults.append(fault)
    join_all(players)

    def settled():
        return not waiting_for_the_computer(report.bots) and emails_in(mail.inbox, report)

    wait_until(settled, 90, 1)
    report.close("2 fast restarts, 2 rounds of pg_terminate_backend, while playing")


def postgres_stop(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """PostgreSQL stopped for 20 s right as turn emails fall due and the computer
    plays; then, once it is back, every backend terminated under the workers."""
    report = Report("PostgreSQL stopped 20 s, then backends killed", "s8")
    pairs = rooms_of_two("s8", 6)
    leave_the_board([p for pair in pairs for p in pair])
    report.bots = against_the_computer("s8", 6, rules={"format": "match", "length": 1})
    for host, guest in pairs:  # their turn emails fall due 60 s on: inside the outage
        move_and_owe(report, host, guest)
    players = play_in_threads(report, report.bots, 90)
    time.sleep(45)
    log("PostgreSQL stopped (pg_ctl stop -m fast) for 20 s")
    pg.ctl("-m", "fast", "stop")
    time.sleep(20)
    pg.ctl("start")
    report.fault_over = time.time()
    log("PostgreSQL back")
    time.sleep(10)
    log(f"PostgreSQL: {pg.terminate_backends()} backends terminated")
    join_all(players, 120)

    def settled():
        return not waiting_for_the_computer(report.bots) and emails_in(mail.inbox, report)

    wait_until(settled, 180, 1)
    report.close("stopped 20 s mid-play, then pg_terminate_backend once")


def redis_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """Redis SIGKILLed and started again on its append-only file: the messages it
    held come back, the workers' connections do not."""
    report = Report("Redis SIGKILLed, back with its AOF", "s9")
    pairs = rooms_of_two("s9", 8)
    leave_the_board([p for pair in pairs for p in pair])
    report.bots = against_the_computer("s9", 6)
    for host, guest in pairs:  # their turn emails wait in Redis for the pause
        move_and_owe(report, host, guest)
    for human in report.bots:
        report.move(human)
    log("Redis SIGKILLed; started again on its data")
    processes.kill("redis", signal.SIGKILL)
    start_redis(processes)
    until = time.monotonic() + 30
    while time.monotonic() < until:
        for human in report.bots:
            report.move(human)
        time.sleep(0.5)

    def settled():
        return not waiting_for_the_computer(report.bots) and emails_in(mail.inbox, report)

    wait_until(settled, 180, 1)
    report.close("the AOF kept what Redis held")


def shift(matches, by: timedelta) -> None:
    """Time passes for these matches: every instant of their current turn moves back
    `by` (its start, its deadline, what was claimed or waived for it)."""
    ids = [m.pk for m in matches]
    fields = (
        "turn_started_at", "absence_due_at", "absence_waived_for",
        "reminder_sent_for", "absence_notice_sent_for",
    )  # fmt: skip
    db(lambda: Match.objects.filter(pk__in=ids).update(**{f: F(f) - by for f in fields}))
    db(
        lambda: Seat.objects.filter(room__matches__in=ids).update(
            turn_notified_at=F("turn_notified_at") - by
        )
    )
    db(lambda: Room.objects.filter(matches__in=ids).update(last_move_at=F("last_move_at") - by))


def keep_waiting_after(waiting: Player, by: timedelta) -> None:
    """The turn `waiting` waits on moves back `by`, past its deadline, and `waiting`
    chooses to keep waiting, in one transaction: the absence sweep must not close
    the game in between (keeping waiting is a choice from the deadline on)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=waiting.match().pk)
        shift([match], by)
        services.absence_keep_waiting(seat=waiting.seat, version=match.version)


def two_beats(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """Two beats for the whole scenario (sweeps every 15 s each); the games' clocks
    moved back in two steps while they run. Every seat chose the daily digest, so
    "Es tu turno" stays out of the count."""
    report = Report("two beats, deadlines moved back", "s5")
    groups = {name: rooms_of_two(f"s5{name}", count) for name, count in
              (("r", 4), ("c", 3), ("a", 3), ("n", 2))}  # fmt: skip
    idle = against_the_computer("s5e", 3)  # rooms that will expire
    wait_until(lambda: not waiting_for_the_computer(idle), 30)
    time.sleep(3)  # the joins' emails found nobody to mail: no address yet
    everyone = [p for pairs in groups.values() for pair in pairs for p in pair] + idle
    beat(processes, "beat2")
    leave_the_board(everyone, notify=Seat.Notify.DAILY)
    log("two beats; every seat on turn is owed the digest")
    for pairs in groups.values():
        for host, guest in pairs:
            report.owe(on_turn(host, guest).address, "digest")
    for human in idle:
        report.owe(human.address, "digest")
    matches = {name: [pair[0].match() for pair in pairs] for name, pairs in groups.items()}

    time.sleep(3)
    log("deadlines moved back 25 h: 23 h left in r, c and a (the reminder)")
    shift(matches["r"] + matches["c"] + matches["a"], timedelta(hours=25))
    for name in ("r", "c", "a"):
        for host, guest in groups[name]:
            report.owe(on_turn(host, guest).address, "reminder")
    time.sleep(35)  # two sweeps of each beat
    log("deadlines moved back 24 h more in c and a; rooms against the computer 8 days idle")
    shift(matches["a"], timedelta(hours=24))
    for host, guest in groups["c"]:  # past the deadline: the waiting player keeps waiting
        waiting = guest if on_turn(host, guest) is host else host
        db(lambda w=waiting: keep_waiting_after(w, timedelta(hours=24)))
    db(
        lambda: Room.objects.filter(slug__in=[h.slug for h in idle]).update(
            last_move_at=F("last_move_at") - timedelta(days=8)
        )
    )
    for host, guest in groups["c"]:  # kept waiting: "ya puedes cerrar" to the waiting one
        report.owe((guest if on_turn(host, guest) is host else host).address, "claimable")
    for host, guest in groups["a"]:  # closed by absence: both hear of the end
        report.owe(host.address, "ended")
        report.owe(guest.address, "ended")
    for human in idle:
        report.owe(human.address, "ended")
    wait_until(lambda: emails_in(mail.inbox, report), 60, 1)
    time.sleep(16)  # one more sweep of each beat: a duplicate would come now
    processes.kill("beat2", signal.SIGTERM)
    closed = db(
        lambda: Match.objects.filter(
            pk__in=[m.pk for m in matches["a"]], status=Match.Status.FINISHED
        ).count()
    )
    expired = db(
        lambda: Room.objects.filter(
            slug__in=[h.slug for h in idle], status=Room.Status.EXPIRED
        ).count()
    )
    forfeits = db(
        lambda: Turn.objects.filter(
            game__match__in=[m.pk for m in matches["a"]], kind="forfeit"
        ).count()
    )
    report.close(
        f"{forfeits} forfeits in the {closed} games closed by absence of "
        f"{len(matches['a'])}; {expired} of {len(idle)} idle rooms expired"
    )


def smtp_trouble(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """Turn emails fall due (60 s after each move) while the SMTP server hangs,
    then while it is down, then while it loses its answers; the computer keeps
    playing all along. Nobody acts on the turns meanwhile, so every one of them
    is owed its email."""
    report = Report("SMTP hung, down 20 min, answers lost", "s6")
    pairs = rooms_of_two("s6", 16)
    leave_the_board([p for pair in pairs for p in pair])

    def move_in(rooms):
        for host, guest in rooms:
            move_and_owe(report, host, guest)

    def bots_play(seconds):
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            for human in report.bots:
                report.move(human)
            time.sleep(0.3)

    move_in(pairs[:8])  # their emails fall due while the server hangs
    time.sleep(45)
    move_in(pairs[8:])  # theirs while it is down
    log("SMTP hung: it accepts and never answers")
    mail.hung()
    report.bots = against_the_computer("s6", 4, rules={"format": "match", "length": 3})
    bots_play(25)

    log("SMTP down for 40 s (20 minutes at 1:30)")
    mail.down()
    bots_play(40)

    log("SMTP back; it keeps the first 4 messages and loses their answer")
    mail.inbox.lose_next = 4
    mail.up()
    report.fault_over = time.time()
    wait_until(lambda: emails_in(mail.inbox, report), 150)
    time.sleep(8)  # a duplicate, if any, would come now
    wait_until(lambda: not waiting_for_the_computer(report.bots), 30)
    uncertain = db(lambda: FollowUp.objects.filter(failed_at__isnull=False).count())
    retried = db(lambda: FollowUp.objects.filter(kwargs__has_key="attempt").count())
    lost = db(lambda: SentEmail.objects.filter(key__startswith="lost:").count())
    report.close(
        f"{retried} mail retries; {lost} emails lost an answer and were sent once more; "
        f"{uncertain} dead letters"
    )


def redis_empty(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """Redis SIGKILLed and started again with nothing: every message in it is gone
    (the bots' tasks, the turn emails waiting out their pause)."""
    report = Report("Redis SIGKILLed, back empty", "s7")
    pairs = rooms_of_two("s7", 8)
    leave_the_board([p for pair in pairs for p in pair])
    report.bots = against_the_computer("s7", 6)
    for host, guest in pairs:  # their turn emails wait in Redis for the pause
        move_and_owe(report, host, guest)
    for human in report.bots:
        report.move(human)
    log("Redis SIGKILLed; started again without its data")
    processes.kill("redis", signal.SIGKILL)
    shutil.rmtree(processes.folder / "redis", ignore_errors=True)
    start_redis(processes)
    until = time.monotonic() + 20
    while time.monotonic() < until:
        for human in report.bots:
            report.move(human)
        time.sleep(0.5)

    def settled():
        return not waiting_for_the_computer(report.bots) and emails_in(mail.inbox, report)

    wait_until(settled, 180, 1)
    report.close("every message Redis held was lost")


SCENARIOS = {
    "redis-stop": redis_stop,
    "worker-kill": worker_kill,
    "web-kill": web_kill,
    "postgres": postgres_restart,
    "two-beats": two_beats,
    "smtp": smtp_trouble,
    "redis-empty": redis_empty,
    "postgres-stop": postgres_stop,
    "redis-kill": redis_kill,
}


def analysis_lateness() -> None:
    """Each report's analyses (asked for while it ran): the longest from asked for
    to done, and how many never finished. After every scenario: the analysis
    worker has one process, and a game's analysis may take it a while."""
    pending = GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING
    wait_until(
        lambda: not db(lambda: GameAnalysis.objects.filter(status__in=pending).exists()), 150, 1
    )
    now = timezone.now()
    starts = [r.started_at for r in Report.rows] + [now]
    for report, until in zip(Report.rows, starts[1:], strict=False):
        rows = db(
            lambda report=report, until=until: list(
                GameAnalysis.objects.filter(
                    requested_at__gte=report.started_at, requested_at__lt=until
                ).values_list("status", "requested_at", "finished_at", "seconds")
            )
        )
        report.analyses = len(rows)
        report.analyses_unfinished = sum(
            status != GameAnalysis.Status.DONE for status, _, _, _ in rows
        )
        # What the evaluation itself took (the rest is the queue of one process).
        longest_run = max((seconds or 0 for _, _, _, seconds in rows), default=0)
        if rows:
            report.note += f"; analyses took up to {longest_run:.0f} s each to run"
        for status, asked, finished, _ in rows:
            done = finished if status == GameAnalysis.Status.DONE and finished else now
            late = report.lateness(asked.timestamp(), done.timestamp())
            report.late["analysis"] = max(report.late.get("analysis", 0.0), late)


def replays_clean() -> tuple[int, int]:
    matches = db(lambda: list(Match.objects.select_related("room")))
    bad = sum(1 for match in matches if replay_match(match).to_json() != match.state)
    return len(matches), bad


LATE = ("bot", "turn", "joined", "ended", "other", "analysis")


def print_table(processes: Processes) -> None:
    """One line per scenario; "max late (s)" is the longest lateness of each kind of
    follow-up: a bot's action from the person's, an email from when it fell due
    (the turn email 60 s after the turn passed) to its arrival at the SMTP
    server, an analysis from asked for to done ("-": none owed); for what fell
    due during an outage (Redis, PostgreSQL, the mail server), from its end."""
    late_head = " ".join(f"{kind:>8}" for kind in LATE)
    head = (
        f"{'scenario':46} {'moves s/a/st':>13} {'told':>4} {'bots o/p':>9} "
        f"{'emails o/d/dup/un':>17} {'an o/unf':>8} {'5xx':>4} {'stuck':>5} | max late (s): "
        f"{late_head}  note"
    )
    print()
    print(head)
    for r in Report.rows:
        late = " ".join(f"{r.late_column(kind):>8}" for kind in LATE)
        print(
            f"{r.name:46} {f'{r.sent}/{r.acknowledged}/{r.stored}':>13} {r.told_failed:>4} "
            f"{f'{r.bot_owed}/{r.bot_played}':>9} "
            f"{f'{r.emails_owed}/{r.delivered}/{r.duplicated}/{r.unowed}':>17} "
            f"{f'{r.analyses}/{r.analyses_unfinished}':>8} "
            f"{r.errors:>4} {r.stuck:>5} |               {late}  {r.note}"
            + (
                f"; counted from the outage's end (from the due time: {r.raw_late:.0f} s)"
                if r.fault_over
                else ""
            )
            + (f"; {r.lost_answers} answers lost" if r.lost_answers else "")
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated: " + ", ".join(SCENARIOS))
    chosen = [name for name in parser.parse_args().only.split(",") if name] or list(SCENARIOS)
    unknown = set(chosen) - set(SCENARIOS)
    if unknown:
        parser.error(f"no such scenario: {', '.join(sorted(unknown))}")
    for port in (WEB, REDIS, SMTP, PG):
        if port_open(port):
            print(f"port {port} is taken: is another chaos run going?", file=sys.stderr)
            return 2
    folder = Path(tempfile.mkdtemp(prefix="mesa-chaos-"))
    processes = Processes(folder)
    pg = Postgres(folder)
    mail = MailServer()
    matches = bad = 0
    try:
        log(f"logs in {folder}")
        SETTINGS["MESA_WORKER_HEARTBEAT_DIR"] = str(folder / "heartbeats")
        pg.init()
        # As `make run` does: the cache table first, whose absence migrate's checks refuse.
        for command in (["createcachetable"], ["migrate", "--noinput"]):
            subprocess.run([sys.executable, "manage.py", *command, "-v0"], cwd=ROOT, check=True)
        start_redis(processes)
        mail.up()
        processes.start("web", [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py"])
        start_bots_worker(processes)
        # Two processes each, as `celery worker` starts by default on this 2-core machine.
        processes.start("mail", worker("mail", "mail", 2))
        processes.start("analysis", worker("analysis", "analysis", 1))
        beat(processes, "beat")
        if not wait_until(lambda: port_open(WEB), 60):
            raise RuntimeError("gunicorn did not start")
        time.sleep(3)  # the workers connect
        for name in chosen:
            log(f"--- {name}")
            SCENARIOS[name](processes, mail, pg)
        time.sleep(5)  # a late duplicate would come now
        for report in Report.rows:
            report.mail(mail.inbox)
        analysis_lateness()
        matches, bad = replays_clean()
    finally:
        processes.stop_all()
        mail.down()
        pg.stop()
    print_table(processes)
    print(f"every match replays from its turns: {matches - bad}/{matches}")
    restarts = ", ".join(f"{name} {count}" for name, count in processes.restarts.items())
    print(f"processes that exited by themselves and were restarted: {restarts or 'none'}")
    print(f"took {time.monotonic() - STARTED:.0f} s; logs in {folder}")
    failed = any(report.failed() for report in Report.rows) or bad
    if not failed:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
