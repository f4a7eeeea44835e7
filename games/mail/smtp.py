"""Django's SMTP email backend, telling "refused" apart from "answer lost".

When the connection drops or times out after the whole message (its final
"." line) went to the server, the server may well have accepted it: only its
"250" was lost. Sending it again could deliver it twice, so that case raises
ReplyLost, and games.mail.messages keeps such a message as "uncertain" instead
of retrying it. Every failure before that point (no connection, no greeting,
a refused sender or recipient, a timeout before the end of the data) is a
plain SMTPException or OSError: nothing was delivered, a retry is safe.

settings.EMAIL_BACKEND names this class whenever EMAIL_URL is an SMTP URL.
"""

import smtplib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

from django.core.mail.backends import smtp

END_OF_DATA = b"\r\n.\r\n"


class ReplyLost(smtplib.SMTPServerDisconnected):
    """The message went out whole, then the server's answer never came."""


class _TracksData(smtplib.SMTP):
    """smtplib.SMTP whose data() knows whether the message reached the wire whole."""

    payload_sent = False

    def send(self, s: "ReadableBuffer | str") -> None:
        super().send(s)
        # smtplib.SMTP.data sends the commands as text and the message as
        # bytes ending in CRLF "." CRLF.
        if isinstance(s, bytes) and s.endswith(END_OF_DATA):
            self.payload_sent = True

    def data(self, msg: "ReadableBuffer | str") -> tuple[int, bytes]:
        self.payload_sent = False
        try:
            return super().data(msg)
        except smtplib.SMTPResponseException:
            raise  # the server answered: a clear yes/no, not a lost answer
        except Exception as error:  # a timeout, a reset, a task time limit...
            if self.payload_sent:
                raise ReplyLost(f"no answer after the data: {error}") from error
            raise


class SMTP(_TracksData, smtplib.SMTP):
    pass


class SMTPSSL(_TracksData, smtplib.SMTP_SSL):
    pass


class EmailBackend(smtp.EmailBackend):
    @property
    def connection_class(self) -> type[smtplib.SMTP]:
        return SMTPSSL if self.use_ssl else SMTP
