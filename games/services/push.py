"""The browsers where an account allowed notifications: subscribe and unsubscribe.

The Push API gives the page an endpoint (the push service's URL for that
browser) and two keys; the page posts them here. An endpoint belongs to one
account: subscribing it again from another account moves it.
"""

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from games.lib import clock
from games.lib.errors import BadInput, NotSeatHolder
from games.models import PushSubscription

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def clean_endpoint(endpoint: object) -> str:
    """An https URL of at most 500 characters (a loopback http one where tests allow it).

    The server later POSTs to it, so nothing but a push service's https URL is taken.
    """
    if not isinstance(endpoint, str) or not 10 <= len(endpoint) <= 500:
        raise BadInput("bad_subscription")
    parts = urlsplit(endpoint)
    loopback = settings.PUSH_ALLOW_LOOPBACK and parts.hostname in LOOPBACK
    if not parts.hostname or (
        parts.scheme != "https" and not (loopback and parts.scheme == "http")
    ):
        raise BadInput("bad_subscription")
    if not loopback and not _public_host(parts.hostname):
        raise BadInput("bad_subscription")
    return endpoint


def _public_host(hostname: str) -> bool:
    """False for localhost and for an address literal off the public internet.

    The server POSTs to the endpoint, so an address of the site's own network
    (10.x, 192.168.x, 127.x, link-local, ...) would let a player aim it
    inward. A name that resolves inward is caught where it matters, at every
    send (games.mail.push.checked_address): DNS may answer differently later.
    """
    if hostname == "localhost" or hostname.endswith(".localhost"):
        return False
    try:
        address = ipaddress.ip_address(hostname)
    except ValueError:
        return True  # a name, as push services' endpoints are
    return address.is_global


def clean_key(value: object, longest: int) -> str:
    if not isinstance(value, str) or not 8 <= len(value) <= longest:
        raise BadInput("bad_subscription")
    if not all(c.isalnum() or c in "-_=" for c in value):  # base64url
        raise BadInput("bad_subscription")
    return value


def push_subscribe(
    *, user: User | AnonymousUser | None, endpoint: object, p256dh: object, auth: object
) -> PushSubscription:
    """Remember this browser for `user` (signed in); the same endpoint again updates it."""
    if user is None or not user.is_authenticated:
        raise NotSeatHolder("not_signed_in")
    values = {
        "user": user,
        "p256dh": clean_key(p256dh, 100),
        "auth": clean_key(auth, 40),
        "created_at": clock.now(),
    }
    with transaction.atomic():
        subscription, _ = PushSubscription.objects.update_or_create(
            endpoint=clean_endpoint(endpoint), defaults=values
        )
    return subscription


def push_unsubscribe(*, user: User | AnonymousUser | None, endpoint: object) -> int:
    """Forget this browser for `user`; how many subscriptions went (0 or 1)."""
    if user is None or not user.is_authenticated:
        raise NotSeatHolder("not_signed_in")
    if not isinstance(endpoint, str):
        raise BadInput("bad_subscription")
    deleted, _ = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted
