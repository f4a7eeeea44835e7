import logging

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from . import ratelimit
from .emails import send_templated_mail
from .models import Profile
from .services import profile_for

logger = logging.getLogger(__name__)

# Django's EmailField accepts up to 320 characters; the column holds 254.
EMAIL_MAX = get_user_model()._meta.get_field("email").max_length


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Correo"),
        max_length=EMAIL_MAX,
        help_text=_("Para recuperar tu clave y, si quieres, avisarte de tu turno."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")
        labels = {"username": _("Nombre de usuario")}

    def clean_email(self):
        email = self.cleaned_data["email"].strip()
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(
                _("Ya hay una cuenta con ese correo. ¿Olvidaste tu clave?"), code="email_taken"
            )
        return email


class RateLimitedAuthenticationForm(AuthenticationForm):
    """Django's login form, refusing for a while after repeated failures."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _(
            "Ese nombre de usuario y esa clave no coinciden. Revisa las mayúsculas de la clave."
        ),
        "too_many_attempts": _(
            "Demasiados intentos fallidos. Espera 15 minutos y vuelve a probar, "
            "o recupera tu clave por correo."
        ),
    }

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = ratelimit.client_address(self.request) if self.request else ""
        if ratelimit.login_is_blocked(username=username, address=address):
            raise forms.ValidationError(
                self.error_messages["too_many_attempts"], code="too_many_attempts"
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError as error:
            if any(e.code == "invalid_login" for e in error.error_list):
                ratelimit.login_failed(username=username, address=address)
            raise
        ratelimit.login_succeeded(username=username)
        return cleaned


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ("display_name", "language", "notify", "forced_plays")
        labels = {
            "display_name": _("Nombre que ven los demás"),
            "language": _("Idioma de la web y de los correos"),
            "notify": _("Correos sobre tus partidas"),
            "forced_plays": _("Juega por mí las jugadas forzadas"),
        }
        help_texts = {
            "display_name": _("Si lo dejas vacío, se muestra tu nombre de usuario."),
            "forced_plays": _(
                "Si una tirada solo se puede jugar de una manera, la mesa la juega al momento."
            ),
        }
        # The radio buttons read Notify's own words.
        widgets = {"notify": forms.RadioSelect}


class EmailChangeForm(forms.Form):
    """A new address for the account; the current password proves it is the owner."""

    email = forms.EmailField(label=_("Correo nuevo"), max_length=EMAIL_MAX)
    password = forms.CharField(label=_("Tu clave actual"), strip=False, widget=forms.PasswordInput)

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_email(self):
        email = self.cleaned_data["email"].strip()
        taken = get_user_model().objects.filter(email__iexact=email).exclude(pk=self.user.pk)
        if taken.exists():
            raise forms.ValidationError(_("Ya hay una cuenta con ese correo."), code="email_taken")
        return email

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("Esa no es tu clave."), code="wrong_password")
        return password


class MesaPasswordResetForm(PasswordResetForm):
    """Django's reset form, mailing our templates in the account's language."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
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
