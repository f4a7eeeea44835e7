from django.core import mail

from accounts.models import Profile

from .base import AccountsTestCase

NEW_PASSWORD = "fichas-de-chapa-2026"


class PasswordResetTests(AccountsTestCase):
    def ask_for_a_reset(self, email="ana@example.com", **extra):
        response = self.client.post("/cuenta/clave/olvidada/", {"email": email}, **extra)
        self.assertRedirects(
            response, "/cuenta/clave/olvidada/enviada/", fetch_redirect_response=False
        )

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
