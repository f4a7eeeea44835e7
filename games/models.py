"""Rooms, seats, matches, games and their turn log. Persistence only.

Every change goes through games.services; these classes only describe rows
and answer small questions about them. The engine's MatchState lives in
`Match.state` as JSON; `Turn` is the append-only log it can be rebuilt from
(games.selectors.replay_match).
"""

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext_lazy as _

from accounts.models import Notify
from games.engine import ActionKind

SEAT_NUMBERS = (1, 2)


def new_room_slug() -> str:
    # 96 random bits, URL-safe: the public invitation link.
    return secrets.token_urlsafe(12)


# Every slug a room can have: token_urlsafe's alphabet, at most the column's
# length. The URLs' room converter refuses anything else (a NUL byte, say, which
# PostgreSQL cannot even compare) before it reaches a view or the database.
ROOM_SLUG_PATTERN = r"[-A-Za-z0-9_]{1,32}"


def new_seat_token() -> str:
    # 192 random bits: the private seat link. Only its hash is stored.
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Room(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("esperando rival")
        PLAYING = "playing", _("en juego")
        FINISHED = "finished", _("terminada")
        EXPIRED = "expired", _("caducada")

    ACTIVE = (Status.WAITING, Status.PLAYING)

    slug = models.CharField(max_length=32, unique=True, default=new_room_slug, editable=False)
    rules = models.JSONField(help_text="MatchRules.to_json()")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    bot = models.CharField(
        max_length=20, blank=True, help_text="Seat 2 is this computer player when set."
    )
    # Chosen at creation: its matches change the players' ratings (docs/RATINGS.md).
    rated = models.BooleanField(default=True, help_text="Unticked: the players chose no rating.")
    created_at = models.DateTimeField()
    last_move_at = models.DateTimeField(help_text="Creation, a join or any recorded turn.")
    ended_at = models.DateTimeField(null=True, blank=True)
    # One more with every change of what the room's boards show, in the
    # change's transaction (games.services.live.room_moved): the state cache's key.
    # It and Match.version, the pulse, Head.stamp and the ETag: games.selectors.stamp.
    # A default in the database too: the processes of the release before,
    # still running while this one migrates, create rooms without it.
    state_serial = models.PositiveBigIntegerField(default=0, db_default=0, editable=False)
    # The correspondence clock chosen at creation (games.lib.deadlines): days the
    # player on turn has before absence, and the most a vacation may stop one turn
    # (a tournament's cap; empty: no cap).
    days_per_move = models.PositiveSmallIntegerField(default=2, db_default=2)
    vacation_cap_days = models.PositiveSmallIntegerField(null=True, blank=True)
    # Off for a tournament's match: its next match comes by itself.
    rematch = models.BooleanField(default=True, db_default=True)

    class Meta:
        indexes = [
            # expire_idle_rooms: active rooms with no move for 7 days.
            models.Index(
                fields=["last_move_at"],
                condition=Q(status__in=["waiting", "playing"]),
                name="room_idle_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


class Seat(models.Model):
    # How often the seat's guest wants mail: the same choices as an account's.
    Notify = Notify

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField(help_text="1 = the host, 2 = the guest or bot.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    nickname = models.CharField(max_length=30)
    email = models.EmailField(blank=True)
    email_consent = models.BooleanField(default=False)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    language = models.CharField(max_length=8, default="es")
    # The browser's IANA time zone, for the deadlines the emails name; empty: UTC.
    time_zone = models.CharField(max_length=64, blank=True, default="")
    notify = models.CharField(max_length=5, choices=Notify.choices, default=Notify.EVERY_TURN)
    created_at = models.DateTimeField()
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # Email bookkeeping. A turn is identified by Match.turn_started_at,
    # so "at most one email per turn" is `turn_notified_at == turn_started_at`.
    turn_notified_at = models.DateTimeField(null=True, blank=True)
    digest_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="seat_unique_number"),
            models.CheckConstraint(condition=Q(number__in=SEAT_NUMBERS), name="seat_number_1_2"),
        ]
        ordering = ["room_id", "number"]

    def __str__(self) -> str:
        return f"{self.room.slug}#{self.number} {self.nickname}"

    @property
    def is_bot(self) -> bool:
        return bool(self.room.bot) and self.number == 2

    def set_token(self) -> str:
        """Give the seat a fresh secret; return it (the only time it exists in clear)."""
        token = new_seat_token()
        self.token_hash = hash_token(token)
        self.token = token  # transient: the caller builds the private link from it
        return token

    def check_token(self, token: str) -> bool:
        if not isinstance(token, str) or not token:
            return False
        return hmac.compare_digest(self.token_hash, hash_token(token)) or constant_time_compare(
            self.mail_token(), token
        )

    def mail_token(self) -> str:
        """The seat's secret for the links in its emails (games.mail.messages).

        A worker mailing a guest has no clear token (only its hash is stored),
        so the email carries this second secret, derived from the hash with
        SECRET_KEY; a new seat token makes the old one stop working too.
        """
        return salted_hmac("mesa.seat.mail-link", self.token_hash, algorithm="sha256").hexdigest()


class Match(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", _("en juego")
        FINISHED = "finished", _("terminado")

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveSmallIntegerField(help_text="1, then 2, 3... for rematches.")
    side0_seat_number = models.PositiveSmallIntegerField(
        help_text="The seat playing side 0 (bottle caps); the other seat plays side 1."
    )
    state = models.JSONField(help_text="MatchState.to_json(); never holds a dice seed.")
    # One more with every move of the game (not a player's written notes): the
    # version a client saw, checked by every action (stale: 409). It and the room's
    # other marks of a change (state_serial, the pulse, the ETag): games.selectors.stamp.
    version = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    turn_seat = models.ForeignKey(
        Seat,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="matches_on_turn",
        help_text="The seat that must act now; empty when nobody owes an action.",
    )
    turn_started_at = models.DateTimeField(
        null=True, blank=True, help_text="When the turn passed to turn_seat."
    )
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    rematch_offered_by = models.ForeignKey(
        Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Absence bookkeeping: each holds the key of what it is about, so it lapses
    # by itself when the turn passes: absence_waived_for and
    # absence_notice_sent_for the turn_started_at of their turn,
    # reminder_sent_for the absence_due_at it reminded of (a deadline a
    # vacation moves is reminded again, once).
    absence_waived_for = models.DateTimeField(
        null=True, blank=True, help_text="The waiting player chose to keep waiting this turn."
    )
    reminder_sent_for = models.DateTimeField(null=True, blank=True)
    # The turn's absence deadline, written by games.services from
    # games.lib.deadlines.TurnClock.due_at; empty when no absence applies (nobody on
    # turn, the match over, a room against the computer). The sweeps read it.
    absence_due_at = models.DateTimeField(
        null=True, blank=True, help_text="When the waiting player may close by absence."
    )
    absence_notice_sent_for = models.DateTimeField(null=True, blank=True)
    # Written by the rating service in the transaction that ends the match: the
    # points it was rated as, empty when it was not rated. The record the
    # recompute (manage.py recompute_ratings) starts from, since seats may later
    # change hands (a guest's seat claimed by an account after the match).
    rated_length = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Rated as this many points; empty: not rated."
    )
    created_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="match_unique_number"),
        ]
        indexes = [
            # close_absent_games and the reminder sweep: active matches by turn age.
            models.Index(
                fields=["turn_started_at"],
                condition=Q(status="playing"),
                name="match_turn_active_idx",
            ),
            # The absence, reminder and "you may close" sweeps: turns by deadline.
            models.Index(
                fields=["absence_due_at"],
                condition=Q(absence_due_at__isnull=False),
                name="match_absence_due_idx",
            ),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.room.slug} match {self.number}"

    def side_of(self, seat: Seat) -> int:
        return 0 if seat.number == self.side0_seat_number else 1

    def seat_number_of(self, side: int) -> int:
        return self.side0_seat_number if side == 0 else 3 - self.side0_seat_number


class Game(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", _("en juego")
        FINISHED = "finished", _("terminada")

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField()
    # The dice seed stays secret until the game ends; `commitment` is public from the start.
    seed = models.BinaryField(max_length=32, editable=False)
    commitment = models.CharField(max_length=64)
    rolls_drawn = models.PositiveIntegerField(default=0)
    turn_count = models.PositiveIntegerField(default=0, help_text="Number of the last Turn.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    revealed = models.BooleanField(default=False)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveSmallIntegerField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="The engine's GameResult.")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="game_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.match} game {self.number}"

    @property
    def revealed_seed(self) -> str | None:
        """The seed in hex once the game is over, else None."""
        return bytes(self.seed).hex() if self.revealed else None


# Turn.kind's choices: the engine's action kinds, stored as their values.
TURN_KINDS = [(kind.value, kind.value) for kind in ActionKind]


class Turn(models.Model):
    """One recorded action: a roll, a cube action, a play, a resignation..."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField()
    side = models.PositiveSmallIntegerField()
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="turns")
    # An engine action: the site's own (SiteAction) lead to these or write none.
    kind = models.CharField(max_length=16, choices=TURN_KINDS)
    automatic = models.BooleanField(
        default=False, help_text="Done by the table: opening roll, a roll for who may not double."
    )
    dice = models.JSONField(null=True, blank=True)
    steps = models.JSONField(null=True, blank=True, help_text="[[src, dst], ...] from the mover.")
    value = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Resign value.")
    reason = models.CharField(
        max_length=16,
        blank=True,
        help_text="Why a forfeit; the answer a cond_answer writes; conditional or forced "
        "when the table played a take, drop, beaver or play for the player.",
    )
    table = models.JSONField(
        null=True, blank=True, help_text="cond_plays: [[high, low, [[src, dst], ...]], ...]."
    )
    cube_value = models.PositiveSmallIntegerField(help_text="The cube after the action.")
    # Position IDs from the acting side's point of view.
    position_before = models.CharField(max_length=14)
    position_after = models.CharField(max_length=14)
    notation = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="turn_unique_number"),
        ]
        ordering = ["game_id", "number"]

    def __str__(self) -> str:
        return f"{self.game} #{self.number} {self.kind}"


class SentEmail(models.Model):
    """A notification email that went out, named by what it was about (games.mail.messages).

    The unique key is what sends each one once, however often its task runs;
    the row is written (state "sending") before the mail server is contacted.
    """

    # "sending": claimed, the mail server is being talked to; "sent": it said
    # yes; "uncertain": the message went out whole but its answer was lost a
    # second time, so it is never sent again automatically; a "lost:<claim>"
    # key in this state records the first lost answer (games.mail.claims).
    class State(models.TextChoices):
        SENDING = "sending", _("enviándose")
        SENT = "sent", _("enviado")
        UNCERTAIN = "uncertain", _("sin respuesta del servidor")

    key = models.CharField(max_length=300, unique=True)
    sent_at = models.DateTimeField(help_text="When it was claimed (and, once sent, sent).")
    state = models.CharField(max_length=10, choices=State.choices, default=State.SENT)

    def __str__(self) -> str:
        return self.key


class FollowUp(models.Model):
    """Work owed after a change, written in the change's own transaction (an outbox).

    games.services.outbox publishes the task when the transaction commits; when that
    publish fails (broker down, process killed), the row stays unpublished and
    the follow-up sweep publishes it. The task, once it ran, sets `done_at`
    (games.tasks); a row published but not done by its `due_at` (the broker
    lost the message) is published again by the sweep. A mail task that keeps
    failing waits here between tries (`due_at` in the future), and lands here
    for good when it runs out of tries (`failed_at`): the dead letters of the
    admin.
    """

    task = models.CharField(max_length=100, help_text="The Celery task's name.")
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    due_at = models.DateTimeField(
        help_text="Unpublished: when it is owed. Published: when the sweep publishes it "
        "again unless it is done by then."
    )
    published_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField(
        null=True, blank=True, help_text="When the task reported it ran."
    )
    redrives = models.PositiveSmallIntegerField(
        default=0, help_text="How many times the sweep published it again, not done."
    )
    failed_at = models.DateTimeField(null=True, blank=True, help_text="Ran out of tries.")
    error = models.TextField(blank=True)
    # For a mail whose server answer was lost: the claim to release before
    # sending it again by hand (games.mail.claims.release_claim).
    release = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        indexes = [
            # The follow-up sweep: live rows not done yet (unpublished, or
            # published and maybe lost) by due time.
            models.Index(
                fields=["due_at"],
                condition=Q(done_at__isnull=True, failed_at__isnull=True),
                name="followup_owed_idx",
            ),
        ]
        verbose_name = _("tarea pendiente")
        verbose_name_plural = _("tareas pendientes")

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)}"


class GameAnalysis(models.Model):
    """bgsage's analysis of one finished game, for one version of the evaluator's settings.

    Written only by games.services.analysis; its rows per decision are
    TurnAnalysis. Running it again for the same version replaces them.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("en cola")
        RUNNING = "running", _("analizando")
        DONE = "done", _("hecho")
        FAILED = "failed", _("falló")
        # Its quick first pass stands in (games.services.analysis.runs_quick): the
        # catch-up owes this full one again when the queue is idle.
        DEFERRED = "deferred", _("primera pasada hecha")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="analyses")
    version = models.CharField(max_length=100, help_text="games.analysis Settings.version")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="Time the evaluation took.")
    summary = models.JSONField(
        null=True, blank=True, help_text="[side 0, side 1]: PlayerSummary.to_json()"
    )
    luck = models.JSONField(
        null=True,
        blank=True,
        help_text="Each roll's luck and each side's: {unit, rolls, sides}.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="analysis_unique_version"),
        ]
        indexes = [
            # The sweep that sends again an analysis whose message was lost.
            models.Index(
                fields=["requested_at"],
                condition=Q(status__in=["pending", "running"]),
                name="analysis_waiting_idx",
            ),
        ]
        verbose_name_plural = "game analyses"

    def __str__(self) -> str:
        return f"{self.game} analysis {self.status}"

    def pr_of(self, side: int) -> float | None:
        if self.status != self.Status.DONE or not self.summary:
            return None
        if not self.summary[side].get("decisions"):
            return None  # every move was forced: there is nothing to rate
        pr: float | None = self.summary[side]["pr"]  # summary: a JSON list, one per side
        return pr


class TurnAnalysis(models.Model):
    """The verdict on one decision (a checker play or a cube action) of a Turn."""

    analysis = models.ForeignKey(GameAnalysis, on_delete=models.CASCADE, related_name="turns")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="analyses")
    side = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, help_text="play, no_double, double, take, drop, beaver")
    forced = models.BooleanField(default=False)
    counted = models.BooleanField(default=True, help_text="Counts in the error rate and PR.")
    played_equity = models.FloatField()
    best_equity = models.FloatField()
    loss = models.FloatField()
    mark = models.CharField(max_length=10, blank=True, help_text="doubtful, error or blunder")
    best = models.CharField(max_length=64, help_text="The best play's notation, or cube action.")
    best_steps = models.JSONField(
        null=True, blank=True, help_text="[[src, dst], ...], mover's side"
    )
    alternatives = models.JSONField(
        default=list, help_text="[{notation, steps, equity}] best first"
    )
    cube = models.JSONField(null=True, blank=True, help_text="The doubler's {nd, dt, dp}.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["analysis", "turn"], name="turn_analysis_unique"),
        ]
        ordering = ["analysis_id", "turn__number"]

    def __str__(self) -> str:
        return f"{self.turn} {self.kind} {self.loss:.3f}"


# --- finding an opponent: open challenges and invitations by name ----------


def new_challenge_slug() -> str:
    # Random like a room's slug: a challenge's address tells nothing about the others.
    return secrets.token_urlsafe(12)


class Challenge(models.Model):
    """An open challenge in the lobby, or, with `invitee` set, an invitation by name.

    Written only by games.services (challenges); accepting one opens a room
    with the author at seat 1 and the accepting player at seat 2.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("abierto")
        ACCEPTED = "accepted", _("aceptado")
        DECLINED = "declined", _("rechazado")
        WITHDRAWN = "withdrawn", _("retirado")
        EXPIRED = "expired", _("caducado")

    slug = models.CharField(max_length=32, unique=True, default=new_challenge_slug, editable=False)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_made"
    )
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="invitations",
        help_text="Set for an invitation by name; empty for an open challenge.",
    )
    rules = models.JSONField(help_text="MatchRules.to_json()")
    rating_min = models.PositiveSmallIntegerField(null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(null=True, blank=True)
    days_per_move = models.PositiveSmallIntegerField(default=2, db_default=2)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(
        help_text="games.deadlines.CHALLENGE_OPEN_FOR after creation."
    )
    ended_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="challenges_accepted",
    )
    room = models.ForeignKey(
        Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="challenges"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(rating_min__isnull=True)
                | Q(rating_max__isnull=True)
                | Q(rating_min__lte=models.F("rating_max")),
                name="challenge_rating_range",
            ),
            models.CheckConstraint(
                condition=~Q(invitee=models.F("author")), name="challenge_not_to_oneself"
            ),
        ]
        indexes = [
            # The lobby and the expiry sweep: open challenges by deadline.
            models.Index(
                fields=["expires_at"], condition=Q(status="open"), name="challenge_open_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"challenge {self.slug} {self.status}"


# The longest word with a move, in characters.
MESSAGE_MAX = 200


class Message(models.Model):
    """A word from one player to the other, with a turn or on its own.

    Only the two players ever read it (games.selectors); a spectator's state
    has no trace of it. `version` is the match's version once it was written,
    so a word sent with a turn sits right after that turn.
    """

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="messages")
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="messages"
    )
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="messages")
    text = models.CharField(max_length=MESSAGE_MAX)
    version = models.PositiveIntegerField(default=0)
    with_turn = models.BooleanField(default=False, help_text="Sent together with an action.")
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["room", "created_at"], name="message_room_idx")]
        ordering = ["room_id", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.room.slug} {self.seat.nickname}: {self.text[:30]}"


class Mute(models.Model):
    """A player no longer reads an opponent's messages, for good.

    Always for the room it was asked in (the muter's seat); when both players
    have accounts, for every room they share, now and later.
    """

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="mute")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="mutes_made",
    )
    muted_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="mutes_received",
    )
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["user", "muted_user"], name="mute_accounts_idx")]

    def __str__(self) -> str:
        return f"mute by {self.seat}"


class PushSubscription(models.Model):
    """A browser where an account allowed notifications (the Push API's subscription).

    The endpoint is the push service's URL for that browser; p256dh and auth
    are its keys, which encrypt every message (RFC 8291) so the push service
    reads nothing.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=500, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=40)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id} {self.endpoint[:40]}"


def new_tournament_slug() -> str:
    # 96 random bits: a private tournament is joined by this link alone.
    return secrets.token_urlsafe(12)


class Tournament(models.Model):
    """A knockout or a league; its matches are ordinary rooms (TournamentMatch.room)."""

    class Kind(models.TextChoices):
        KNOCKOUT = "knockout", _("eliminatoria")
        LEAGUE = "league", _("liga")

    class Status(models.TextChoices):
        OPEN = "open", _("abierto")
        RUNNING = "running", _("en juego")
        FINISHED = "finished", _("terminado")
        CANCELLED = "cancelled", _("cancelado")

    ACTIVE = (Status.OPEN, Status.RUNNING)

    slug = models.CharField(max_length=32, unique=True, default=new_tournament_slug, editable=False)
    name = models.CharField(max_length=60)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="hosted_tournaments",
        help_text="Empty: one of the site's own.",
    )
    site_key = models.CharField(
        max_length=40, blank=True, help_text="Which of the site's standing tournaments this is."
    )
    private = models.BooleanField(default=False, help_text="Not listed; joined by its link.")
    capacity = models.PositiveSmallIntegerField(help_text="Players at most; it starts when full.")
    minimum = models.PositiveSmallIntegerField(help_text="Fewer than this by the start: cancelled.")
    group_size = models.PositiveSmallIntegerField(default=8, help_text="A league's largest group.")
    # Points per round, the last for the final (a knockout, Tournament.length_of); a league's one.
    lengths = models.JSONField()
    days_per_move = models.PositiveSmallIntegerField(default=2)
    vacation_cap_days = models.PositiveSmallIntegerField(default=7)
    rating_min = models.PositiveSmallIntegerField(null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(null=True, blank=True)
    starts_at = models.DateTimeField(help_text="Cancelled then unless it has its minimum.")
    created_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments_won",
    )

    class Meta:
        constraints = [
            # The beat's creation run twice makes one: one open per standing tournament.
            models.UniqueConstraint(
                fields=["site_key"],
                condition=Q(status="open") & ~Q(site_key=""),
                name="tournament_one_open_per_site_key",
            ),
        ]
        indexes = [
            # The start sweep and the open list: open tournaments by start.
            models.Index(
                fields=["starts_at"], condition=Q(status="open"), name="tournament_open_idx"
            ),
            models.Index(
                fields=["-started_at"],
                condition=Q(status="running"),
                name="tournament_running_idx",
            ),
            models.Index(
                fields=["-ended_at"], condition=Q(status="finished"), name="tournament_finished_idx"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def length_of(self, round_: int, rounds: int = 1) -> int:
        """The points of a match of this round of `rounds`: the last length is the
        final's, the others the first rounds' in order, the one before the final's
        repeating (a knockout that started short of players has fewer rounds)."""
        lengths = [int(length) for length in self.lengths]
        if round_ >= rounds or len(lengths) == 1:
            return lengths[-1]
        return lengths[min(round_, len(lengths) - 1) - 1]


class Entry(models.Model):
    """A player in a tournament."""

    class Status(models.TextChoices):
        IN = "in", _("sigue")
        OUT = "out", _("eliminado")
        WITHDRAWN = "withdrawn", _("retirado")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.IN)
    seed = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 = best rated.")
    rating = models.PositiveSmallIntegerField(null=True, blank=True, help_text="At the start.")
    group = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entry_once_per_player"),
        ]
        ordering = ["tournament_id", "seed", "joined_at"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.tournament} #{self.seed} {self.user}"


class TournamentMatch(models.Model):
    """One match of a tournament: its place, its players when known, and its room."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("esperando rivales")
        PLAYING = "playing", _("en juego")
        FINISHED = "finished", _("terminado")

    class Decided(models.TextChoices):
        PLAY = "play", _("jugado")
        WALKOVER = "walkover", _("sin jugar: un jugador se retiró")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    group = models.PositiveSmallIntegerField(default=0)
    round = models.PositiveSmallIntegerField()
    index = models.PositiveSmallIntegerField()
    length = models.PositiveSmallIntegerField()
    player_a = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    player_b = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    room = models.OneToOneField(
        Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_match"
    )
    winner = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    decided = models.CharField(max_length=10, choices=Decided.choices, blank=True)
    points_a = models.PositiveSmallIntegerField(default=0)
    points_b = models.PositiveSmallIntegerField(default=0)
    opened_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "group", "round", "index"], name="tournament_match_place"
            ),
        ]
        ordering = ["tournament_id", "group", "round", "index"]
        verbose_name_plural = "tournament matches"

    def __str__(self) -> str:
        return f"{self.tournament} g{self.group} r{self.round} #{self.index}"
