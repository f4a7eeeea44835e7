"""The push service of the run, in this process: an HTTP server on 127.0.0.1 that takes
pywebpush's POSTs (RFC 8030) as FCM or Mozilla's autopush would, one endpoint per
browser, and counts what reached each browser in the mail server's Inbox under the
kind "push", by the address of the player whose browser it is.

Each browser is a key pair and an auth secret made here (as a browser's Push API
makes them); a message counts only when it carries a VAPID token with the run's
public key and decrypts with the browser's keys (aes128gcm, RFC 8291) to "Es tu
turno": what the phone would show. Slowed down (`slow`), it answers each message
a while after keeping it; a sender that died meanwhile (its worker SIGKILLed)
never heard the answer and sends again: that is a lost answer, counted as the
SMTP server counts its own, and one duplicate per lost answer is allowed."""

import base64
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from scripts.chaos.env import PUSH, SETTINGS
from scripts.chaos.mailserver import Inbox
from scripts.chaos.polling import sender_gone


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class PushBrowser:
    """What a browser keeps of its subscription: an ECDH key pair and an auth secret."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64u(public), "auth": b64u(self.auth)},
        }

    def read(self, body: bytes) -> dict:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


class PushServer:
    """The push service on PUSH: `browser(address)` makes a browser's subscription;
    each POST to it is counted in `inbox` as ("address", "push") when it is sound,
    else in `unreadable`."""

    def __init__(self, inbox: Inbox):
        self.inbox = inbox
        self.browsers: dict[str, tuple[str, PushBrowser]] = {}  # path -> (address, browser)
        self.unreadable = 0
        self.slow = 0.0  # seconds before each answer: a push service taking its time
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    def browser(self, address: str) -> PushBrowser:
        path = f"/push/{len(self.browsers)}"
        browser = PushBrowser(f"http://127.0.0.1:{PUSH}{path}")
        self.browsers[path] = (address, browser)
        return browser

    def received(self, path: str, headers: dict[str, str], body: bytes) -> int:
        """Count one POST; the status to answer (201 Created, as push services do)."""
        found = self.browsers.get(path)
        if found is None:
            return 404
        address, browser = found
        try:
            token = headers.get("authorization", "")
            assert token.startswith("vapid ") and SETTINGS["VAPID_PUBLIC_KEY"] in token
            assert browser.read(body)["title"]
        except Exception:
            with self.lock:
                self.unreadable += 1
            return 400
        with self.lock:
            key = (address, "push")
            self.inbox.received[key] += 1
            self.inbox.arrivals.setdefault(key, []).append(time.time())
        return 201

    def lost(self, path: str) -> None:
        address, _browser = self.browsers[path]
        with self.lock:
            self.inbox.lost[(address, "push")] += 1

    def up(self) -> None:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {name.lower(): value for name, value in self.headers.items()}
                status = service.received(self.path, headers, body)
                if service.slow:
                    time.sleep(service.slow)
                    if status == 201 and sender_gone(self.connection):
                        # Kept, but the sender died before the answer (its worker was
                        # killed): it will send again, as after an email's lost answer.
                        service.lost(self.path)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", PUSH), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def down(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
