"""Who gets mail about a seat, at which address, in which language.

One rule for every notification (your turn, digest, reminders), so that the
promises of the profile and the unsubscribe link hold everywhere:

- a seat of an account mails the account's address, only once it is
  confirmed, with the profile's language and notification choice;
- a guest seat mails the address the guest gave, only with their consent,
  with the seat's own language and choice;
- an address that unsubscribed gets nothing, account or guest.
"""

from dataclasses import dataclass
from typing import Protocol

from django.contrib.auth.models import User

from .models import Notify
from .services import email_is_opted_out, profile_for, unsubscribe_url


@dataclass(frozen=True)
class Recipient:
    email: str
    language: str
    notify: str  # a Notify value, never Notify.NONE
    unsubscribe_url: str
    time_zone: str = ""  # an IANA name for the deadlines the mail names; "" is UTC


class MailSeat(Protocol):
    """What this module reads of a seat (games.models.Seat; accounts never imports games)."""

    @property
    def user_id(self) -> int | None: ...
    @property
    def user(self) -> User | None: ...
    @property
    def email(self) -> str: ...
    @property
    def email_consent(self) -> bool: ...
    @property
    def language(self) -> str: ...
    @property
    def notify(self) -> str: ...
    @property
    def time_zone(self) -> str: ...


def never_mailed(seat: MailSeat) -> bool:
    """Whether no mail about `seat` can ever go out, whatever happens next: a guest
    who gave no address, or no consent (a guest gives both once, taking the seat).
    An account's seat is never this: its address may be confirmed tomorrow."""
    return seat.user_id is None and not (seat.email and seat.email_consent)


def recipient_for_user(user: User) -> Recipient | None:
    """The Recipient of mail to an account itself (an invitation by name), or None:
    the same rules as for an account's seat."""
    profile = profile_for(user)
    if not profile.email_confirmed:
        return None
    return _recipient(user.email, profile.language, profile.notify, profile.time_zone)


def recipient_for_seat(seat: MailSeat) -> Recipient | None:
    """The Recipient of mail about `seat`, or None when nobody is to be mailed."""
    if seat.user is not None:
        profile = profile_for(seat.user)
        if not profile.email_confirmed:
            return None
        email, language, notify = seat.user.email, profile.language, profile.notify
        # The profile's zone, else the one the browser gave when the seat was taken.
        zone = profile.time_zone or seat.time_zone
    else:
        if not seat.email_consent:
            return None
        email, language, notify = seat.email, seat.language, seat.notify
        zone = seat.time_zone
    return _recipient(email, language, notify, zone)


def _recipient(email: str, language: str, notify: str, zone: str) -> Recipient | None:
    if not email or notify == Notify.NONE or email_is_opted_out(email):
        return None
    return Recipient(
        email=email,
        language=language,
        notify=notify,
        unsubscribe_url=unsubscribe_url(email),
        time_zone=zone,
    )
