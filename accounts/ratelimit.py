"""Rate limits counted in Django's cache, shared by every web process.

`allow` counts one hit of anything (a room created, a join, a game action:
games.web.throttle; a reset or confirmation mail here) per key in a fixed window.
The cache must be one all web workers share (settings.CACHES: Redis or the
database, never a per-process memory cache in production).

Failed log-ins are counted per username and per address; a fixed window starts at
the first failure. Past the limit every attempt is refused before the
password is even checked, so guessing stops paying off. The per-address limit
is higher: several people behind one router mistype too, and it still stops
one machine trying many usernames.
"""

import hashlib

from django.core.cache import cache

WINDOW_SECONDS = 15 * 60
MAX_FAILURES_PER_USERNAME = 5
MAX_FAILURES_PER_ADDRESS = 20


def _keys(username, address):
    # Hash the username: it is user input and cache keys have a charset.
    name = hashlib.sha256((username or "").strip().lower().encode()).hexdigest()
    return f"mesa:login-fail:user:{name}", f"mesa:login-fail:addr:{address or '-'}"


def login_is_blocked(*, username, address):
    user_key, addr_key = _keys(username, address)
    counts = cache.get_many([user_key, addr_key])
    return (
        counts.get(user_key, 0) >= MAX_FAILURES_PER_USERNAME
        or counts.get(addr_key, 0) >= MAX_FAILURES_PER_ADDRESS
    )


def _count(key, window):
    """Add one to a counter whose window starts at its first hit; the new count."""
    # add() starts the window only if it is not running yet.
    cache.add(key, 0, timeout=window)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add() and incr()
        cache.set(key, 1, timeout=window)
        return 1


def _digest(text) -> str:
    # Hash what identifies the client: it may be user input, and cache keys have a charset.
    return hashlib.sha256((text or "-").encode()).hexdigest()


def allow(scope: str, ident: str, *, limit: int, window: int) -> bool:
    """Count one hit of `ident` under `scope`; False once it passed `limit` in `window` s."""
    return _count(f"mesa:rate:{scope}:{_digest(ident)}", window) <= limit


def login_failed(*, username, address):
    for key in _keys(username, address):
        _count(key, WINDOW_SECONDS)


def login_succeeded(*, username):
    # Only the username's count: an address count cleared by one good
    # log-in would let someone with an account guess for others freely.
    user_key, _ = _keys(username, None)
    cache.delete(user_key)


# Password reset mail: a few per hour, so the form cannot be used to flood
# someone's inbox. Past the limit the page looks the same but nothing is sent.
RESET_WINDOW_SECONDS = 60 * 60
MAX_RESETS_PER_EMAIL = 3
MAX_RESETS_PER_ADDRESS = 10


def password_reset_allowed(*, email, address):
    """Count one reset request; False once the address or the email asked too often."""
    email = (email or "").strip().lower()
    per_email = allow("reset:email", email, limit=MAX_RESETS_PER_EMAIL, window=RESET_WINDOW_SECONDS)
    per_address = allow(
        "reset:addr", address, limit=MAX_RESETS_PER_ADDRESS, window=RESET_WINDOW_SECONDS
    )
    return per_email and per_address


# Confirmation mail on request, from the profile: the same few per hour, so an
# account signed up with someone else's address cannot flood that inbox.
MAX_CONFIRMATIONS_PER_USER = 3


def confirmation_resend_allowed(*, user_id):
    """Count one request to resend the confirmation; False past the hourly limit."""
    return allow(
        "confirm:user", str(user_id), limit=MAX_CONFIRMATIONS_PER_USER, window=RESET_WINDOW_SECONDS
    )


def client_address(request):
    """The address the request came from, as the web server saw it."""
    return request.META.get("REMOTE_ADDR", "")
