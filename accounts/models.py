from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .fibs import START_RATING, Standing


class Notify(models.TextChoices):
    """How often a person wants mail about their games: an account's, and a guest
    seat's (games.models.Seat.Notify is this one), with the words the profile
    form and the admin show."""

    EVERY_TURN = "turn", _("Cada vez que te toca jugar")
    DAILY = "daily", _("Un resumen al día con las partidas que te esperan")
    NONE = "none", _("Ninguno")


class Profile(models.Model):
    """What Mesa keeps about an account besides Django's User."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(_("nombre visible"), max_length=40, blank=True)
    language = models.CharField(
        _("idioma"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    notify = models.CharField(
        _("correos"), max_length=8, choices=Notify.choices, default=Notify.EVERY_TURN
    )
    # An IANA name ("Europe/Madrid"): the emails write deadlines in it; empty: UTC.
    time_zone = models.CharField(_("zona horaria"), max_length=64, blank=True, default="")
    # Set when the person opened the confirmation link (or a password reset
    # link) sent to their address, so mail goes only to addresses proven theirs.
    email_confirmed = models.BooleanField(_("correo confirmado"), default=False)
    # A turn with one legal play is played for the player at once (the history
    # says so); off, the board waits for them to play it.
    forced_plays = models.BooleanField(_("jugadas forzadas automáticas"), default=True)

    class Meta:
        verbose_name = _("perfil")
        verbose_name_plural = _("perfiles")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return self.display_name or self.user.get_username()


class EmailOptOut(models.Model):
    """An address that asked for no more mail, account or guest alike."""

    email = models.EmailField(_("correo"), unique=True)
    created_at = models.DateTimeField(_("fecha"), auto_now_add=True)

    class Meta:
        verbose_name = _("baja de correo")
        verbose_name_plural = _("bajas de correo")

    def __str__(self) -> str:
        return self.email


class Rating(models.Model):
    """A player's FIBS rating (accounts.fibs): an account's, or a computer player's.

    Written only by games' rating service, in the transaction that ends a
    match; each rated match leaves a RatingChange per player, so the stored
    number can be rebuilt from the match records (manage.py recompute_ratings).
    The computer players have rows of their own, named by `bot`, so a newcomer
    can calibrate against them.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="rating",
    )
    bot = models.CharField(_("jugador de la computadora"), max_length=20, blank=True)
    rating = models.FloatField(_("puntuación"), default=START_RATING)
    experience = models.PositiveIntegerField(
        _("experiencia"), default=0, help_text="Sum of the lengths of the rated matches."
    )
    matches = models.PositiveIntegerField(_("partidas puntuadas"), default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # Exactly one of the two: an account or a computer player.
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot="")) | (Q(user__isnull=True) & ~Q(bot="")),
                name="rating_user_or_bot",
            ),
            models.UniqueConstraint(fields=["bot"], condition=~Q(bot=""), name="rating_bot_unique"),
        ]
        indexes = [
            # The leaderboard: the rated players by rating.
            models.Index(fields=["-rating"], condition=Q(matches__gt=0), name="rating_board_idx"),
        ]
        verbose_name = _("puntuación")
        verbose_name_plural = _("puntuaciones")

    def __str__(self) -> str:
        return f"{self.bot or self.user_id}: {self.rating:.2f}"

    @property
    def standing(self) -> Standing:
        return Standing(self.rating, self.experience)


class RatingChange(models.Model):
    """What one rated match did to one player's rating: the history, a row per match."""

    player = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
    opponent = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="+")
    # A string reference: accounts never imports games, the match stays games' row.
    match = models.ForeignKey(
        "games.Match", on_delete=models.CASCADE, related_name="rating_changes"
    )
    won = models.BooleanField()
    length = models.PositiveSmallIntegerField(help_text="The points the match was rated as.")
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    delta = models.FloatField()
    experience_before = models.PositiveIntegerField()
    opponent_rating_before = models.FloatField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "match"], name="rating_change_once"),
        ]
        ordering = ["player_id", "created_at", "id"]
        verbose_name = _("cambio de puntuación")
        verbose_name_plural = _("cambios de puntuación")

    def __str__(self) -> str:
        return f"{self.player} {self.delta:+.2f} (match {self.match_id})"


class Vacation(models.Model):
    """Time away: the player's clocks stand still in every match (games' deadlines).

    Starts when asked, mid-turn too; ends at `ends_at`, or earlier when the
    player moves or comes back (`ended_at`). accounts.vacation counts the
    allowance; games' vacation service writes the rows and moves the deadlines.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations"
    )
    starts_at = models.DateTimeField(_("desde"))
    ends_at = models.DateTimeField(_("hasta"))
    ended_at = models.DateTimeField(
        _("volvió"), null=True, blank=True, help_text="Came back early: moved, or said so."
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="vacation_ends_after_start"
            ),
        ]
        indexes = [models.Index(fields=["user", "ends_at"], name="vacation_user_end_idx")]
        ordering = ["user_id", "starts_at"]
        verbose_name = _("vacaciones")
        verbose_name_plural = _("vacaciones")

    def __str__(self) -> str:
        return f"{self.user_id} {self.starts_at:%Y-%m-%d} → {self.until:%Y-%m-%d %H:%M}"

    @property
    def until(self) -> datetime:
        """When it ends (or ended): the early return, else the planned end."""
        return self.ended_at or self.ends_at

    @property
    def span(self) -> tuple[datetime, datetime]:
        return (self.starts_at, self.until)
