"""`make chaos`: the fault scenarios against real processes on 127.0.0.1.

Starts, in a temporary folder: a Redis of its own (port 18201, append-only
file, so a stop and start keeps what it held, as a production Redis would),
gunicorn (18200), a Celery worker for bots and sweeps, one for mail, beat,
and an SMTP server in this process (18202) that it can hang (a socket that
accepts and never answers), stop, and make answer too late (it keeps the
message, the reply arrives after EMAIL_TIMEOUT). PostgreSQL is the one on
127.0.0.1:5432, database CHAOS_DATABASE_URL (default mesa_chaos, created
when missing, flushed first).

Scenarios, each printing moves saved, bot turns applied, emails delivered,
duplicates and 5xx answers:

1. broker down: Redis stopped while people move, join rooms and open rooms
   against the computer; started again a few seconds later.
2. worker killed: the bots' worker gets SIGKILL again and again while
   computer games run, and is started again each time.
3. SMTP hung, then down for "20 minutes", then slow to answer: people keep
   moving and the computer keeps playing.

Time is shortened, not faked: the follow-up sweep runs every 2 s instead of
every minute, a stuck bot is nudged after 4 s instead of 60 s, and mail
retries start at 4 s instead of 2 minutes (a scale of 1:30, so the SMTP
server is down for 40 s = 20 minutes of retries). The people in the games
"leave the board" by having their last_seen_at set an hour back, so that
"Es tu turno" is due. Every wait has a deadline; everything started is
stopped at the end, whatever happens.
"""

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
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# CHAOS_PORT_BASE moves every port of the run (web, Redis, SMTP, ...) together.
PORT_BASE = int(os.environ.get("CHAOS_PORT_BASE", "18200"))
WEB, REDIS, SMTP = PORT_BASE, PORT_BASE + 1, PORT_BASE + 2
DATABASE_URL = os.environ.get("CHAOS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mesa_chaos")
REDIS_URL = f"redis://127.0.0.1:{REDIS}/0"
EMAIL_TIMEOUT = 2
RUN_DEADLINE = 15 * 60  # the whole run, whatever happens
SETTINGS = {
    "DJANGO_SETTINGS_MODULE": "config.settings.base",
    "DATABASE_URL": DATABASE_URL,
    "CELERY_BROKER_URL": REDIS_URL,
    "EMAIL_URL": f"smtp://127.0.0.1:{SMTP}",
    "EMAIL_TIMEOUT": str(EMAIL_TIMEOUT),
    "SITE_URL": f"http://127.0.0.1:{WEB}",
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECRET_KEY": "chaos-" + "k" * 50,
    "DEBUG": "false",
    "SECURE_SSL_REDIRECT": "false",
    # The rate limits count in the database cache here (no CACHE_URL): a
    # throwaway run on one machine, which config/checks.py must be told about.
    "MESA_ALLOW_EMBEDDED": "1",
    "FOLLOW_UP_SWEEP_SECONDS": "2",
    "BOT_STUCK_AFTER_SECONDS": "4",
    # Every player of the run comes from 127.0.0.1: one address opening dozens of rooms.
    "MESA_RATE_LIMIT_SCALE": "100",
    "MAIL_RETRY_FIRST_SECONDS": "4",
    "MAIL_RETRY_MAX_SECONDS": "60",
    "MAIL_TRIES": "10",
    "LOG_LEVEL": "WARNING",
    # No collectstatic for a throwaway run: plain static file names.
    "STATICFILES_BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage",
}
os.environ.update(SETTINGS)

import django  # noqa: E402 - the settings above first

django.setup()

from aiosmtpd.controller import Controller  # noqa: E402
from django.utils import timezone  # noqa: E402

from games.engine import MatchState, Phase, legal_plays  # noqa: E402
from games.models import FollowUp, Match, Seat, Turn  # noqa: E402
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


# --- processes ------------------------------------------------------------------


class Processes:
    """Everything this run starts, each in its own process group, stopped at the end.

    Like systemd's Restart=always for the site's own processes: one that exits
    by itself (not killed here) is started again, and counted.
    """

    SUPERVISED = ("web", "bots", "mail", "beat")

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
        out = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
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


def start_redis(processes: Processes) -> None:
    processes.start(
        "redis",
        [
            "redis-server",
            "--port", str(REDIS), "--bind", "127.0.0.1",
            "--dir", str(processes.folder),
            "--save", "", "--appendonly", "yes", "--appendfsync", "always",
        ],
    )  # fmt: skip
    wait_until(lambda: port_open(REDIS), 10, 0.1)


def start_bots_worker(processes: Processes) -> None:
    processes.start("bots", worker("bots", "bots,sweeps", 2))


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


# --- the mail server --------------------------------------------------------------


class Inbox:
    def __init__(self):
        self.received = Counter()  # address -> messages
        self.slow_answers = 0  # this many next messages are answered too late

    async def handle_DATA(self, server, session, envelope):
        import asyncio

        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.received[str(message["To"])] += 1
        if self.slow_answers > 0:
            self.slow_answers -= 1
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
        for connection in self.held:
            connection.close()
        self.held = []


# --- people on the site --------------------------------------------------------------


class Player:
    """One browser: its cookies, its seat, every status it got."""

    statuses = Counter()

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
            status, text = 599, b""  # no answer at all counts as a 5xx
        Player.statuses[status // 100 * 100] += 1
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
        self.seat = Seat.objects.get(room__slug=self.slug, number=1)
        return True

    def join(self, host: "Player") -> bool:
        status, _state = self.request(
            "POST", f"/api/rooms/{host.slug}/join", {"nickname": self.name}
        )
        if status != 200:
            return False
        self.slug = host.slug
        self.seat = Seat.objects.get(room__slug=self.slug, number=2)
        return True

    def act(self) -> bool | None:
        """Take the turn if it is ours: True saved, False refused, None nothing to do."""
        match = Match.objects.filter(room__slug=self.slug).order_by("-number").first()
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
        status, _ = self.request("POST", f"/api/rooms/{self.slug}/actions/{action}", body)
        return status == 200


def leave_the_board(players) -> None:
    """Everyone listed gives an address, and left the board an hour ago."""
    for player in players:
        Seat.objects.filter(pk=player.seat.pk).update(
            email=player.address,
            email_consent=True,
            last_seen_at=timezone.now() - timedelta(hours=1),
        )


def owner_on_turn(pairs):
    """For each (host, guest) room: the player on turn now."""
    on_turn = []
    for host, guest in pairs:
        match = Match.objects.filter(room__slug=host.slug).order_by("-number").first()
        on_turn.append(host if match.turn_seat_id == host.seat.pk else guest)
    return on_turn


def bot_turns() -> int:
    return Turn.objects.filter(seat__number=2, seat__room__bot__gt="", automatic=False).count()


def stuck_bot_rooms(players) -> list[str]:
    stuck = []
    for player in players:
        match = Match.objects.filter(room__slug=player.slug).order_by("-number").first()
        if match.status == Match.Status.PLAYING and match.turn_seat_id != player.seat.pk:
            stuck.append(player.slug)
    return stuck


def tally(inbox: Inbox, expected: list[str]) -> tuple[int, int]:
    delivered = sum(1 for address in expected if inbox.received[address] >= 1)
    duplicates = sum(max(0, inbox.received[address] - 1) for address in expected)
    return delivered, duplicates


class Report:
    rows = []

    def __init__(self, name: str):
        self.name = name
        self.moves = self.moves_tried = 0
        self.bot_turns_before = bot_turns()
        self.statuses_before = Counter(Player.statuses)
        self.expected: list[str] = []
        self.stuck: list[str] = []

    def move(self, player: Player) -> None:
        """Take every action the player owes now (a roll, then the play)."""
        for _ in range(3):
            result = player.act()
            if result is None:
                return
            self.moves_tried += 1
            self.moves += bool(result)
            if not result:
                return

    def close(self, inbox: Inbox, note: str = "") -> None:
        delivered, duplicates = tally(inbox, self.expected)
        statuses = Player.statuses - self.statuses_before
        row = {
            "scenario": self.name,
            "moves saved": f"{self.moves}/{self.moves_tried}",
            "bot turns applied": bot_turns() - self.bot_turns_before,
            "bot games stuck": len(self.stuck),
            "emails delivered": f"{delivered}/{len(self.expected)}",
            "duplicates": duplicates,
            "5xx": statuses[500],
            "note": note,
        }
        Report.rows.append(row)
        log(f"{self.name}: {row}")


# --- the scenarios -------------------------------------------------------------------


def rooms_of_two(tag: str, count: int):
    pairs = []
    for index in range(count):
        host = Player(f"h{index}", f"{tag}-{index}-host@chaos.test")
        guest = Player(f"g{index}", f"{tag}-{index}-guest@chaos.test")
        assert host.open_room() and guest.join(host), "setup failed"
        pairs.append((host, guest))
    return pairs


def broker_down(processes: Processes, mail: MailServer) -> None:
    report = Report("broker down during moves")
    pairs = rooms_of_two("s1", 8)
    waiting_hosts = [Player(f"w{index}", f"s1-{index}-waiting@chaos.test") for index in range(4)]
    for host in waiting_hosts:
        assert host.open_room()
    leave_the_board([p for pair in pairs for p in pair] + waiting_hosts)
    movers = owner_on_turn(pairs)

    log("broker down: stopping Redis")
    processes.kill("redis", signal.SIGTERM)
    for mover, (host, guest) in zip(movers, pairs, strict=True):
        report.move(mover)
        report.expected.append((guest if mover is host else host).address)
    for index, host in enumerate(waiting_hosts):
        guest = Player(f"j{index}")
        guest.join(host)  # "bob se sentó a tu mesa" to the host
        report.expected.append(host.address)
    humans = [Player(f"b{index}") for index in range(4)]
    for human in humans:
        human.open_room(bot="domador")
        report.move(human)  # if the person opened, their move hands the turn to the bot
    time.sleep(3)
    log("broker back: starting Redis")
    start_redis(processes)

    def settled():
        humans_on_turn = not stuck_bot_rooms(humans)
        return humans_on_turn and tally(mail.inbox, report.expected)[0] == len(report.expected)

    wait_until(settled, 150)
    report.stuck = stuck_bot_rooms(humans)
    report.close(mail.inbox, "joins and bot rooms opened while Redis was down")


def worker_killed(processes: Processes, mail: MailServer) -> None:
    report = Report("bots' worker SIGKILLed mid turn")
    humans = [Player(f"k{index}") for index in range(8)]
    for human in humans:
        human.open_room(bot="domador", rules={"format": "match", "length": 3})
    kills = 0
    deadline = time.monotonic() + 30
    next_kill = time.monotonic() + random.uniform(1, 3)
    while time.monotonic() < deadline:
        for human in humans:
            report.move(human)
        if time.monotonic() >= next_kill:
            processes.kill("bots", signal.SIGKILL)
            kills += 1
            time.sleep(0.5)
            start_bots_worker(processes)
            next_kill = time.monotonic() + random.uniform(2, 5)
        time.sleep(0.2)
    swept = FollowUp.objects.filter(task="games.tasks.bot_turn", published_at__isnull=False)
    recovered = sum(1 for row in swept if (row.published_at - row.created_at).total_seconds() > 1)

    # No more moves: every bot must answer the turn it owes, whatever was killed.
    wait_until(lambda: not stuck_bot_rooms(humans), 90, 1)
    report.stuck = stuck_bot_rooms(humans)
    report.close(mail.inbox, f"{kills} kills; {recovered} bot follow-ups published by the sweep")


def smtp_trouble(processes: Processes, mail: MailServer) -> None:
    """Turn emails fall due (60 s after each move) while the SMTP server hangs,
    then while it is down; the bots keep playing all along. Nobody acts on the
    turns meanwhile, so every one of them is owed its email."""
    report = Report("SMTP hung, down 20 min, slow")
    pairs = rooms_of_two("s3", 16)
    humans = [Player(f"m{index}") for index in range(4)]
    leave_the_board([p for pair in pairs for p in pair])

    def move_in(rooms):
        for mover, (host, guest) in zip(owner_on_turn(rooms), rooms, strict=True):
            report.move(mover)
            report.expected.append((guest if mover is host else host).address)

    def bots_play(seconds):
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            for human in humans:
                report.move(human)
            time.sleep(0.3)

    move_in(pairs[:8])  # their emails fall due while the server hangs
    time.sleep(45)
    move_in(pairs[8:])  # theirs while it is down
    log("SMTP hung: it accepts and never answers")
    mail.hung()
    before = bot_turns()
    for human in humans:  # matches to 3 against the computer, played meanwhile
        human.open_room(bot="domador", rules={"format": "match", "length": 3})
    bots_play(25)
    bots_during_hang = bot_turns() - before

    log("SMTP down for 40 s (20 minutes at 1:30)")
    mail.down()
    bots_play(40)

    log("SMTP back; the first 3 messages get their answer too late (kept, never resent)")
    mail.inbox.slow_answers = 3
    mail.up()
    wait_until(lambda: tally(mail.inbox, report.expected)[0] == len(report.expected), 150)
    time.sleep(5)  # a duplicate, if any, would come now
    wait_until(lambda: not stuck_bot_rooms(humans), 30)
    report.stuck = stuck_bot_rooms(humans)
    uncertain = FollowUp.objects.filter(failed_at__isnull=False).count()
    retried = FollowUp.objects.filter(kwargs__has_key="attempt").count()
    report.close(
        mail.inbox,
        f"{bots_during_hang} bot turns while SMTP hung; {retried} mail retries; "
        f"{uncertain} answers lost (kept, not resent)",
    )


def replays_clean() -> tuple[int, int]:
    matches = list(Match.objects.select_related("room"))
    bad = sum(1 for match in matches if replay_match(match).to_json() != match.state)
    return len(matches), bad


def create_database(url: str) -> None:
    """Create the run's database on its server unless it is there already."""
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as server:
        if not server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def main() -> int:
    for port in (WEB, REDIS, SMTP):
        if port_open(port):
            print(f"port {port} is taken: is another chaos run going?", file=sys.stderr)
            return 2
    folder = Path(tempfile.mkdtemp(prefix="mesa-chaos-"))
    processes = Processes(folder)
    mail = MailServer()
    try:
        log(f"logs in {folder}")
        create_database(DATABASE_URL)
        subprocess.run(
            [sys.executable, "manage.py", "createcachetable", "-v0"], cwd=ROOT, check=True
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True
        )
        subprocess.run(
            [sys.executable, "manage.py", "flush", "--noinput", "-v0"], cwd=ROOT, check=True
        )
        start_redis(processes)
        mail.up()
        processes.start(
            "web",
            [
                sys.executable, "-m", "gunicorn", "config.wsgi",
                "--workers", "3", "--bind", f"127.0.0.1:{WEB}", "--timeout", "60",
            ],
        )  # fmt: skip
        start_bots_worker(processes)
        processes.start("mail", worker("mail", "mail", 1))
        processes.start("beat", celery("beat", "--schedule", str(folder / "beat-schedule")))
        if not wait_until(lambda: port_open(WEB), 30):
            raise RuntimeError("gunicorn did not start")
        time.sleep(3)  # the workers connect

        broker_down(processes, mail)
        worker_killed(processes, mail)
        smtp_trouble(processes, mail)
    finally:
        processes.stop_all()
        mail.down()
    matches, bad = replays_clean()
    print()
    print(f"{'scenario':34} {'moves':>7} {'bot turns':>9} {'stuck':>5} {'emails':>7} "
          f"{'dups':>4} {'5xx':>4}  note")  # fmt: skip
    for row in Report.rows:
        print(
            f"{row['scenario']:34} {row['moves saved']:>7} {row['bot turns applied']:>9} "
            f"{row['bot games stuck']:>5} {row['emails delivered']:>7} {row['duplicates']:>4} "
            f"{row['5xx']:>4}  {row['note']}"
        )
    print(f"every match replays from its turns: {matches - bad}/{matches}")
    restarts = ", ".join(f"{name} {count}" for name, count in processes.restarts.items())
    print(f"processes that exited by themselves and were restarted: {restarts or 'none'}")
    print(f"took {time.monotonic() - STARTED:.0f} s; logs in {folder}")
    failed = any(
        row["duplicates"] or row["5xx"] or row["bot games stuck"]
        or row["emails delivered"].split("/")[0] != row["emails delivered"].split("/")[1]
        or row["moves saved"].split("/")[0] != row["moves saved"].split("/")[1]
        for row in Report.rows
    ) or bad  # fmt: skip
    if not failed:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
