"""Secrets out of the logs: the tokens in seat links, mail links and the
confirm, unsubscribe and password reset links.

Anyone holding one of these URLs acts as its owner, so a log line must never
carry one whole. gunicorn's access log (config/gunicorn_log.py) and Django's
own log lines (settings.LOGGING's filter) pass through `mask`; nginx masks its
access log with the same patterns (deploy/nginx.conf, `map $request_uri`).
Pure Python with no Django import: gunicorn's master uses it too.
"""

from __future__ import annotations

import logging
import re

MASK = "***"
# A path separator, raw or percent-encoded (a link inside ?next=).
_SEP = r"(?:/|%2[Ff])"
_SEGMENT = r"[^/?#\s\"'&%]+(?:%(?!2[Ff])[0-9A-Fa-f]{2}[^/?#\s\"'&%]*)*"

# (before the secret, the secret's segments): each pattern keeps what names the
# page and replaces the token segments.
_PATTERNS = [
    # /mesa/<slug>/asiento/<token>/: a seat link (also the guest's mail link)
    re.compile(rf"({_SEP}mesa{_SEP}{_SEGMENT}{_SEP}asiento{_SEP})({_SEGMENT})"),
    # /cuenta/correo/confirmar/<token>/ and /cuenta/correo/baja/<token>/
    re.compile(rf"({_SEP}cuenta{_SEP}correo{_SEP}(?:confirmar|baja){_SEP})({_SEGMENT})"),
    # /cuenta/clave/nueva/<uidb64>/<token>/ (and .../<uidb64>/set-password/)
    re.compile(
        rf"({_SEP}cuenta{_SEP}clave{_SEP}nueva{_SEP})(?!lista(?:{_SEP}|$))({_SEGMENT}{_SEP}{_SEGMENT})"
    ),
]


def mask(text: str) -> str:
    """`text` with every token of a private link replaced by "***"."""
    if "mesa" not in text and "cuenta" not in text:
        return text
    for pattern in _PATTERNS:
        text = pattern.sub(lambda match: match.group(1) + MASK, text)
    return text


class MaskTokens(logging.Filter):
    """A logging filter that masks tokens in a record's message (settings.LOGGING)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
