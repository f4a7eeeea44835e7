"""Who is asking: the client address, decided once for every limit and log line.

Behind a reverse proxy every request comes from the proxy. The proxy appends
the address it saw to X-Forwarded-For, so the header reads, left to right,
whatever the client claimed, then each hop's view. Only the entries added by
proxies we run can be believed: walk the header from the right, skip the
addresses of trusted proxies (settings.TRUSTED_PROXIES), and the first other
entry is the client. With no trusted proxy (the default) the header is
ignored altogether, since anyone can send it.

This module does not import Django at the top: gunicorn's access log
(config/gunicorn_log.py) uses the same function in the master process.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Protocol

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=16)
def parse_trusted(spec: str) -> tuple[Network, ...]:
    """TRUSTED_PROXIES ("10.0.0.1, 192.168.0.0/16, ::1") as networks; bad entries raise."""
    return tuple(
        ipaddress.ip_network(item.strip(), strict=False) for item in spec.split(",") if item.strip()
    )


def _address(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "198.51.100.7:5123"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _is_trusted(address: Address, trusted: Iterable[Network]) -> bool:
    return any(address.version == net.version and address in net for net in trusted)


def client_address_from(remote_addr: str, forwarded_for: str, trusted: Iterable[Network]) -> str:
    """The rightmost address in REMOTE_ADDR + X-Forwarded-For that no trusted proxy owns.

    A peer that is not a trusted proxy is the client, whatever it sends. A
    unix socket peer (empty REMOTE_ADDR) counts as trusted only when the
    front is configured at all. An unreadable entry stops the walk: nothing
    to its left can be believed, so the entry just right of it (a trusted
    proxy's view) is the answer.
    """
    trusted = tuple(trusted)
    peer = _address(remote_addr or "")
    if not trusted:
        return str(peer) if peer else (remote_addr or "")
    if peer is not None and not _is_trusted(peer, trusted):
        return str(peer)
    best = str(peer) if peer else (remote_addr or "")
    for entry in reversed([part for part in (forwarded_for or "").split(",") if part.strip()]):
        address = _address(entry)
        if address is None:
            return best
        best = str(address)
        if not _is_trusted(address, trusted):
            return best
    # Every hop was one of ours: the leftmost is as close to the client as it gets.
    return best


def client_address_of_meta(meta: Mapping[str, Any], trusted_spec: str) -> str:
    return client_address_from(
        str(meta.get("REMOTE_ADDR") or ""),
        str(meta.get("HTTP_X_FORWARDED_FOR") or ""),
        parse_trusted(trusted_spec),
    )


def address_within(address: str, spec: str) -> bool:
    """Whether `address` (a client address as decided here) is in one of the
    networks of `spec` (the TRUSTED_PROXIES syntax)."""
    parsed = _address(address)
    return parsed is not None and _is_trusted(parsed, parse_trusted(spec))


# One IPv6 subscriber usually holds a whole /64 (RFC 6177) and may pick any
# address in it for every request: the limits count the /64 as one client.
IPV6_CLIENT_PREFIX = 64


def client_group(address: str) -> str:
    """What the limits count by: an IPv4 address itself, an IPv6 address's /64
    ("2001:db8:1:2::/64"), anything unreadable as it is."""
    parsed = _address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((parsed, IPV6_CLIENT_PREFIX), strict=False))
    return str(parsed) if parsed is not None else address


class HasMeta(Protocol):
    """What client_address reads of a request (an HttpRequest; Django is not imported here)."""

    @property
    def META(self) -> Mapping[str, Any]: ...  # Django's name, upper case


def client_address(request: HasMeta) -> str:
    """The client's address for this request (settings.TRUSTED_PROXIES decides whom to believe)."""
    from django.conf import settings

    return client_address_of_meta(request.META, settings.TRUSTED_PROXIES)


def client_key(request: HasMeta) -> str:
    """Whom every limit and lockout of this request counts: client_group of its
    client_address (log lines keep the whole address)."""
    return client_group(client_address(request))
