# A rate limit's window is a cache entry's expiry, read by Django on time.time():
# time-machine, not the site's clock (games.lib.clock says why).
import time_machine
from django.contrib.auth import get_user_model
from django.test import override_settings

from accounts import ratelimit

from .base import IN_PROCESS_CACHE, PASSWORD, AccountsTestCase

BLOCKED_ES = "Demasiados intentos fallidos"
BLOCKED_EN = "Too many failed attempts"


class LoginRateLimitTests(AccountsTestCase):
    def fail(self, times, username="ana", **extra):
        for _ in range(times):
            response = self.log_in(username=username, password="no-es-esta", **extra)
            self.assertEqual(response.status_code, 200)

    def test_five_failures_block_even_the_right_password(self):
        self.fail(ratelimit.MAX_FAILURES_PER_USERNAME)

        response = self.log_in()

        self.assertContains(response, BLOCKED_ES)
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_four_failures_still_let_the_owner_in_and_reset_the_count(self):
        self.fail(ratelimit.MAX_FAILURES_PER_USERNAME - 1)
        self.log_in()
        self.assertIn("_auth_user_id", self.client.session)
        self.client.post("/cuenta/salir/")

        self.fail(ratelimit.MAX_FAILURES_PER_USERNAME - 1)
        response = self.log_in()
        self.assertRedirects(response, "/mis-partidas/", fetch_redirect_response=False)

    def test_the_block_is_per_username_whatever_its_case(self):
        self.fail(ratelimit.MAX_FAILURES_PER_USERNAME, username="ANA")

        self.assertContains(self.log_in(), BLOCKED_ES)

    @override_settings(CACHES=IN_PROCESS_CACHE)
    def test_the_block_ends_after_fifteen_minutes(self):
        with time_machine.travel("2026-03-01 10:00Z", tick=False) as traveller:
            self.fail(ratelimit.MAX_FAILURES_PER_USERNAME)
            self.assertContains(self.log_in(), BLOCKED_ES)

            traveller.shift(ratelimit.WINDOW_SECONDS + 1)
            response = self.log_in()

        self.assertRedirects(response, "/mis-partidas/", fetch_redirect_response=False)

    def test_one_address_trying_many_usernames_is_blocked(self):
        get_user_model().objects.create_user("bea", password=PASSWORD)
        per_name = ratelimit.MAX_FAILURES_PER_USERNAME - 1
        for n in range(ratelimit.MAX_FAILURES_PER_ADDRESS // per_name):
            self.fail(per_name, username=f"nadie{n}")

        response = self.log_in(username="bea")
        self.assertContains(response, BLOCKED_ES)

        # Someone else, elsewhere, still gets in.
        response = self.log_in(username="bea", REMOTE_ADDR="192.0.2.9")
        self.assertRedirects(response, "/mis-partidas/", fetch_redirect_response=False)

    def test_the_message_is_in_english_for_english_readers(self):
        self.fail(ratelimit.MAX_FAILURES_PER_USERNAME)
        self.client.cookies["django_language"] = "en"

        self.assertContains(self.log_in(), BLOCKED_EN)
