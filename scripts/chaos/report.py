"""What each scenario measured, and the table: moves, bots, emails, analyses, and the
longest lateness of each kind of follow-up."""

import json
import threading
import time
from collections import Counter

from django.utils import timezone

from games.analysis import QUICK_SUFFIX
from games.models import GameAnalysis, Match, Turn
from games.selectors import replay_match
from scripts.chaos.boards import Boards
from scripts.chaos.env import TURN_EMAIL_PAUSE, db, log, wait_until
from scripts.chaos.mailserver import Inbox
from scripts.chaos.players import GATEWAY, STATUSES, Player, on_turn, waiting_for_the_computer
from scripts.chaos.processes import Processes

# --- what each scenario measured -------------------------------------------------------


class Report:
    """One scenario's counts. Its `tag` begins every address of its players, and
    its emails are counted by that prefix: no tag may begin another (s1 would
    count s10's)."""

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
        # The waiting boards (None: none in this scenario): each acknowledged move
        # is owed to the other seat's board, and how late it showed it.
        self.boards: Boards | None = None
        self.board_owed = self.board_unseen = 0
        self.push_owed = self.push_delivered = self.push_duplicated = self.push_unowed = 0
        self.note = ""
        self.late: dict[str, float] = {}  # kind of follow-up -> the longest lateness seen
        self.analyses = self.analyses_unfinished = 0
        # When an outage of some length ended (time.time()): lateness counts from
        # then for what fell due during it (nothing can be done while the broker or
        # the database is away; the promise is about recovering). None: no outage.
        self.fault_over: float | None = None
        self.raw_late = 0.0  # the longest lateness counted from the due time alone
        # What a scenario checked in the texts received and found wrong (fails the run).
        self.wrong: list[str] = []

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
        acknowledged = time.time()
        if self.boards is not None and status == 200 and isinstance(answer, dict):
            self.boards.moved(player, answer["version"], acknowledged)
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
                if status in (599, GATEWAY):
                    # The connection died (nginx says so with its 502): the board reads the state.
                    self.unanswered_stored += 1
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

    def move_and_owe(self, host: Player, guest: Player) -> None:
        """The player on turn plays: when the turn passed, the other is owed "Es tu turno";
        when it did not (the move failed), the player is, for the turn still waiting."""
        mover = on_turn(host, guest)
        self.move(mover)
        other = guest if mover is host else host
        self.owe(other.address if on_turn(host, guest) is other else mover.address, "turn")

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
        if self.boards is not None:
            self.boards.close()
            seen = self.boards.lateness()
            behind = self.boards.behind()  # the computer's moves too, owed to nobody above
            if behind:
                note += f"; boards behind their room: {', '.join(sorted(behind))}"
            self.board_unseen = self.boards.unseen() + len(behind)
            self.board_owed = len(seen) + self.board_unseen
            if seen:
                self.late["board"] = max(seen)
                note += f"; boards: {self.boards.summary()}"
        self.note = note
        statuses = STATUSES - self.statuses_before
        self.errors = statuses[500]
        self.unanswered = statuses[599]
        if statuses[GATEWAY]:
            self.note += f"; {statuses[GATEWAY]} answered 502/504 by nginx (the app never did)"
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
        unowed = Counter({k: n for k, n in received.items() if k not in self.owed})
        if unowed:  # who got what nobody owed them, for the note
            self.note += "; unowed: " + ", ".join(
                f"{n}× {kind} to {address}" for (address, kind), n in sorted(unowed.items())
            )
        # The pushes among them (scripts.chaos.pushserver counts them in the same inbox):
        # the table shows them apart, the rules above hold for both.
        pushes = {k: n for k, n in self.owed.items() if k[1] == "push"}
        self.push_owed = sum(pushes.values())
        self.push_delivered = sum(min(received.get(k, 0), n) for k, n in pushes.items())
        self.push_duplicated = sum(max(0, received.get(k, 0) - n) for k, n in pushes.items())
        self.push_unowed = sum(n for k, n in unowed.items() if k[1] == "push")
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
            or self.wrong
            or self.board_unseen
        )

    def late_column(self, kind: str) -> str:
        if kind == "bot":
            return f"{self.latest:.0f}" if self.bot_owed else "-"
        if kind == "other":
            rest = [s for k, s in self.late.items() if k not in LATE]
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


def emails_in(inbox: Inbox, report: Report) -> bool:
    """Every owed email of the report has arrived."""
    return all(inbox.received[key] >= n for key, n in report.owed.items())


def analysis_lateness() -> None:
    """Each report's analyses (asked for while it ran): the longest from asked for
    to the first figures shown, and how many games have none. After every scenario:
    the analysis worker has one process, and a game's analysis may take it a while.

    A game's first figures are its quick pass's when the queue was behind
    (games.services.analysis.runs_quick): the quick row keeps the time the game
    asked; the full pass that follows, once the queue is idle, is no follow-up of
    its own (it replaces figures already shown) and is only counted in the note.
    """
    # DEFERRED too: its full pass is owed (chained run after run, with an instant
    # between two runs when nothing is PENDING).
    pending = (
        GameAnalysis.Status.PENDING,
        GameAnalysis.Status.RUNNING,
        GameAnalysis.Status.DEFERRED,
    )
    wait_until(
        lambda: not db(lambda: GameAnalysis.objects.filter(status__in=pending).exists()), 150, 1
    )
    now = timezone.now()
    rows = db(
        lambda: list(
            GameAnalysis.objects.values_list(
                "game_id", "version", "status", "requested_at", "finished_at", "seconds"
            )
        )
    )
    games: dict[int, list] = {}
    for row in rows:
        games.setdefault(row[0], []).append(row)
    starts = [r.started_at for r in Report.rows] + [now]
    for report, until in zip(Report.rows, starts[1:], strict=False):
        mine = [
            of_game
            for of_game in games.values()
            if report.started_at <= min(r[3] for r in of_game) < until
        ]
        report.analyses = len(mine)
        done = GameAnalysis.Status.DONE
        report.analyses_unfinished = sum(not any(r[2] == done for r in of_game) for of_game in mine)
        if not mine:
            continue
        quick = [r for of_game in mine for r in of_game if r[1].endswith(QUICK_SUFFIX)]
        full = [r for of_game in mine for r in of_game if not r[1].endswith(QUICK_SUFFIX)]
        # What the evaluation itself took (the rest is the queue of one process).
        longest = max((r[5] or 0 for r in full if r[2] == done), default=0)
        report.note += f"; full analyses took up to {longest:.0f} s each to run"
        if quick:
            longest_quick = max(r[5] or 0 for r in quick)
            deepened = sum(r[2] == done for r in full)
            report.note += (
                f"; {len(quick)} quick first (up to {longest_quick:.1f} s), "
                f"{deepened}/{len(mine)} full passes done by the end"
            )
        for of_game in mine:
            asked = min(r[3] for r in of_game)
            shown = [r[4] for r in of_game if r[2] == done and r[4]]
            late = report.lateness(asked.timestamp(), min(shown or [now]).timestamp())
            report.late["analysis"] = max(report.late.get("analysis", 0.0), late)


def replays_clean() -> tuple[int, int]:
    matches = db(lambda: list(Match.objects.select_related("room")))
    bad = sum(1 for match in matches if replay_match(match).to_json() != match.state)
    return len(matches), bad


LATE = ("bot", "board", "turn", "push", "joined", "ended", "other", "analysis")


def print_table(processes: Processes) -> None:
    """One line per scenario; "max late (s)" is the longest lateness of each kind of
    follow-up: a bot's action from the person's, an email from when it fell due
    (the turn email 60 s after the turn passed) to its arrival at the SMTP
    server, an analysis from asked for to done ("-": none owed); for what fell
    due during an outage (Redis, PostgreSQL, the mail server), from its end."""
    late_head = " ".join(f"{kind:>8}" for kind in LATE)
    head = (
        f"{'scenario':46} {'moves s/a/st':>13} {'told':>4} {'bots o/p':>9} {'seen o/s':>9} "
        f"{'emails o/d/dup/un':>17} {'push o/d/dup/un':>15} {'an o/unf':>8} {'5xx':>4} "
        f"{'stuck':>5} | max late (s): "
        f"{late_head}  note"
    )
    print()
    print(head)
    for r in Report.rows:
        emails = (
            r.emails_owed - r.push_owed,
            r.delivered - r.push_delivered,
            r.duplicated - r.push_duplicated,
            r.unowed - r.push_unowed,
        )
        late = " ".join(f"{r.late_column(kind):>8}" for kind in LATE)
        print(
            f"{r.name:46} {f'{r.sent}/{r.acknowledged}/{r.stored}':>13} {r.told_failed:>4} "
            f"{f'{r.bot_owed}/{r.bot_played}':>9} "
            f"{f'{r.board_owed}/{r.board_owed - r.board_unseen}':>9} "
            f"{f'{emails[0]}/{emails[1]}/{emails[2]}/{emails[3]}':>17} "
            f"{f'{r.push_owed}/{r.push_delivered}/{r.push_duplicated}/{r.push_unowed}':>15} "
            f"{f'{r.analyses}/{r.analyses_unfinished}':>8} "
            f"{r.errors:>4} {r.stuck:>5} |               {late}  {r.note}"
            + (
                f"; counted from the outage's end (from the due time: {r.raw_late:.0f} s)"
                if r.fault_over
                else ""
            )
            + (f"; {r.lost_answers} answers lost" if r.lost_answers else "")
        )
