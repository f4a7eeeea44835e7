"""The SMTP server of the run, in this process: up, hung, down, or losing its answers;
it counts what it received by address and kind."""

import email
import email.policy
import socket
import threading
import time
from collections import Counter

from aiosmtpd.controller import Controller

from scripts.chaos.env import EMAIL_TIMEOUT, SMTP

# --- the mail server --------------------------------------------------------------


def kind_of(subject: str) -> str:
    """Which email a subject is (templates/emails/*_subject.txt, Spanish)."""
    for words, kind in (
        ("se sentó a tu mesa", "joined"),
        ("Te quedan 24 horas", "reminder"),
        ("Ya puedes cerrar", "claimable"),
        ("Terminó la partida", "ended"),
        ("resumen del día", "digest"),
    ):
        if words in subject:
            return kind
    return "turn"


class Inbox:
    def __init__(self):
        self.received = Counter()  # (address, kind) -> messages
        self.arrivals: dict = {}  # (address, kind) -> when each came (time.time())
        self.lost = Counter()  # (address, kind) -> messages whose answer came too late
        self.lose_next = 0  # this many next messages are kept, and their "250" comes too late
        self.slow_rcpt = 0.0  # seconds before each recipient is accepted: a long conversation
        self.texts: dict = {}  # address -> [(kind, the plain text body)], as they came
        self.rcpts = Counter()  # address -> conversations that named it (some cut short)
        self.in_rcpt: set = set()  # addresses whose recipient is being taken (slow_rcpt) now

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        import asyncio

        self.rcpts[address] += 1
        if self.slow_rcpt:
            self.in_rcpt.add(address)
            try:
                await asyncio.sleep(self.slow_rcpt)
            finally:
                self.in_rcpt.discard(address)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        import asyncio

        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        key = (str(message["To"]), kind_of(str(message["Subject"])))
        self.received[key] += 1
        self.arrivals.setdefault(key, []).append(time.time())
        body = message.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
        self.texts.setdefault(key[0], []).append((key[1], text))
        if self.lose_next > 0:
            self.lose_next -= 1
            self.lost[key] += 1
            await asyncio.sleep(EMAIL_TIMEOUT + 1.5)  # kept, but the "250" comes too late
        return "250 Message accepted"


class MailServer:
    """The SMTP server on SMTP: up, hung (accepts, never speaks) or down."""

    def __init__(self):
        self.inbox = Inbox()
        self.push = None  # the run's push service (pushserver.py), counting in the same inbox
        self.controller = None
        self.hole = None
        self.held = []

    def up(self):
        self._clear()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=SMTP)
        self.controller.start()

    def hung(self):
        self._clear()
        self.hole = socket.socket()
        self.hole.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.hole.bind(("127.0.0.1", SMTP))
        self.hole.listen(50)

        self.hole.settimeout(0.2)
        hole, self.swallowing = self.hole, threading.Event()

        def swallow(stop):
            while not stop.is_set():
                try:
                    connection, _ = hole.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                self.held.append(connection)  # never answered

        self.swallower = threading.Thread(target=swallow, args=(self.swallowing,), daemon=True)
        self.swallower.start()

    def down(self):
        self._clear()

    def _clear(self):
        if self.controller is not None:
            self.controller.stop()
            self.controller = None
        if self.hole is not None:
            self.swallowing.set()
            self.swallower.join()
            self.hole.close()
            self.hole = None
        for held in self.held:
            held.close()
        self.held = []
