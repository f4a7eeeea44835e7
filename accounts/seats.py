"""The guest seats a browser holds, joined to an account at sign-up or log-in.

SITE-WEB keeps the browser's seats in the session as {room slug: seat token}
(games.presenters.SESSION_SEATS); the tokens are what prove the seats are
this browser's, so they are turned into seat ids here, never taken as ids.
"""


def browser_seat_ids(request):
    """Ids of the seats whose secret tokens this browser's session keeps."""
    # Imported here: the games app imports accounts' URLs through the URLconf.
    from games.models import Seat, hash_token
    from games.presenters import SESSION_SEATS

    tokens = request.session.get(SESSION_SEATS, {})
    if not isinstance(tokens, dict):
        return []
    hashes = [hash_token(token) for token in tokens.values() if isinstance(token, str)]
    if not hashes:
        return []
    return list(Seat.objects.filter(token_hash__in=hashes).values_list("pk", flat=True))


def claim_browser_seats(request, user):
    """Give `user` the guest seats of this browser; returns how many were joined."""
    from games.services import seats_claim_for_user

    seat_ids = browser_seat_ids(request)
    if not seat_ids:
        return 0
    return seats_claim_for_user(user=user, seat_ids=seat_ids)
