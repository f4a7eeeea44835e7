"""Who holds which seat: the browser's session, the private seat link, the account.

A browser holds a seat through its session: the private seat link stores the
seat's token there (the database keeps only its hash). A logged-in owner holds
their seats on any device. Everybody else is a spectator.
"""

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Prefetch
from django.http import Http404, HttpRequest

from games.lib.errors import NotFound
from games.models import Room, Seat
from games.selectors.board import seat_held
from games.selectors.stamp import room_head

SESSION_SEATS = "mesa_seats"  # {room slug: seat token}


def load_room(slug: str) -> Room:
    """The room with its two seats, in two queries; NotFound (404) otherwise. `slug`
    has passed the URL's room converter: nothing else reaches the database."""
    try:
        return Room.objects.prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))
        ).get(slug=slug)
    except Room.DoesNotExist:
        raise NotFound("not_found", f"no room {slug!r}") from None


def session_token(request: HttpRequest, room: Room) -> str | None:
    token = request.session.get(SESSION_SEATS, {}).get(room.slug)
    return token if isinstance(token, str) else None


def session_tokens(request: HttpRequest) -> dict[str, str]:
    """{room slug: seat token} this browser holds (none on a request without a session)."""
    seats = getattr(request, "session", {}).get(SESSION_SEATS, {})
    return {slug: token for slug, token in seats.items() if isinstance(token, str)}


def remember_seat(request: HttpRequest, room: Room, token: str) -> None:
    seats = dict(request.session.get(SESSION_SEATS, {}))
    seats.pop(room.slug, None)  # re-remembered: now the newest
    seats[room.slug] = token
    # A bounded list: past the limit the oldest seats drop out of this browser
    # (their private links and an account still hold them).
    for slug in list(seats)[: max(0, len(seats) - settings.MESA_SESSION_SEATS_MAX)]:
        del seats[slug]
    request.session[SESSION_SEATS] = seats
    # A new privilege, like a login: a fresh session key, so a session cookie
    # planted by someone else never ends up holding the seat.
    request.session.cycle_key()


def seat_for_token(room: Room, token: str, seats: Iterable[Seat] | None = None) -> Seat | None:
    """The seat of this room whose secret is `token` (compared in constant time).
    `seats`: the room's seats when the caller loaded them otherwise than prefetched."""
    return seat_held(room.seats.all() if seats is None else seats, token=token, user_id=None)


def viewer_seat(
    request: HttpRequest, room: Room, seats: Iterable[Seat] | None = None
) -> Seat | None:
    """The seat this request may act for, or None for a spectator (`seats`: as seat_for_token)."""
    token, user_id = who_asks(request, room.slug)
    return seat_held(room.seats.all() if seats is None else seats, token=token, user_id=user_id)


def acting_seat(request: HttpRequest, slug: str) -> Seat | None:
    """The seat this request may act for in room `slug` (None: a spectator), found
    among the room's seats as its head reads them (games.selectors.stamp): one
    query where load_room's two read the room and seats whole for an action that
    needs neither. The seat has HEAD_SEAT_FIELDS loaded, which hold what the
    services read of the seat they are given (its id, room, number and account);
    any other field is loaded when read. NotFound: no such room."""
    token, user_id = who_asks(request, slug)
    head = room_head(slug, token=token, user_id=user_id)
    if head is None:
        raise NotFound("not_found", f"no room {slug!r}")
    return head.viewer


def who_asks(request: HttpRequest, slug: str) -> tuple[str | None, int | None]:
    """The seat token this browser keeps for room `slug` and the account's id, without
    a query: what games.selectors.board.seat_held finds the asker's seat by."""
    user = getattr(request, "user", None)
    user_id = user.pk if user is not None and user.is_authenticated else None
    return session_tokens(request).get(slug), user_id


def free_seat_number(room: Room) -> int | None:
    """The number of the empty seat a guest would take, if the room is still open."""
    if room.bot or room.status != Room.Status.WAITING:
        return None
    taken = {seat.number for seat in room.seats.all()}
    free = [number for number in (1, 2) if number not in taken]
    return free[0] if free else None


def session_seats(request: HttpRequest) -> list[Seat]:
    """Every seat this browser holds (by its link's token) or this account owns.

    The session keeps {room slug: token}, and a token may be the seat's own or
    the one its emails carry (Seat.check_token knows both), so seats are found
    by room and checked one by one rather than looked up by hash.
    """
    tokens = session_tokens(request)
    seats = {
        seat.pk: seat
        for seat in Seat.objects.filter(room__slug__in=tokens).select_related("room")
        if seat.check_token(tokens[seat.room.slug])
    }
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        seats.update((seat.pk, seat) for seat in Seat.objects.filter(user=user))
    return list(seats.values())


def signed_in_user(request: HttpRequest) -> User | None:
    """The account of the person asking, or None for a guest."""
    return request.user if isinstance(request.user, User) else None


def get_room_or_404(slug: str) -> Room:
    """load_room for the pages: a room that is not there is Django's 404 page."""
    try:
        return load_room(slug)
    except NotFound:
        raise Http404 from None
