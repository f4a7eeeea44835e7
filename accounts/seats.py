"""The guest seats a browser holds, joined to an account at sign-up or log-in.

SITE-WEB keeps the browser's seats in the session as {room slug: seat token}
(games.presenters.SESSION_SEATS); the tokens are what prove the seats are
this browser's, so they are turned into seat ids here, never taken as ids.
"""


def browser_seat_ids(request):
    """Ids of the guest seats this browser holds by their links' tokens.

    games.presenters.session_seats checks each token against its seat (the
    seat's own token or the one its emails carry), so a seat first opened
    from an email joins the account too.
    """
    # Imported here: the games app imports accounts' URLs through the URLconf.
    from games.presenters import session_seats

    return [seat.pk for seat in session_seats(request) if seat.user_id is None]


def claim_browser_seats(request, user):
    """Give `user` the guest seats of this browser; returns how many were joined."""
    from games.services import seats_claim_for_user

    seat_ids = browser_seat_ids(request)
    if not seat_ids:
        return 0
    return seats_claim_for_user(user=user, seat_ids=seat_ids)
