"""Account operations used by the views, the emails and the other apps."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.db import transaction
from django.urls import reverse

from .models import EmailOptOut, Notify, Profile

UNSUBSCRIBE_SALT = "mesa.accounts.unsubscribe"
CONFIRM_SALT = "mesa.accounts.confirm-email"
CONFIRM_MAX_AGE = 60 * 60 * 24 * 7  # a week to open the confirmation link


def normalize_email(email: str | None) -> str:
    return (email or "").strip().lower()


def profile_for(user: User) -> Profile:
    """The user's Profile, created on the spot for accounts older than profiles."""
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


# Unsubscribing works by address, so one link serves accounts and guests
# alike. The signed token never expires: an old email must still let its
# reader stop the mail.
def unsubscribe_token(email: str) -> str:
    return signing.dumps(normalize_email(email), salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_url(email: str) -> str:
    """The absolute one-click unsubscribe link for an address."""
    path = reverse("accounts:unsubscribe", kwargs={"token": unsubscribe_token(email)})
    return settings.SITE_URL + path


def email_from_unsubscribe_token(token: str) -> str:
    """The address a token was made for; signing.BadSignature if forged."""
    email: str = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    return email


@transaction.atomic
def email_unsubscribe(*, email: str) -> None:
    """Stop all mail to an address; accounts using it switch to "none"."""
    email = normalize_email(email)
    EmailOptOut.objects.get_or_create(email=email)
    Profile.objects.filter(user__email__iexact=email).update(notify=Notify.NONE)


def email_is_opted_out(email: str) -> bool:
    return EmailOptOut.objects.filter(email=normalize_email(email)).exists()


@transaction.atomic
def profile_update(
    *,
    profile: Profile,
    display_name: str,
    language: str,
    notify: str,
    time_zone: str = "",
    forced_plays: bool | None = None,
) -> Profile:
    """Save the profile; choosing some mail again lifts an earlier opt-out.

    ``forced_plays`` None leaves that option as it was.
    """
    profile.display_name = display_name
    profile.language = language
    profile.notify = notify
    profile.time_zone = time_zone
    fields = ["display_name", "language", "notify", "time_zone"]
    if forced_plays is not None:
        profile.forced_plays = forced_plays
        fields.append("forced_plays")
    profile.save(update_fields=fields)
    if notify != Notify.NONE and profile.user.email:
        EmailOptOut.objects.filter(email=normalize_email(profile.user.email)).delete()
    return profile


@transaction.atomic
def email_change(*, user: User, email: str) -> bool:
    """Give the account a new address, unconfirmed until its link is opened."""
    if normalize_email(email) == normalize_email(user.email):
        return False
    user.email = email
    user.save(update_fields=["email"])
    profile_for(user)
    Profile.objects.filter(user=user).update(email_confirmed=False)
    return True


# The confirmation token names the user and the address, so it stops working
# if the address changes before the link is opened.
def confirm_email_url(user: User) -> str:
    token = signing.dumps(
        {"u": user.pk, "e": normalize_email(user.email)}, salt=CONFIRM_SALT, compress=True
    )
    return settings.SITE_URL + reverse("accounts:confirm_email", kwargs={"token": token})


def email_confirm(*, token: str) -> User | None:
    """Mark the address of a confirmation token as proven; the user or None."""
    try:
        data = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_MAX_AGE)
    except signing.BadSignature:
        return None
    user = get_user_model().objects.filter(pk=data.get("u")).first()
    if user is None or normalize_email(user.email) != data.get("e"):
        return None
    email_mark_confirmed(user=user)
    return user


def email_mark_confirmed(*, user: User) -> None:
    profile_for(user)
    Profile.objects.filter(user=user).update(email_confirmed=True)


def account_with_email(email: str) -> User | None:
    """The account that has this address (whatever its case), or None."""
    return get_user_model().objects.filter(email__iexact=normalize_email(email)).first()


def account_activate(*, user: User) -> bool:
    """Activate an account waiting for its first confirmation; True if it was waiting.

    Only an account that never logged in: an account an admin turned off
    stays off, whatever links it still holds.
    """
    if user.is_active or user.last_login is not None:
        return False
    activated = (
        get_user_model()
        .objects.filter(pk=user.pk, is_active=False, last_login__isnull=True)
        .update(is_active=True)
    )
    user.is_active = bool(activated)
    return user.is_active
