from smtplib import SMTPException
from unittest import mock

from django.contrib.auth import get_user_model
from django.core import mail

from accounts.models import Notify, Profile

from .base import PASSWORD, AccountsTestCase


def signup_data(**overrides):
    data = {
        "username": "bruno",
        "email": "bruno@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    return {**data, **overrides}


class SignupTests(AccountsTestCase):
    def test_it_creates_the_account_with_a_profile_and_logs_in(self):
        response = self.client.post("/cuenta/registro/", signup_data())

        self.assertRedirects(response, "/cuenta/perfil/", fetch_redirect_response=False)
        bruno = get_user_model().objects.get(username="bruno")
        self.assertEqual(self.client.session["_auth_user_id"], str(bruno.pk))
        profile = Profile.objects.get(user=bruno)
        self.assertEqual(profile.notify, Notify.EVERY_TURN)
        self.assertEqual(profile.language, "es")
        self.assertFalse(profile.email_confirmed)

    def test_it_mails_a_confirmation_link_that_confirms_the_address(self):
        self.client.post("/cuenta/registro/", signup_data())

        self.assertEqual(len(mail.outbox), 1)
        message = mail.outbox[0]
        self.assertEqual(message.to, ["bruno@example.com"])
        self.assertEqual(message.subject, "Confirma tu correo en Mesa")
        link = next(w for w in message.body.split() if "/cuenta/correo/confirmar/" in w)
        self.assertTrue(link.startswith("http://127.0.0.1:8000/cuenta/correo/confirmar/"))
        self.assertNotIn("List-Unsubscribe", message.extra_headers)

        response = self.client.get(link.removeprefix("http://127.0.0.1:8000"))
        self.assertContains(response, "Correo confirmado")
        self.assertTrue(Profile.objects.get(user__username="bruno").email_confirmed)

    def test_it_starts_the_account_in_the_language_being_read(self):
        self.client.cookies["django_language"] = "en"
        self.client.post("/cuenta/registro/", signup_data())

        self.assertEqual(Profile.objects.get(user__username="bruno").language, "en")
        self.assertEqual(mail.outbox[0].subject, "Confirm your email at Mesa")

    def test_it_refuses_a_weak_password(self):
        response = self.client.post(
            "/cuenta/registro/", signup_data(password1="12345678", password2="12345678")
        )

        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "Esa clave es demasiado común")
        self.assertFalse(get_user_model().objects.filter(username="bruno").exists())

    def test_it_refuses_an_email_that_has_an_account_whatever_its_case(self):
        response = self.client.post("/cuenta/registro/", signup_data(email="ANA@example.com"))

        self.assertContains(response, "Ya hay una cuenta con ese correo")
        self.assertFalse(get_user_model().objects.filter(username="bruno").exists())


class LoginTests(AccountsTestCase):
    def test_it_logs_in_and_out(self):
        response = self.log_in()
        self.assertRedirects(response, "/mis-partidas/", fetch_redirect_response=False)
        self.assertEqual(self.client.session["_auth_user_id"], str(self.ana.pk))

        response = self.client.post("/cuenta/salir/")
        self.assertRedirects(response, "/", fetch_redirect_response=False)
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_it_follows_a_safe_next_link_only(self):
        response = self.client.post(
            "/cuenta/entrar/", {"username": "ana", "password": PASSWORD, "next": "/reglas/"}
        )
        self.assertRedirects(response, "/reglas/", fetch_redirect_response=False)

        self.client.post("/cuenta/salir/")
        response = self.client.post(
            "/cuenta/entrar/",
            {"username": "ana", "password": PASSWORD, "next": "https://evil.example/"},
        )
        self.assertRedirects(response, "/mis-partidas/", fetch_redirect_response=False)

    def test_it_switches_the_site_to_the_profile_language(self):
        Profile.objects.filter(user=self.ana).update(language="en")

        response = self.log_in()

        self.assertEqual(response.cookies["django_language"].value, "en")

    def test_a_wrong_password_shows_a_clear_message(self):
        response = self.log_in(password="otra-cosa")

        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "Ese nombre de usuario y esa clave no coinciden")
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_an_account_made_before_profiles_gets_one_at_log_in(self):
        Profile.objects.filter(user=self.ana).delete()

        self.log_in()

        self.assertTrue(Profile.objects.filter(user=self.ana).exists())


class MailServerDownTests(AccountsTestCase):
    def test_sign_up_still_succeeds_and_says_the_mail_failed(self):
        with (
            mock.patch("accounts.views.send_templated_mail", side_effect=SMTPException),
            self.assertLogs("accounts.views", "ERROR"),
        ):
            response = self.client.post("/cuenta/registro/", signup_data(), follow=True)

        self.assertTrue(get_user_model().objects.filter(username="bruno").exists())
        self.assertContains(response, "No pudimos mandarte el correo de confirmación")

    def test_a_password_reset_looks_the_same_and_is_logged(self):
        with (
            mock.patch("accounts.forms.send_templated_mail", side_effect=SMTPException),
            self.assertLogs("accounts.forms", "ERROR"),
        ):
            response = self.client.post("/cuenta/clave/olvidada/", {"email": "ana@example.com"})

        self.assertRedirects(
            response, "/cuenta/clave/olvidada/enviada/", fetch_redirect_response=False
        )
