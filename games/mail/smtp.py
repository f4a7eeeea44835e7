"""Django's SMTP email backend, telling "refused" apart from "answer lost".

When the connection drops or times out after the whole message (its final
"." line) went to the server, the server may well have accepted it: only its
"250" was lost. That case raises ReplyLost, and games.mail.claims sends such
a message once more, never twice (at least once, at most one duplicate).
Every failure before that point (no connection, no greeting, a refused
sender or recipient, a timeout before the end of the data) is a plain
SMTPException or OSError: nothing was delivered, a retry is safe.

And once the server said "250" to every message, the send succeeded,
whatever fails after it (the goodbye, QUIT, cut by a time limit): treating
that as a failure released the claims and sent the message again.

A send may also run under a deadline (`deadline`, set by games.mail.claims
from the moment its email was claimed): past it, nothing more is said to the
server before the message has gone out (a plain failure, nothing delivered),
and every wait for the server ends by it (after the message's end: ReplyLost).
So no send delivers anything after its claim's lease ran out, when another
worker may have taken the claim over.

settings.EMAIL_BACKEND names this class whenever EMAIL_URL is an SMTP URL.
"""

import logging
import smtplib
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

from django.core.mail import EmailMessage
from django.core.mail.backends import smtp

log = logging.getLogger(__name__)

END_OF_DATA = b"\r\n.\r\n"


class ReplyLost(smtplib.SMTPServerDisconnected):
    """The message went out whole, then the server's answer never came."""


class OutOfTime(smtplib.SMTPServerDisconnected):
    """The send's deadline passed before the message went out: nothing was delivered."""


# time.monotonic() by which the current send must be done; None: no deadline.
_deadline: ContextVar[float | None] = ContextVar("mail_send_deadline", default=None)


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Sends in this block end by `at` (time.monotonic()), as described above."""
    token = _deadline.set(at)
    try:
        yield
    finally:
        _deadline.reset(token)


class _TracksData(smtplib.SMTP):
    """smtplib.SMTP whose data() knows whether the message reached the wire whole."""

    payload_sent = False
    accepted = 0  # messages the server said "250" to on this connection

    def send(self, s: "ReadableBuffer | str") -> None:
        at = _deadline.get()
        if at is not None and not self.accepted:
            left = at - time.monotonic()
            if left <= 0:
                raise OutOfTime("the claim's time to send ran out before the message went out")
            if self.sock is not None:  # every wait for the server ends by the deadline
                timeout = self.timeout if isinstance(self.timeout, int | float) else left
                self.sock.settimeout(min(left, timeout))
        super().send(s)
        # smtplib.SMTP.data sends the commands as text and the message as
        # bytes ending in CRLF "." CRLF.
        if isinstance(s, bytes) and s.endswith(END_OF_DATA):
            self.payload_sent = True

    def data(self, msg: "ReadableBuffer | str") -> tuple[int, bytes]:
        self.payload_sent = False
        try:
            answer = super().data(msg)
        except smtplib.SMTPResponseException:
            raise  # the server answered: a clear yes/no, not a lost answer
        except Exception as error:  # a timeout, a reset, a task time limit...
            if self.payload_sent:
                raise ReplyLost(f"no answer after the data: {error}") from error
            raise
        self.accepted += 1  # smtplib raises on anything but 250
        return answer


class SMTP(_TracksData, smtplib.SMTP):
    pass


class SMTPSSL(_TracksData, smtplib.SMTP_SSL):
    pass


class EmailBackend(smtp.EmailBackend):
    talking: "_TracksData | None" = None  # the connection of the current send

    @property
    def connection_class(self) -> type[smtplib.SMTP]:
        return SMTPSSL if self.use_ssl else SMTP

    def open(self) -> bool | None:
        opened = super().open()
        if isinstance(self.connection, _TracksData):
            self.talking = self.connection
        return opened

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        self.talking = None
        try:
            return super().send_messages(email_messages)
        except Exception:
            talking = self.talking
            if email_messages and talking is not None and talking.accepted == len(email_messages):
                log.warning("the server accepted every message; the goodbye failed", exc_info=True)
                return talking.accepted
            raise
