import logging
import zoneinfo
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.contrib.auth.models import User
from django.db.models import CharField
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from . import lockout
from .emails import send_templated_mail
from .models import Profile
from .services import profile_for

logger = logging.getLogger(__name__)


# Django's EmailField accepts up to 320 characters; the column holds 254.
def _email_max() -> int:
    column = get_user_model()._meta.get_field("email")
    assert isinstance(column, CharField) and column.max_length is not None
    return column.max_length


EMAIL_MAX = _email_max()


class SignupForm(UserCreationForm[User]):
    email = forms.EmailField(
        label=_("Correo"),
        max_length=EMAIL_MAX,
        help_text=_("Para recuperar tu clave y, si quieres, avisarte de tu turno."),
    )

    # django-stubs declares no UserCreationForm.Meta; Django's has the model and
    # the username's field class, which this Meta keeps.
    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        model = get_user_model()
        fields = ("username", "email")
        labels = {"username": _("Nombre de usuario")}

    def clean_email(self) -> str:
        # Whether an account has this address is not the form's to say: the
        # view answers the same either way and mails the owner (views.signup).
        email: str = self.cleaned_data["email"].strip()
        return email


class LockoutAuthenticationForm(AuthenticationForm):
    """Refuse a log-in unchecked while its username or its address is locked out.

    The failure itself is counted where every log-in path meets it: django-axes
    for the username, accounts.lockout's receiver for the address.
    """

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        if self.request is not None and lockout.is_blocked(self.request, username):
            raise forms.ValidationError(
                lockout.too_many_attempts_message(), code="too_many_attempts"
            )
        return super().clean()


class RateLimitedAuthenticationForm(LockoutAuthenticationForm):
    """Django's log-in form, refusing for a while after repeated failures."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _(
            "Ese nombre de usuario y esa clave no coinciden. Revisa las mayúsculas de la clave."
        ),
    }


class AdminLoginForm(LockoutAuthenticationForm, AdminAuthenticationForm):
    """The admin's log-in form under the same lockouts as the site's (accounts.admin)."""


class ProfileForm(forms.ModelForm[Profile]):
    class Meta:
        model = Profile
        fields = ("display_name", "language", "notify", "time_zone", "forced_plays")
        labels = {
            "display_name": _("Nombre que ven los demás"),
            "language": _("Idioma de la web y de los correos"),
            "notify": _("Correos sobre tus partidas"),
            "time_zone": _("Tu zona horaria"),
            "forced_plays": _("Juega por mí las jugadas forzadas"),
        }
        help_texts = {
            "display_name": _("Si lo dejas vacío, se muestra tu nombre de usuario."),
            "time_zone": _("Los correos te dicen en esta hora hasta cuándo puedes jugar."),
            "forced_plays": _(
                "Si una tirada solo se puede jugar de una manera, la mesa la juega al momento."
            ),
        }
        # The radio buttons read Notify's own words.
        widgets = {"notify": forms.RadioSelect}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Every IANA zone this machine knows, the browser's first (static/js/zone.js).
        zones = sorted(zoneinfo.available_timezones())
        self.fields["time_zone"].widget = forms.Select(
            choices=[("", _("UTC (sin zona horaria)"))] + [(zone, zone) for zone in zones]
        )

    def clean_time_zone(self) -> str:
        zone = self.cleaned_data.get("time_zone") or ""
        if zone and zone not in zoneinfo.available_timezones():
            raise forms.ValidationError(_("No conocemos esa zona horaria."))
        return zone


class EmailChangeForm(forms.Form):
    """A new address for the account; the current password proves it is the owner."""

    email = forms.EmailField(label=_("Correo nuevo"), max_length=EMAIL_MAX)
    password = forms.CharField(label=_("Tu clave actual"), strip=False, widget=forms.PasswordInput)

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_email(self) -> str:
        email: str = self.cleaned_data["email"].strip()
        taken = get_user_model().objects.filter(email__iexact=email).exclude(pk=self.user.pk)
        if taken.exists():
            raise forms.ValidationError(_("Ya hay una cuenta con ese correo."), code="email_taken")
        return email

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("Esa no es tu clave."), code="wrong_password")
        return password


class MesaPasswordResetForm(PasswordResetForm):
    """Django's reset form, mailing our templates in the account's language."""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        user = context["user"]
        # SITE_URL, not the request's Host header: a forged Host must never
        # end up in a reset link.
        reset_url = settings.SITE_URL + reverse(
            "accounts:password_reset_confirm",
            kwargs={"uidb64": context["uid"], "token": context["token"]},
        )
        profile = profile_for(user)
        try:
            send_templated_mail(
                to=to_email,
                template_name="password_reset",
                context={"name": profile.name, "reset_url": reset_url},
                language=profile.language,
            )
        except Exception:
            # Like Django's own form: log, and show the same page as for an
            # unknown address, so a failure does not reveal that it exists.
            logger.exception("could not send the password reset mail to user %s", user.pk)
