"""The client address (accounts.client): the rightmost X-Forwarded-For entry
that is not a trusted proxy, and only when a proxy is trusted at all."""

import pytest
from django.test import Client, override_settings

from accounts import ratelimit
from accounts.client import client_address_from, parse_trusted

from .base import PASSWORD, AccountsTestCase

PROXY = "10.0.0.5"
NGINX = parse_trusted("10.0.0.0/24, ::1")


def test_with_no_trusted_proxy_the_forwarding_header_is_ignored():
    assert client_address_from("203.0.113.9", "198.51.100.1", ()) == "203.0.113.9"


def test_behind_a_trusted_proxy_the_client_is_the_entry_the_proxy_added():
    assert client_address_from(PROXY, "198.51.100.7", NGINX) == "198.51.100.7"


def test_a_forged_entry_left_of_the_proxy_view_is_not_believed():
    # The client sent "X-Forwarded-For: 1.2.3.4"; nginx appended what it saw.
    assert client_address_from(PROXY, "1.2.3.4, 198.51.100.7", NGINX) == "198.51.100.7"


def test_several_trusted_hops_are_skipped_from_the_right():
    header = "1.2.3.4, 198.51.100.7, 10.0.0.9"
    assert client_address_from(PROXY, header, NGINX) == "198.51.100.7"


def test_a_peer_that_is_not_a_trusted_proxy_is_the_client_whatever_it_sends():
    assert client_address_from("203.0.113.9", "198.51.100.7", NGINX) == "203.0.113.9"


def test_an_unreadable_entry_stops_the_walk_at_the_last_believable_hop():
    assert client_address_from(PROXY, "198.51.100.7, nonsense", NGINX) == PROXY


def test_ports_brackets_and_mapped_addresses_are_read():
    assert client_address_from(PROXY, "198.51.100.7:5123", NGINX) == "198.51.100.7"
    assert client_address_from(PROXY, "[2001:db8::1]:443", NGINX) == "2001:db8::1"
    assert client_address_from("::ffff:10.0.0.5", "198.51.100.7", NGINX) == "198.51.100.7"


def test_a_unix_socket_peer_behind_a_configured_front_walks_the_header():
    assert client_address_from("", "198.51.100.7", NGINX) == "198.51.100.7"


def test_a_bad_trusted_proxies_value_is_refused():
    with pytest.raises(ValueError):
        parse_trusted("10.0.0.0/24, not-an-address")


@override_settings(TRUSTED_PROXIES="10.0.0.0/24")
class LoginBehindAProxyTests(AccountsTestCase):
    def test_twenty_people_mistyping_behind_one_proxy_do_not_lock_out_a_twenty_first(self):
        for n in range(ratelimit.MAX_FAILURES_PER_ADDRESS):
            response = Client().post(
                "/cuenta/entrar/",
                {"username": f"persona{n}", "password": "no-es-esta"},
                REMOTE_ADDR=PROXY,
                HTTP_X_FORWARDED_FOR=f"198.51.100.{n + 1}",
            )
            self.assertEqual(response.status_code, 200)

        response = self.client.post(
            "/cuenta/entrar/",
            {"username": "ana", "password": PASSWORD},
            REMOTE_ADDR=PROXY,
            HTTP_X_FORWARDED_FOR="198.51.100.200",
        )
        self.assertRedirects(response, "/mis-partidas/", fetch_redirect_response=False)

    def test_one_client_behind_the_proxy_is_still_limited_by_its_own_address(self):
        for n in range(ratelimit.MAX_FAILURES_PER_ADDRESS):
            Client().post(
                "/cuenta/entrar/",
                {"username": f"persona{n}", "password": "no-es-esta"},
                REMOTE_ADDR=PROXY,
                HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.9",
            )
        response = self.client.post(
            "/cuenta/entrar/",
            {"username": "ana", "password": PASSWORD},
            REMOTE_ADDR=PROXY,
            HTTP_X_FORWARDED_FOR="5.6.7.8, 198.51.100.9",
        )
        self.assertContains(response, "Demasiados intentos fallidos")


@pytest.mark.django_db
def test_two_players_behind_one_proxy_have_room_limits_of_their_own(settings):
    from django.core.cache import cache
    from django.urls import reverse

    from tests.helpers import post_json

    cache.clear()
    settings.TRUSTED_PROXIES = "10.0.0.0/24"
    settings.MESA_RATE_LIMITS = {
        **settings.MESA_RATE_LIMITS,
        "create": {"address": (2, 600), "session": (100, 600)},
    }
    body = {"nickname": "ana", "rules": {"format": "single"}}

    def create(forwarded_for):
        return post_json(
            Client(),
            reverse("games:api_create"),
            body,
            REMOTE_ADDR=PROXY,
            HTTP_X_FORWARDED_FOR=forwarded_for,
        ).status_code

    assert [create("198.51.100.1") for _ in range(3)] == [201, 201, 429]
    assert create("198.51.100.2") == 201
    # Without a trusted proxy both are the proxy, and share one count.
    settings.TRUSTED_PROXIES = ""
    assert [create(f"198.51.100.{n}") for n in (3, 4, 5)] == [201, 201, 429]
    cache.clear()
