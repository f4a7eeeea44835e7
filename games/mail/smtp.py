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

settings.EMAIL_BACKEND names this class whenever EMAIL_URL is an SMTP URL.
"""

import logging
import smtplib
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

from django.core.mail import EmailMessage
from django.core.mail.backends import smtp

log = logging.getLogger(__name__)

END_OF_DATA = b"\r\n.\r\n"


class ReplyLost(smtplib.SMTPServerDisconnected):
    """The message went out whole, then the server's answer never came."""


class _TracksData(smtplib.SMTP):
    """smtplib.SMTP whose data() knows whether the message reached the wire whole."""

    payload_sent = False
    accepted = 0  # messages the server said "250" to on this connection

    def send(self, s: "ReadableBuffer | str") -> None:
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
