from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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
