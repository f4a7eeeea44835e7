import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, SetPasswordForm
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from . import ratelimit, services
from .emails import send_templated_mail
from .forms import (
    EmailChangeForm,
    MesaPasswordResetForm,
    ProfileForm,
    RateLimitedAuthenticationForm,
    SignupForm,
)

logger = logging.getLogger(__name__)


class AccountRequest(HttpRequest):
    """A request that login_required let through: its user is an account."""

    user: User


def _use_language(response: HttpResponse, language: str) -> HttpResponse:
    # The same cookie Django's set_language view writes, so the site follows
    # the profile from the next page on.
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def _after_login(request: HttpRequest, user: User, response: HttpResponse) -> HttpResponse:
    """What every way into an account does once the user is logged in.

    (The guest seats of this browser join the account in games.web.signals, a
    receiver of user_logged_in: accounts knows nothing of games.)
    """
    return _use_language(response, services.profile_for(user).language)


def _send_confirmation(request: HttpRequest, user: User) -> bool:
    """Mail the confirmation link and tell the person how it went."""
    profile = services.profile_for(user)
    try:
        send_templated_mail(
            to=user.email,
            template_name="confirm_email",
            context={"name": profile.name, "confirm_url": services.confirm_email_url(user)},
            language=profile.language,
        )
    except Exception:
        # A mail server that is down must not undo a sign-up that succeeded.
        logger.exception("could not send the confirmation mail to user %s", user.pk)
        messages.warning(
            request,
            _("No pudimos mandarte el correo de confirmación. Pídelo otra vez desde tu perfil."),
        )
        return False
    return True


def _mail_signup(user: User, *, template_name: str, context: dict[str, Any]) -> bool:
    """One sign-up mail; False when the mail server failed (logged). Past the
    address's sign-up mail of the day nothing is sent, and the person is told
    nothing different (ratelimit.recipient_mail_allowed logs it)."""
    if not ratelimit.recipient_mail_allowed(kind="signup", email=user.email):
        return True
    profile = services.profile_for(user)
    try:
        send_templated_mail(
            to=user.email,
            template_name=template_name,
            context={"name": profile.name, **context},
            language=profile.language,
        )
    except Exception:
        logger.exception("could not send the sign-up mail %s to user %s", template_name, user.pk)
        return False
    return True


SIGNUP_NEXT = "mesa_signup_next"


def _safe_next(request: HttpRequest) -> str:
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Open an account; the answer is the same whether the email has one already.

    1. A new email: the account is made inactive and its confirmation link
       mailed; opening the link activates it and logs in (confirm_email).
    2. An email with an account: nothing is made; its owner gets a note (or,
       for an account still waiting for its link, the link again).
    Either way the browser sees "check your mail", so the form cannot tell
    anyone which addresses have an account. Each counts against the
    address's sign-up limit, since each sends a mail.
    """
    next_url = _safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url or "accounts:profile")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if not ratelimit.signup_allowed(address=ratelimit.client_key(request)):
            form.add_error(
                None,
                _(
                    "Demasiadas cuentas nuevas desde tu conexión. "
                    "Prueba otra vez dentro de una hora."
                ),
            )
            return render(
                request, "accounts/signup.html", {"form": form, "next": next_url}, status=429
            )
        existing = services.account_with_email(form.cleaned_data["email"])
        if existing is not None:
            # Hash the password all the same: a sign-up that skipped the
            # hasher would answer a known email measurably sooner.
            make_password(form.cleaned_data["password1"])
        if existing is None:
            user = form.save(commit=False)
            user.is_active = False
            user.save()
            profile = services.profile_for(user)
            # The account starts in the language the person was reading.
            profile.language = translation.get_language() or profile.language
            profile.save(update_fields=["language"])
            sent = _mail_signup(
                user,
                template_name="confirm_email",
                context={"confirm_url": services.confirm_email_url(user)},
            )
        elif not existing.is_active and existing.last_login is None:
            sent = _mail_signup(
                existing,
                template_name="confirm_email",
                context={"confirm_url": services.confirm_email_url(existing)},
            )
        else:
            sent = _mail_signup(
                existing,
                template_name="signup_existing",
                context={
                    "username": existing.get_username(),
                    "login_url": settings.SITE_URL + reverse("accounts:login"),
                    "reset_url": settings.SITE_URL + reverse("accounts:password_reset"),
                },
            )
        if next_url:
            # Where the link brings this browser back to (confirm_email).
            request.session[SIGNUP_NEXT] = next_url
        if not sent:
            messages.warning(
                request,
                _("No pudimos mandarte el correo. Prueba otra vez en unos minutos."),
            )
        return redirect("accounts:signup_sent")
    return render(request, "accounts/signup.html", {"form": form, "next": next_url})


@require_http_methods(["GET"])
def signup_sent(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/signup_sent.html")


class LoginView(auth_views.LoginView):
    form_class = RateLimitedAuthenticationForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.get_user()
        assert isinstance(user, User)  # a valid login form holds the account
        return _after_login(self.request, user, response)


class PasswordResetView(auth_views.PasswordResetView):
    form_class = MesaPasswordResetForm
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        allowed = ratelimit.password_reset_allowed(
            email=form.cleaned_data["email"], address=ratelimit.client_key(self.request)
        )
        if not allowed:
            # The same page as a sent mail: the limit reveals nothing either.
            return redirect(self.get_success_url())
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    success_url = reverse_lazy("accounts:password_reset_complete")

    def form_valid(self, form: "SetPasswordForm[User]") -> HttpResponse:
        # Opening the link proved the mailbox is theirs.
        services.email_mark_confirmed(user=form.user)
        return super().form_valid(form)


class PasswordChangeView(auth_views.PasswordChangeView):
    success_url = reverse_lazy("accounts:password_change_done")


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: AccountRequest) -> HttpResponse:
    profile = services.profile_for(request.user)
    form = ProfileForm(request.POST or None, instance=profile)
    if request.method == "POST" and form.is_valid():
        services.profile_update(profile=profile, **form.cleaned_data)
        with translation.override(profile.language):
            messages.success(request, _("Guardado."))
        return _use_language(redirect("accounts:profile"), profile.language)
    return render(request, "accounts/profile.html", {"form": form, "profile": profile})


@login_required
@require_http_methods(["GET", "POST"])
def change_email(request: AccountRequest) -> HttpResponse:
    form = EmailChangeForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        if not services.email_change(user=request.user, email=form.cleaned_data["email"]):
            return redirect("accounts:profile")
        # Changes count against the resend limit: each one mails a new address.
        if not _confirmation_allowed(request.user):
            messages.warning(
                request,
                _(
                    "Guardamos tu correo nuevo, pero ya te mandamos varios correos hace poco. "
                    "Pide la confirmación desde tu perfil en una hora."
                ),
            )
        elif _send_confirmation(request, request.user):
            messages.success(
                request, _("Listo. Te mandamos un enlace a tu correo nuevo para confirmarlo.")
            )
        return redirect("accounts:profile")
    return render(request, "accounts/change_email.html", {"form": form})


@login_required
@require_http_methods(["POST"])
def resend_confirmation(request: AccountRequest) -> HttpResponse:
    if services.profile_for(request.user).email_confirmed:
        return redirect("accounts:profile")
    if not _confirmation_allowed(request.user):
        messages.warning(
            request, _("Ya te mandamos varios correos hace poco. Prueba otra vez en una hora.")
        )
    elif _send_confirmation(request, request.user):
        messages.success(request, _("Te mandamos otro correo de confirmación."))
    return redirect("accounts:profile")


def _confirmation_allowed(user: User) -> bool:
    """Within the account's confirmations of the hour and its address's of the day."""
    return ratelimit.confirmation_resend_allowed(
        user_id=user.pk
    ) and ratelimit.recipient_mail_allowed(kind="confirm", email=user.email)


@require_http_methods(["GET"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    user = services.email_confirm(token=token)
    if user is not None and services.account_activate(user=user):
        # The link of a new account: opening it proved the mailbox, and it
        # is the account's first way in. A later link only confirms.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Te damos la bienvenida a Mesa. Tu cuenta está lista."))
        next_url = request.session.pop(SIGNUP_NEXT, "")
        return _after_login(request, user, redirect(next_url or "accounts:profile"))
    return render(request, "accounts/confirm_email.html", {"confirmed": user is not None})


# Mail clients post RFC 8058 one-click unsubscribes without a CSRF token; the
# signed token in the URL is what authorises the request.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        email = services.email_from_unsubscribe_token(token)
    except signing.BadSignature:
        return render(request, "accounts/unsubscribe_invalid.html", status=400)
    if request.method == "POST":
        services.email_unsubscribe(email=email)
        if request.POST.get("List-Unsubscribe") == "One-Click":
            return HttpResponse(_("Baja hecha."), content_type="text/plain; charset=utf-8")
        return render(request, "accounts/unsubscribe_done.html", {"email": email})
    return render(request, "accounts/unsubscribe.html", {"email": email})
