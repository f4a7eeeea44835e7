"""django-axes: the admin's log-in under the site's lockouts, one count for
every way in, and nothing recorded for an attempt refused unchecked."""

import json

from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import ratelimit

from .base import PASSWORD, AccountsTestCase

BLOCKED_ES = "Demasiados intentos fallidos"


class AdminLockoutTests(AccountsTestCase):
    def setUp(self):
        super().setUp()
        self.boss = get_user_model().objects.create_user(
            "jefa", email="jefa@example.com", password=PASSWORD, is_staff=True, is_superuser=True
        )

    def admin_log_in(self, password, client=None, **extra):
        return (client or self.client).post(
            "/admin/login/?next=/admin/",
            {"username": "jefa", "password": password, "next": "/admin/"},
            **extra,
        )

    def test_wrong_admin_passwords_lock_the_account_even_for_the_right_one(self):
        for _ in range(ratelimit.MAX_FAILURES_PER_USERNAME):
            self.assertEqual(self.admin_log_in("no-es-esta").status_code, 200)

        response = self.admin_log_in(PASSWORD)

        self.assertContains(response, BLOCKED_ES)
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_admin_failures_count_toward_the_site_log_in_too(self):
        for _ in range(ratelimit.MAX_FAILURES_PER_USERNAME):
            self.admin_log_in("no-es-esta", client=Client())

        response = self.log_in(username="jefa")

        self.assertContains(response, BLOCKED_ES)
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_the_admin_still_lets_the_owner_in_below_the_limit(self):
        for _ in range(ratelimit.MAX_FAILURES_PER_USERNAME - 1):
            self.admin_log_in("no-es-esta")

        response = self.admin_log_in(PASSWORD)

        self.assertRedirects(response, "/admin/", fetch_redirect_response=False)

    def test_a_refused_attempt_records_nothing_new(self):
        for _ in range(ratelimit.MAX_FAILURES_PER_USERNAME):
            self.admin_log_in("no-es-esta")
        attempts = list(AccessAttempt.objects.values_list("username", "failures_since_start"))

        for _ in range(10):
            self.admin_log_in("no-es-esta")
            self.log_in(username="jefa", password="tampoco")

        self.assertEqual(
            list(AccessAttempt.objects.values_list("username", "failures_since_start")), attempts
        )
        self.assertEqual(attempts, [("jefa", ratelimit.MAX_FAILURES_PER_USERNAME)])


class LockoutAnswerTests(AccountsTestCase):
    def test_under_the_api_a_lockout_is_the_apis_json_429(self):
        from django.test import RequestFactory

        from accounts.lockout import locked_out

        response = locked_out(RequestFactory().post("/api/rooms"), None, {"username": "ana"})

        self.assertEqual(response.status_code, 429)
        self.assertEqual(response["Retry-After"], str(ratelimit.WINDOW_SECONDS))
        self.assertEqual(json.loads(response.content)["error"]["code"], "too_many_requests")

    def test_without_a_form_to_answer_a_lockout_is_a_page_in_the_readers_language(self):
        from django.test import RequestFactory
        from django.utils import translation

        from accounts.lockout import locked_out

        with translation.override("en"):
            response = locked_out(RequestFactory().get("/cuenta/entrar/"), None, None)

        self.assertEqual(response.status_code, 429)
        self.assertIn("Too many failed attempts", response.content.decode())
