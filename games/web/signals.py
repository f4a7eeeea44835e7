"""The games app's answers to signals of other apps.

A guest's seats in this browser join the account at sign-up or log-in: the
session keeps {room slug: seat token} (games.web.seats.SESSION_SEATS), and the
tokens are what prove the seats are this browser's, so they are turned into
seat ids here, never taken as ids. accounts knows nothing of games for it.
"""

from django.contrib import messages
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils.translation import ngettext

from games.services import seats_claim_for_user
from games.web.seats import session_seats


def browser_seat_ids(request: HttpRequest) -> list[int]:
    """Ids of the guest seats this browser holds by their links' tokens.

    games.web.seats.session_seats checks each token against its seat (the seat's
    own token or the one its emails carry), so a seat first opened from an
    email joins the account too.
    """
    return [seat.pk for seat in session_seats(request) if seat.user_id is None]


@receiver(user_logged_in, dispatch_uid="games.claim_browser_seats")
def claim_browser_seats(
    sender: type[User], request: HttpRequest | None, user: User, **kwargs: object
) -> int:
    """Give `user` the guest seats of this browser, and say so; returns how many joined."""
    if request is None or not hasattr(request, "session"):
        return 0
    seat_ids = browser_seat_ids(request)
    if not seat_ids:
        return 0
    joined = seats_claim_for_user(user=user, seat_ids=seat_ids)
    if joined:
        messages.success(
            request,
            ngettext(
                "Tu partida de invitado ahora es de tu cuenta.",
                "Tus %(count)d partidas de invitado ahora son de tu cuenta.",
                joined,
            )
            % {"count": joined},
            fail_silently=True,  # the test client's login has no message storage
        )
    return joined
