from django.contrib.auth import get_user_model
from django.core import mail

from accounts import ratelimit
from accounts.models import Profile

from .base import PASSWORD, AccountsTestCase


class ChangeEmailTests(AccountsTestCase):
    def setUp(self):
        super().setUp()
        Profile.objects.filter(user=self.ana).update(email_confirmed=True)
        self.client.force_login(self.ana)

    def change(self, email="ana.nueva@example.com", password=PASSWORD):
        return self.client.post("/cuenta/correo/", {"email": email, "password": password})

    def test_it_needs_an_account(self):
        self.client.logout()

        response = self.client.get("/cuenta/correo/")

        self.assertRedirects(
            response, "/cuenta/entrar/?next=/cuenta/correo/", fetch_redirect_response=False
        )

    def test_a_new_address_is_saved_unconfirmed_and_sent_a_link(self):
        response = self.change()

        self.assertRedirects(response, "/cuenta/perfil/", fetch_redirect_response=False)
        self.ana.refresh_from_db()
        self.assertEqual(self.ana.email, "ana.nueva@example.com")
        self.assertFalse(Profile.objects.get(user=self.ana).email_confirmed)
        (message,) = mail.outbox
        self.assertEqual(message.to, ["ana.nueva@example.com"])
        link = next(w for w in message.body.split() if "/cuenta/correo/confirmar/" in w)
        self.client.get(link.removeprefix("http://127.0.0.1:8000"))
        self.assertTrue(Profile.objects.get(user=self.ana).email_confirmed)

    def test_it_needs_the_current_password(self):
        response = self.change(password="no-es-esta")

        self.assertContains(response, "Esa no es tu clave")
        self.ana.refresh_from_db()
        self.assertEqual(self.ana.email, "ana@example.com")
        self.assertEqual(mail.outbox, [])

    def test_it_refuses_an_address_of_another_account(self):
        get_user_model().objects.create_user("bea", email="bea@example.com", password=PASSWORD)

        response = self.change(email="BEA@example.com")

        self.assertContains(response, "Ya hay una cuenta con ese correo")
        self.ana.refresh_from_db()
        self.assertEqual(self.ana.email, "ana@example.com")

    def test_the_same_address_changes_nothing(self):
        self.change(email="ANA@example.com")

        self.assertTrue(Profile.objects.get(user=self.ana).email_confirmed)
        self.assertEqual(mail.outbox, [])

    def test_changes_count_against_the_confirmation_limit(self):
        for n in range(ratelimit.MAX_CONFIRMATIONS_PER_USER + 1):
            response = self.change(email=f"ana{n}@example.com")

        self.assertEqual(len(mail.outbox), ratelimit.MAX_CONFIRMATIONS_PER_USER)
        self.ana.refresh_from_db()
        self.assertEqual(self.ana.email, f"ana{ratelimit.MAX_CONFIRMATIONS_PER_USER}@example.com")
        self.assertContains(self.client.get(response.url), "Guardamos tu correo nuevo")
