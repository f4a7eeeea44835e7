"""The room state's ETag: written here for games.web.state_cache, read back here
for the API's 304 and for games.web.live's quiet waits.

A tag is "v<version>-s<serial>-<digest>" and a clock part: the match's version,
the room's state serial the state was read at (or after), a digest of the body
this viewer gets, and from which second the clock alone changes that body
("-u<second>"; "-n": never; none: the answers are not kept, so nobody looked).
Why a tag, a version, a serial, a pulse and a stamp: games.selectors.stamp.
"""

import hashlib
import math
import re
from typing import NamedTuple

from django.utils.http import parse_etags

from games.lib import clock
from games.selectors.board import RoomState

NEVER = "-n"

TAG = re.compile(r'"v(?P<version>\d+)-s(?P<serial>\d+)-[0-9a-f]{16}(?:-n|-u(?P<until>\d+))"')


def etag_of(
    state: RoomState,
    body: bytes,
    until: float | None = None,
    *,
    serial: int = 0,
    clock_known: bool = False,
) -> str:
    """The version says when the game moved; the digest covers what else this viewer
    sees (their seat, the language, a join, a rematch offer). For games.web.live,
    which answers a quiet wait's 304 without Django: the room's state serial the
    state was read at (or after), and the clock part, never past `until`."""
    digest = hashlib.sha256(body).hexdigest()[:16]
    clock_part = ""
    if clock_known:
        clock_part = f"-u{math.floor(until)}" if until is not None else NEVER
    return f'"v{state.get("version", 0)}-s{serial}-{digest}{clock_part}"'


def _strong(tag: str) -> str:
    return tag.removeprefix("W/")


def names(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match header names `etag`, compared weakly (RFC 9110): a
    proxy that compresses the body marks the tag it passes on as weak ("W/")."""
    return _strong(etag) in {_strong(tag) for tag in parse_etags(if_none_match)}


class BoardTag(NamedTuple):
    """The board's If-None-Match, read: what its state was computed at."""

    tag: bytes
    serial: int
    until: int | None  # the second from which the clock changes it; None: never

    def clock_allows(self) -> bool:
        """Whether the state the tag names is still what the clock shows now."""
        return self.until is None or clock.now().timestamp() < self.until


def board_tag(if_none_match: str, version: int) -> BoardTag | None:
    """The board's one ETag when it is one of ours for `version`, the one it waits on."""
    tags = parse_etags(if_none_match)
    if len(tags) != 1:
        return None
    tag = _strong(tags[0])
    found = TAG.fullmatch(tag)
    if found is None or int(found["version"]) != version:
        return None
    until = int(found["until"]) if found["until"] is not None else None
    return BoardTag(tag.encode("latin-1"), int(found["serial"]), until)
