"""The fault scenarios: each sets up its games, does its fault while people play,
waits for the follow-ups, and closes its Report."""

import os
import random
import shutil
import signal
import threading
import time
from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F

from accounts.models import Profile
from games import services
from games.models import FollowUp, Match, Room, Seat, SentEmail, Turn
from games.services import live
from scripts.chaos.boards import Boards
from scripts.chaos.env import REDIS_URL, TURN_EMAIL_PAUSE, db, log, wait_until
from scripts.chaos.mailserver import MailServer
from scripts.chaos.players import (
    Player,
    against_the_computer,
    leave_the_board,
    on_turn,
    rooms_of_two,
    waiting_for_the_computer,
)
from scripts.chaos.processes import (
    Postgres,
    Processes,
    beat,
    start_bots_worker,
    start_live,
    start_mail_worker,
    start_nginx,
    start_redis,
)
from scripts.chaos.report import Report, emails_in

CHAOS_PASSWORD = "chaos-" + "p" * 20


def keep_the_computer_busy(report: Report, seconds: float) -> None:
    """The humans against the computer move whenever they can, for `seconds`."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for human in report.bots:
            report.move(human)
        time.sleep(0.5)


def wait_until_settled(report: Report, mail: MailServer, seconds: float) -> None:
    """Until the computer owes no move and every email owed has arrived (or `seconds`)."""

    def settled():
        return not waiting_for_the_computer(report.bots) and emails_in(mail.inbox, report)

    wait_until(settled, seconds, 1)


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
        report.move_and_owe(host, guest)
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
        report.move_and_owe(host, guest)
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

    wait_until_settled(report, mail, 90)
    report.close("2 fast restarts, 2 rounds of pg_terminate_backend, while playing")


def postgres_stop(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """PostgreSQL stopped for 20 s right as turn emails fall due and the computer
    plays; then, once it is back, every backend terminated under the workers."""
    report = Report("PostgreSQL stopped 20 s, then backends killed", "s8")
    pairs = rooms_of_two("s8", 6)
    leave_the_board([p for pair in pairs for p in pair])
    report.bots = against_the_computer("s8", 6, rules={"format": "match", "length": 1})
    for host, guest in pairs:  # their turn emails fall due 60 s on: inside the outage
        report.move_and_owe(host, guest)
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

    wait_until_settled(report, mail, 180)
    report.close("stopped 20 s mid-play, then pg_terminate_backend once")


def redis_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """Redis SIGKILLed and started again on its append-only file: the messages it
    held come back, the workers' connections do not."""
    report = Report("Redis SIGKILLed, back with its AOF", "s9")
    pairs = rooms_of_two("s9", 8)
    leave_the_board([p for pair in pairs for p in pair])
    report.bots = against_the_computer("s9", 6)
    for host, guest in pairs:  # their turn emails wait in Redis for the pause
        report.move_and_owe(host, guest)
    for human in report.bots:
        report.move(human)
    log("Redis SIGKILLed; started again on its data")
    processes.kill("redis", signal.SIGKILL)
    start_redis(processes)
    keep_the_computer_busy(report, 30)

    wait_until_settled(report, mail, 180)
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
            report.move_and_owe(host, guest)

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
        report.move_and_owe(host, guest)
    for human in report.bots:
        report.move(human)
    log("Redis SIGKILLed; started again without its data")
    processes.kill("redis", signal.SIGKILL)
    shutil.rmtree(processes.folder / "redis", ignore_errors=True)
    start_redis(processes)
    keep_the_computer_busy(report, 20)

    wait_until_settled(report, mail, 180)
    report.close("every message Redis held was lost")


def mail_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """The mail worker SIGKILLed mid-conversation with the server, twice: while
    "someone sat down" emails go out (their keys claimed "sending"), then while
    "Es tu turno" does (60 s after the moves; the turns claimed as told). The
    server takes 1.5 s to accept each recipient, so each kill finds sends under way;
    the first waits for a host who opens (the email claimed that host's turn).
    Each host who opens must read "es tu turno" once (es_tu_turno_told)."""
    report = Report("mail worker SIGKILLed mid-send", "sk")
    hosts = [Player(f"k{index}", f"sk-{index}-host@chaos.test") for index in range(8)]
    for host in hosts:
        assert host.open_room()
    pairs = rooms_of_two("sk", 6)
    leave_the_board(hosts + [p for pair in pairs for p in pair])
    mail.inbox.slow_rcpt = 1.5

    def kill_the_mail_worker():
        log("mail worker SIGKILLed")
        processes.kill("mail", signal.SIGKILL)
        time.sleep(0.5)
        start_mail_worker(processes)

    starts: dict[str, bool] = {}  # host's address -> the opening roll gave the host the turn
    for index, host in enumerate(hosts):
        if Player(f"q{index}").join(host):  # "q se sentó a tu mesa" to the host
            report.owe(host.address, "joined")
            match = host.match()
            starts[host.address] = match is not None and match.turn_seat_id == host.seat.pk

    # Killed while it talks to the server for a host who opens: that email claimed
    # the host's turn, and its takeover must still say "es tu turno".
    def an_opener_in_conversation():
        return any(opens and address in mail.inbox.in_rcpt for address, opens in starts.items())

    wait_until(an_opener_in_conversation, 10, 0.05)
    kill_the_mail_worker()
    time.sleep(10)  # the new worker has started
    moved = time.monotonic()
    for host, guest in pairs:  # "Es tu turno" due 60 s on, waiting in the new worker
        report.move_and_owe(host, guest)
    time.sleep(max(0.0, moved + TURN_EMAIL_PAUSE + 1.5 - time.monotonic()))
    kill_the_mail_worker()
    mail.inbox.slow_rcpt = 0.0
    # Counted from each email's due time: a killed worker is one fault, not an outage.
    wait_until(lambda: emails_in(mail.inbox, report), 240, 1)
    time.sleep(8)  # a duplicate, if any, would come now
    leases = db(lambda: SentEmail.objects.filter(key__startswith="lease:").count())
    told = es_tu_turno_told(mail, starts, report)
    report.close(f"2 kills mid-send; {leases} turn leases left; {told}")


def es_tu_turno_told(mail: MailServer, starts: dict[str, bool], report: Report) -> str:
    """A host who opens is told "es tu turno" by "someone sat down", once, even when
    it was a dead worker's email taken over (the turn's claim travels with it); a
    host who does not open never reads it. A miss fails the run (report.wrong)."""
    said = {
        address: sum(
            text.lower().count("es tu turno") for _, text in mail.inbox.texts.get(address, [])
        )
        for address in starts
    }
    for address, opens in starts.items():
        if said[address] != int(opens):
            report.wrong.append(
                f"{address} read 'es tu turno' {said[address]}× (owed {int(opens)})"
            )
    owed = sum(starts.values())
    once = sum(said[address] == 1 for address, opens in starts.items() if opens)
    # A conversation that named the host and delivered nothing: its worker was killed.
    cut = sum(
        opens and mail.inbox.rcpts[address] > len(mail.inbox.texts.get(address, []))
        for address, opens in starts.items()
    )
    return (
        f"'es tu turno' once to {once} of the {owed} hosts who open "
        f"({cut} of theirs taken over after a kill)"
    ) + "".join(f"; {line}" for line in report.wrong)


def boards_waiting(
    report: Report, processes: Processes, tag: str, rooms: int, *, against_bots: bool = False
) -> list[Player]:
    """Rooms of two whose boards wait for each other's moves (scripts.chaos.boards),
    and a few rooms against the computer (`against_bots`: their players' boards
    wait too, for the computer's moves): every player, to play in threads."""
    pairs = rooms_of_two(tag, rooms)
    players = [p for pair in pairs for p in pair]
    report.boards = Boards(processes.folder / "logs" / "mesa-access.log")
    report.bots = against_the_computer(tag, 3)
    report.boards.open(players + (report.bots if against_bots else []))
    time.sleep(3)  # the boards' first waits are held
    return players + report.bots


def caught_up(report: Report) -> bool:
    """Every board shows its room as it is, and the computer owes no move."""
    assert report.boards is not None
    return (
        report.boards.settled()
        and not report.boards.behind()
        and not waiting_for_the_computer(report.bots)
    )


def faults_under_boards(
    report: Report,
    processes: Processes,
    fault: Callable[[], None],
    times: int,
    apart: tuple[float, float],
    *,
    against_bots: bool = False,
) -> None:
    """The board scenarios' run: boards waiting and people playing for 55 s, `fault`
    done `times` times, `apart` (a range of seconds) between two; then every
    player done and every board caught up."""
    waiting = boards_waiting(report, processes, report.tag, 6, against_bots=against_bots)
    players = play_in_threads(report, waiting, 55, pause=3)
    for _ in range(times):
        time.sleep(random.uniform(*apart))
        fault()
    join_all(players, 90)
    wait_until(lambda: caught_up(report), 90)


def uvicorn_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """uvicorn (mesa-live, both its processes) SIGKILLed 4 times while the boards
    wait and people move, and started again 2 s later (RestartSec=2): the waits it
    held die with it, and nginx hands them to gunicorn (mesa_live's backup)."""
    report = Report("uvicorn SIGKILLed, boards waiting", "uk")

    def kill() -> None:
        log("uvicorn SIGKILLed (the whole unit); back in 2 s")
        processes.kill("live", signal.SIGKILL)
        time.sleep(2)  # mesa-live.service's RestartSec
        start_live(processes)

    faults_under_boards(report, processes, kill, 4, (7, 10))
    report.close("4 kills of the unit")


def pubsub_cut(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """The live hubs' Redis subscriptions killed 5 times (CLIENT KILL TYPE pubsub)
    while the boards wait and people move: each hub subscribes again, reads the
    keys of its rooms, and the waiting boards still see every move."""
    import redis

    report = Report("Redis pub/sub cut, boards waiting", "pc")
    server = redis.Redis.from_url(REDIS_URL)
    channel = live.channel()
    back: list[float] = []

    def cut() -> None:
        subscribers = server.pubsub_numsub(channel)[0][1]
        killed = server.client_kill_filter(_type="pubsub")
        at = time.monotonic()
        log(f"Redis: {killed} pub/sub connections killed ({subscribers} on {channel})")
        if wait_until(lambda n=subscribers: server.pubsub_numsub(channel)[0][1] >= n, 30, 0.05):
            back.append(time.monotonic() - at)

    faults_under_boards(report, processes, cut, 5, (6, 9))
    slowest = f"{max(back):.1f} s" if back else "-"
    report.close(f"5 cuts; subscribed again {len(back)}/5 times, within {slowest}")


def nginx_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """nginx (its master and workers) SIGKILLed 3 times while the boards wait on its
    channels and people and the computer move, and started again 2 s later, as an
    operator or a supervisor would. The channels' subscribers and nchan's kept
    pulses die with it; meanwhile the players' requests find nobody, and the
    computer's moves (made by a worker, not through nginx) find no nchan to
    publish to. Each board's broken wait sends it to the long poll for a minute,
    which reads those moves from the database."""
    report = Report("nginx SIGKILLed, boards waiting", "nk")

    def kill() -> None:
        log("nginx SIGKILLed (master and workers); back in 2 s")
        processes.kill("nginx", signal.SIGKILL)
        time.sleep(2)
        start_nginx(processes)

    faults_under_boards(report, processes, kill, 3, (9, 12), against_bots=True)
    report.close("3 kills of nginx")


def nginx_reload(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """nginx reloaded 4 times (SIGHUP to its master: `systemctl reload nginx`, as
    the kits do after certbot renewed the certificate) while the boards wait on
    its channels and people and the computer move. The old workers hand over to
    new ones; no board may miss a move, and no request may fail."""
    report = Report("nginx reloaded, boards waiting", "nr")

    def reload() -> None:
        log("nginx reloaded (SIGHUP)")
        os.kill(processes.running["nginx"].pid, signal.SIGHUP)

    faults_under_boards(report, processes, reload, 4, (7, 10), against_bots=True)
    report.close("4 reloads of nginx")


def signed_in_with_push(mail: MailServer, name: str, address: str) -> Player:
    """A person with an account (its address confirmed, "Es tu turno" at every turn),
    signed in through the log-in form, whose browser allowed notifications
    (POST /api/push/subscribe with the push service's endpoint and the browser's keys)."""
    user = db(lambda: User.objects.create_user(name, address, CHAOS_PASSWORD))
    db(
        lambda: Profile.objects.update_or_create(
            user=user, defaults={"email_confirmed": True, "notify": Seat.Notify.EVERY_TURN}
        )
    )
    player = Player(name, address)
    assert player.sign_in(name, CHAOS_PASSWORD), "sign-in failed"
    browser = mail.push.browser(address)
    status, _ = player.request("POST", "/api/push/subscribe", browser.subscription())
    assert status == 201, f"subscribe answered {status}"
    return player


def push_kill(processes: Processes, mail: MailServer, pg: Postgres) -> None:
    """ "Es tu turno" by Web Push beside the email, to signed-in players whose
    browsers allowed notifications, while the push service takes 1 s to answer
    each message and the mail worker (which sends both) is SIGKILLed as they fall
    due (60 s after each move)."""
    report = Report("turn push, mail worker SIGKILLed mid-push", "pw")
    hosts = [signed_in_with_push(mail, f"pwh{i}", f"pw-{i}-host@chaos.test") for i in range(6)]
    for host in hosts:
        assert host.open_room(), "setup failed"
    leave_the_board(hosts)  # away when their guest sits down: "se sentó a tu mesa"
    pairs = []
    for index, host in enumerate(hosts):
        guest = signed_in_with_push(mail, f"pwg{index}", f"pw-{index}-guest@chaos.test")
        assert guest.join(host), "setup failed"
        report.owe(host.address, "joined")
        pairs.append((host, guest))
    leave_the_board([guest for _host, guest in pairs])
    moved = time.monotonic()
    for host, guest in pairs:
        report.move_and_owe(host, guest)
    for (address, kind), dues in list(report.due.items()):
        if kind == "turn":  # the push of the same turn, at the same moment
            for due in dues:
                report.owe(address, "push", due=due)
    mail.push.slow = 1.0
    time.sleep(max(0.0, moved + TURN_EMAIL_PAUSE + 2 - time.monotonic()))
    log("mail worker SIGKILLed as the pushes fall due")
    processes.kill("mail", signal.SIGKILL)
    time.sleep(0.5)
    start_mail_worker(processes)
    wait_until(lambda: emails_in(mail.inbox, report), 240, 1)
    mail.push.slow = 0.0
    time.sleep(8)  # a duplicate, if any, would come now
    report.close(f"1 kill mid-push; {mail.push.unreadable} pushes unreadable")


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
    "mail-kill": mail_kill,
    "uvicorn-kill": uvicorn_kill,
    "pubsub-cut": pubsub_cut,
    "nginx-kill": nginx_kill,
    "nginx-reload": nginx_reload,
    "push": push_kill,
}
