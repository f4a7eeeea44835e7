"""Web Push: "Es tu turno" reaches a browser through a push service that really
speaks the protocol.

The push service (tests.helpers.PushService) is a small HTTP server on
loopback playing the part of FCM or Mozilla's autopush: it checks the VAPID token's ES256 signature
against the site's public key (RFC 8292) and decrypts the aes128gcm body with
the browser's private key and auth secret (RFC 8188, 8291), as the browser
would. The sending side is pywebpush, unmocked.
"""

import ipaddress
import logging
import socket
import ssl
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
import requests
from celery import Task
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.contrib.auth import get_user_model

from games import services, tasks
from games.engine import MatchRules
from games.lib.errors import BadInput, NotSeatHolder
from games.mail import push
from games.models import FollowUp, PushSubscription
from tests.helpers import START, PushBrowser, PushService, check_vapid, post_json

OPENING_PLAY = [[8, 5], [6, 5]]  # a 3-1


@pytest.fixture
def bea(db):
    return get_user_model().objects.create_user("bea", "bea@example.com", "tablero-de-nogal-77")


def bea_on_turn(bea, clock, dice):
    """bea (an account) hosts; the guest starts with 3-1 and plays; bea's turn, hours later."""
    seat = services.room_create(rules=MatchRules(), nickname="bea", user=bea)
    dice.push((1, 3))  # the guest (side 1) starts
    guest = services.room_join(room=seat.room, nickname="carlos")
    clock.tick(timedelta(hours=2))
    return services.game_play(seat=guest, version=1, play=OPENING_PLAY)


def test_es_tu_turno_reaches_the_browser_signed_and_encrypted_once(
    bea, clock, dice, site_key, push_service
):
    browser = PushBrowser(f"{push_service.url}/push/bea-phone")
    services.push_subscribe(user=bea, **_flat(browser.subscription()))
    match = bea_on_turn(bea, clock, dice)
    owed = FollowUp.objects.filter(task="games.tasks.turn_push")
    assert [row.args for row in owed] == [
        [match.pk, match.version, match.turn_started_at.isoformat()]
    ]

    assert tasks.turn_push(match.pk, match.version) == 1
    assert tasks.turn_push(match.pk, match.version) == 0  # each turn once per browser
    [(path, headers, body)] = push_service.received
    assert path == "/push/bea-phone"
    assert headers["content-encoding"] == "aes128gcm" and headers["ttl"] == "86400"
    check_vapid(headers, site_key, push_service.url)
    message = browser.read(body)
    assert message["title"] == "Es tu turno en Mesa"
    assert message["body"] == "carlos ya jugó y la mesa te espera."
    assert message["url"].endswith(f"/mesa/{match.room.slug}/mi-asiento/")


def test_no_push_while_the_player_is_on_the_board_it_waits_like_the_email(
    bea, clock, dice, site_key, push_service
):
    browser = PushBrowser(f"{push_service.url}/push/bea-phone")
    services.push_subscribe(user=bea, **_flat(browser.subscription()))
    match = bea_on_turn(bea, clock, dice)
    seat = match.turn_seat
    services.seat_seen(seat=seat)
    assert tasks.turn_push(match.pk, match.version) == 0
    assert push_service.received == []
    assert FollowUp.objects.filter(task="games.tasks.turn_push", published_at=None).exists()


def test_a_browser_the_push_service_forgot_is_unsubscribed(
    bea, clock, dice, site_key, push_service
):
    browser = PushBrowser(f"{push_service.url}/push/gone")
    services.push_subscribe(user=bea, **_flat(browser.subscription()))
    push_service.status = 410
    match = bea_on_turn(bea, clock, dice)
    tasks.turn_push(match.pk, match.version)
    assert PushSubscription.objects.count() == 0


def test_a_subscription_needs_an_account_and_a_push_services_https_url(bea, site_key):
    browser = PushBrowser("http://push.example.com/not-https")
    with pytest.raises(BadInput):
        services.push_subscribe(user=bea, **_flat(browser.subscription()))
    with pytest.raises(NotSeatHolder):
        services.push_subscribe(
            user=None, **_flat(PushBrowser("https://x.example/p").subscription())
        )


def test_the_api_subscribes_and_unsubscribes_a_signed_in_browser(client, bea, site_key):
    subscription = PushBrowser("https://push.example.com/send/abc").subscription()
    refused = post_json(client, "/api/push/subscribe", subscription)
    assert refused.status_code == 403
    client.force_login(bea)
    assert post_json(client, "/api/push/subscribe", subscription).status_code == 201
    assert PushSubscription.objects.get().user == bea
    gone = post_json(client, "/api/push/unsubscribe", {"endpoint": subscription["endpoint"]})
    assert gone.json() == {"subscribed": False, "removed": 1}
    bad = post_json(client, "/api/push/subscribe", {"endpoint": 3, "keys": {}})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_subscription"


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://10.0.0.7/push/abc",
        "https://192.168.1.1/push/abc",
        "https://169.254.169.254/latest/meta-data",
        "https://[fd00::1]/push/abc",
        "https://localhost/push/abc",
    ],
)
def test_an_endpoint_inside_the_sites_network_is_refused(bea, endpoint, settings):
    # Only the tests' own push service on 127.0.0.1 may be loopback; nothing
    # else that points inward is ever stored for the server to post to.
    settings.PUSH_ALLOW_LOOPBACK = False
    with pytest.raises(BadInput):
        services.push_subscribe(user=bea, **_flat(PushBrowser(endpoint).subscription()))
    assert not PushSubscription.objects.exists()


def test_the_site_is_installable_and_works_offline(client, site_key):
    manifest = client.get("/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    assert manifest.json()["display"] == "standalone" and manifest.json()["start_url"]
    worker = client.get("/sw.js")
    assert worker["Service-Worker-Allowed"] == "/" and "showNotification" in worker.text
    assert "sin-conexion" in worker.text  # the offline page it caches
    assert "Sin conexión" in client.get("/sin-conexion/").text
    home = client.get("/").text
    assert 'rel="manifest"' in home and 'rel="serviceworker"' in home


def _flat(subscription: dict) -> dict:
    return {"endpoint": subscription["endpoint"], **subscription["keys"]}


# -- the endpoint's name, resolved at send time ------------------------------------------


def subscribe_row(bea, browser: PushBrowser) -> PushSubscription:
    """A subscription as stored when its name still pointed outward (no check now)."""
    keys = browser.subscription()["keys"]
    return PushSubscription.objects.create(
        user=bea, endpoint=browser.endpoint, created_at=START, **keys
    )


class Resolver:
    """socket.getaddrinfo with some names answered from a table; every lookup counted."""

    def __init__(self, monkeypatch, names: dict[str, list[str]]):
        self.names = names
        self.asked: list[str] = []
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            self.asked.append(host)
            if host in self.names:
                family = {4: socket.AF_INET, 6: socket.AF_INET6}
                return [
                    (family[ipaddress.ip_address(a).version], socket.SOCK_STREAM, 6, "", (a, port))
                    for a in self.names[host]
                ]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_name_that_resolves_to_loopback_is_refused_when_sent_and_forgotten(
    bea, clock, dice, site_key, push_service, settings, caplog
):
    # The suite's allowance for its own push service is off: as in production.
    settings.PUSH_ALLOW_LOOPBACK = False
    port = push_service.server.server_port
    row = subscribe_row(bea, PushBrowser(f"http://localhost:{port}/push/bea-phone"))
    match = bea_on_turn(bea, clock, dice)
    with caplog.at_level(logging.WARNING, logger="games.mail.push"):
        assert tasks.turn_push(match.pk, match.version) == 0
    assert push_service.received == []  # listening right there, and never reached
    assert not PushSubscription.objects.filter(pk=row.pk).exists()
    assert f"push subscription {row.pk} forgotten: localhost resolves to" in caplog.text


def test_the_push_goes_to_the_address_checked_and_the_name_is_looked_up_once(
    bea, clock, dice, site_key, push_service, monkeypatch
):
    port = push_service.server.server_port
    resolver = Resolver(monkeypatch, {"push.mesa.test": ["127.0.0.1"]})
    browser = PushBrowser(f"http://push.mesa.test:{port}/push/bea-phone")
    subscribe_row(bea, browser)
    match = bea_on_turn(bea, clock, dice)
    # A rebinding resolver would answer differently the next time: there is none.
    assert tasks.turn_push(match.pk, match.version) == 1
    assert resolver.asked.count("push.mesa.test") == 1
    [(path, headers, body)] = push_service.received
    assert headers["host"] == f"push.mesa.test:{port}"
    check_vapid(headers, site_key, f"http://push.mesa.test:{port}")
    assert browser.read(body)["title"] == "Es tu turno en Mesa"


@pytest.mark.parametrize(
    "answers",
    [
        ["127.0.0.1"],
        ["8.8.8.8", "10.1.2.3"],  # one inward answer among public ones is enough
        ["169.254.169.254"],
        ["100.64.0.1"],
        ["fd00::1"],
        ["::ffff:127.0.0.1"],
        ["0.0.0.0"],
    ],
)
def test_an_endpoint_resolving_off_the_public_internet_is_refused(answers, monkeypatch, settings):
    settings.PUSH_ALLOW_LOOPBACK = False
    Resolver(monkeypatch, {"push.mesa.test": answers})
    with pytest.raises(push.InwardEndpoint):
        push.checked_address("push.mesa.test", 443)


def test_a_public_answer_is_the_address_used(monkeypatch, settings):
    settings.PUSH_ALLOW_LOOPBACK = False
    Resolver(monkeypatch, {"fcm.googleapis.com": ["142.250.184.10", "2a00:1450:4003:80f::200a"]})
    address = push.checked_address("fcm.googleapis.com", 443)
    assert str(address) == "142.250.184.10"


def test_tls_to_the_pinned_address_still_checks_the_certificate_against_the_name(tmp_path):
    # An HTTPS push service on 127.0.0.1 with a certificate for push.mesa.test only,
    # a name no resolver here knows: the session must never look it up.
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push.mesa.test")])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("push.mesa.test")]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    service = PushService()
    sni: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    context.sni_callback = lambda sock, server_name, ctx: sni.append(server_name)
    service.server.socket = context.wrap_socket(service.server.socket, server_side=True)
    port = service.server.server_port
    loopback = ipaddress.ip_address("127.0.0.1")
    try:
        session = push.pinned_session("push.mesa.test", loopback)
        session.verify = str(cert_file)
        answer = session.post(f"https://push.mesa.test:{port}/push/x", data=b"hola", timeout=5)
        assert answer.status_code == 201
        assert sni == ["push.mesa.test"]
        assert service.received[0][1]["host"] == f"push.mesa.test:{port}"

        other = push.pinned_session("other.mesa.test", loopback)
        other.verify = str(cert_file)
        with pytest.raises(requests.exceptions.SSLError):
            other.post(f"https://other.mesa.test:{port}/push/x", data=b"hola", timeout=5)
        with pytest.raises(push.InwardEndpoint):  # a URL for another host (a redirect)
            session.post(f"https://other.mesa.test:{port}/push/x", data=b"hola", timeout=5)
    finally:
        service.close()


def test_the_push_waits_the_emails_pause_when_the_outbox_publishes_it():
    """`make chaos` found it sent at the turn's start: a turn played within the pause
    got a push and no email."""
    with mock.patch.object(Task, "apply_async") as publish:
        tasks.turn_push.delay(7, 3, "2026-01-01T00:00:00+00:00")
        tasks.turn_push.apply_async((7, 3), countdown=0)  # the sweep's re-drive
    assert publish.call_args_list[0].kwargs["countdown"] == 60
    assert publish.call_args_list[1].kwargs["countdown"] == 0
