"""Personas and helpers shared by the accounts tests."""

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import TestCase

PASSWORD = "tablero-de-nogal-77"


class AccountsTestCase(TestCase):
    """ana has an account (Spanish); the cache of failed log-ins starts empty."""

    def setUp(self):
        cache.clear()
        self.ana = get_user_model().objects.create_user(
            "ana", email="ana@example.com", password=PASSWORD
        )

    def tearDown(self):
        cache.clear()

    def log_in(self, username="ana", password=PASSWORD, **extra):
        return self.client.post(
            "/cuenta/entrar/", {"username": username, "password": password}, **extra
        )

    def ask_for_a_reset(self, email="ana@example.com", **extra):
        """Ask for a password reset by email; the answer always says it was sent."""
        response = self.client.post("/cuenta/clave/olvidada/", {"email": email}, **extra)
        self.assertRedirects(
            response, "/cuenta/clave/olvidada/enviada/", fetch_redirect_response=False
        )


# Tests that travel in time need a cache whose expiry follows this process's
# clock; a Redis cache (CACHE_URL) expires keys on the server's own clock.
IN_PROCESS_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
