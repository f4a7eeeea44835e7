# A rate limit's window is a cache entry's expiry, read by Django on time.time():
# time-machine, not the site's clock (games.lib.clock says why).
import time_machine
from django.core import mail
from django.test import override_settings

from accounts import ratelimit
from accounts.models import Profile

from .base import IN_PROCESS_CACHE, AccountsTestCase

NEW_PASSWORD = "fichas-de-chapa-2026"


class PasswordResetTests(AccountsTestCase):
    def reset_link(self):
        (message,) = mail.outbox
        return next(w for w in message.body.split() if "/cuenta/clave/nueva/" in w)

    def test_it_mails_our_message_with_an_absolute_link_in_both_parts(self):
        self.ask_for_a_reset()

        (message,) = mail.outbox
        self.assertEqual(message.to, ["ana@example.com"])
        self.assertEqual(message.subject, "Tu clave de Mesa")
        self.assertIn("Hola, ana:", message.body)
        link = self.reset_link()
        self.assertTrue(link.startswith("http://127.0.0.1:8000/cuenta/clave/nueva/"))
        html, mimetype = message.alternatives[0]
        self.assertEqual(mimetype, "text/html")
        self.assertIn(f'href="{link}"', html)

    def test_the_link_ignores_a_forged_host_header(self):
        self.ask_for_a_reset(HTTP_HOST="localhost")  # an allowed host, but not SITE_URL

        self.assertTrue(self.reset_link().startswith("http://127.0.0.1:8000/"))

    def test_the_link_sets_a_new_password_and_confirms_the_address(self):
        self.ask_for_a_reset()
        path = self.reset_link().removeprefix("http://127.0.0.1:8000")

        # Django swaps the token for a session marker and redirects once.
        response = self.client.get(path, follow=True)
        self.assertContains(response, "Elegir una clave nueva")
        form_url = response.redirect_chain[-1][0]
        response = self.client.post(
            form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
        )

        self.assertRedirects(response, "/cuenta/clave/nueva/lista/", fetch_redirect_response=False)
        self.ana.refresh_from_db()
        self.assertTrue(self.ana.check_password(NEW_PASSWORD))
        self.assertTrue(Profile.objects.get(user=self.ana).email_confirmed)

    def test_the_mail_is_in_the_account_language_not_the_page_language(self):
        Profile.objects.filter(user=self.ana).update(language="en")

        self.ask_for_a_reset()

        (message,) = mail.outbox
        self.assertEqual(message.subject, "Your Mesa password")
        self.assertIn("Hello ana,", message.body)

    def test_an_unknown_address_gets_the_same_page_and_no_mail(self):
        self.ask_for_a_reset(email="nadie@example.com")

        self.assertEqual(mail.outbox, [])


class PasswordResetLimitTests(AccountsTestCase):
    def test_a_few_requests_a_day_are_mailed_and_the_rest_silently_dropped(self):
        for _ in range(ratelimit.MAILS_PER_RECIPIENT + 2):
            self.ask_for_a_reset()

        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)

    @override_settings(CACHES=IN_PROCESS_CACHE)
    def test_the_limit_lifts_after_a_day_not_an_hour(self):
        with time_machine.travel("2026-03-01 10:00Z", tick=False) as traveller:
            for _ in range(ratelimit.MAILS_PER_RECIPIENT + 1):
                self.ask_for_a_reset()
            traveller.shift(ratelimit.RESET_WINDOW_SECONDS + 1)
            self.ask_for_a_reset()
            self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)
            traveller.shift(ratelimit.MAIL_WINDOW_SECONDS)
            self.ask_for_a_reset()

        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT + 1)

    def test_one_address_cannot_flood_many_inboxes(self):
        for n in range(ratelimit.MAX_RESETS_PER_ADDRESS):
            self.ask_for_a_reset(email=f"nadie{n}@example.com")
        self.ask_for_a_reset()

        self.assertEqual(mail.outbox, [])
        self.ask_for_a_reset(REMOTE_ADDR="192.0.2.9")
        self.assertEqual(len(mail.outbox), 1)
