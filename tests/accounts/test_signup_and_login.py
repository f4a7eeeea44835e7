from smtplib import SMTPException
from unittest import mock

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.test import Client

from accounts import ratelimit
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
    def confirmation_link(self):
        body = mail.outbox[-1].body
        link = next(w for w in body.split() if "/cuenta/correo/confirmar/" in w)
        self.assertTrue(link.startswith("http://127.0.0.1:8000/cuenta/correo/confirmar/"))
        return link.removeprefix("http://127.0.0.1:8000")

    def test_it_creates_the_account_with_a_profile_waiting_for_its_link(self):
        response = self.client.post("/cuenta/registro/", signup_data())

        self.assertRedirects(response, "/cuenta/registro/enviado/", fetch_redirect_response=False)
        bruno = get_user_model().objects.get(username="bruno")
        self.assertFalse(bruno.is_active)
        self.assertNotIn("_auth_user_id", self.client.session)
        profile = Profile.objects.get(user=bruno)
        self.assertEqual(profile.notify, Notify.EVERY_TURN)
        self.assertEqual(profile.language, "es")
        self.assertFalse(profile.email_confirmed)

    def test_its_mailed_link_confirms_the_address_opens_the_account_and_logs_in(self):
        self.client.post("/cuenta/registro/", signup_data())

        self.assertEqual(len(mail.outbox), 1)
        message = mail.outbox[0]
        self.assertEqual(message.to, ["bruno@example.com"])
        self.assertEqual(message.subject, "Confirma tu correo en Mesa")
        self.assertNotIn("List-Unsubscribe", message.extra_headers)

        response = self.client.get(self.confirmation_link(), follow=True)
        self.assertContains(response, "Tu cuenta está lista")
        bruno = get_user_model().objects.get(username="bruno")
        self.assertTrue(bruno.is_active)
        self.assertEqual(self.client.session["_auth_user_id"], str(bruno.pk))
        self.assertTrue(Profile.objects.get(user=bruno).email_confirmed)

    def test_the_link_brings_this_browser_back_to_a_safe_next_page(self):
        self.client.post("/cuenta/registro/", signup_data(next="/reglas/"))

        response = self.client.get(self.confirmation_link())

        self.assertRedirects(response, "/reglas/", fetch_redirect_response=False)

    def test_an_unsafe_next_page_is_ignored(self):
        self.client.post("/cuenta/registro/", signup_data(next="https://evil.example/"))

        response = self.client.get(self.confirmation_link())

        self.assertRedirects(response, "/cuenta/perfil/", fetch_redirect_response=False)

    def test_the_link_logs_in_only_the_first_time(self):
        self.client.post("/cuenta/registro/", signup_data())
        link = self.confirmation_link()
        self.client.get(link)
        self.client.post("/cuenta/salir/")

        response = self.client.get(link)

        self.assertContains(response, "Correo confirmado")
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_an_account_waiting_for_its_link_cannot_log_in_with_its_password(self):
        self.client.post("/cuenta/registro/", signup_data())

        response = self.log_in(username="bruno")

        # The sentence of a wrong password: the log-in tells nothing either.
        self.assertContains(response, "Ese nombre de usuario y esa clave no coinciden")
        self.assertNotIn("_auth_user_id", self.client.session)

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

    def test_an_email_with_an_account_gets_the_same_answer_and_its_owner_a_note(self):
        fresh = Client().post(
            "/cuenta/registro/", signup_data(username="carla", email="c@example.com")
        )
        known = self.client.post("/cuenta/registro/", signup_data(email="ANA@example.com"))

        self.assertEqual(known.status_code, fresh.status_code)
        self.assertEqual(known["Location"], fresh["Location"])
        self.assertEqual(
            self.client.get(known["Location"])
            .content.replace(b"\n", b"")
            .count(b"Revisa tu correo"),
            Client().get(fresh["Location"]).content.replace(b"\n", b"").count(b"Revisa tu correo"),
        )
        self.assertFalse(get_user_model().objects.filter(username="bruno").exists())
        note = mail.outbox[-1]
        self.assertEqual(note.to, ["ana@example.com"])
        self.assertEqual(note.subject, "Ya tienes una cuenta en Mesa")
        self.assertIn("tu nombre de usuario es ana", note.body)
        self.assertIn("http://127.0.0.1:8000/cuenta/clave/olvidada/", note.body)

    def test_both_answers_take_the_password_hasher_once(self):
        # The slow part of a sign-up: skipping it would time the difference.
        hashed = []
        encode = MD5PasswordHasher.encode

        def counting(hasher, password, salt):
            hashed.append(password)
            return encode(hasher, password, salt)

        with mock.patch.object(MD5PasswordHasher, "encode", counting):
            Client().post("/cuenta/registro/", signup_data(username="carla", email="c@example.com"))
            fresh = len(hashed)
            Client().post("/cuenta/registro/", signup_data(email="ana@example.com"))

        self.assertEqual(fresh, 1)
        self.assertEqual(len(hashed), 2)

    def test_signing_up_again_before_the_link_was_opened_mails_the_link_again(self):
        self.client.post("/cuenta/registro/", signup_data())
        self.client.post("/cuenta/registro/", signup_data(username="bruno2"))

        self.assertEqual(len(mail.outbox), 2)
        self.assertEqual(mail.outbox[1].subject, "Confirma tu correo en Mesa")
        self.assertFalse(get_user_model().objects.filter(username="bruno2").exists())
        self.client.get(self.confirmation_link())
        self.assertTrue(get_user_model().objects.get(username="bruno").is_active)

    def test_one_address_may_sign_up_a_few_times_an_hour(self):
        answers = [
            self.client.post(
                "/cuenta/registro/", signup_data(username=f"p{n}", email=f"p{n}@example.com")
            ).status_code
            for n in range(ratelimit.MAX_SIGNUPS_PER_ADDRESS + 1)
        ]

        self.assertEqual(answers, [302] * ratelimit.MAX_SIGNUPS_PER_ADDRESS + [429])
        self.assertEqual(len(mail.outbox), ratelimit.MAX_SIGNUPS_PER_ADDRESS)
        self.assertFalse(get_user_model().objects.filter(username=f"p{len(answers) - 1}").exists())
        # Someone else, elsewhere, still signs up.
        response = Client().post("/cuenta/registro/", signup_data(), REMOTE_ADDR="192.0.2.9")
        self.assertEqual(response.status_code, 302)


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
    def test_sign_up_still_makes_the_account_and_says_the_mail_failed(self):
        with (
            mock.patch("accounts.views.send_templated_mail", side_effect=SMTPException),
            self.assertLogs("accounts.views", "ERROR"),
        ):
            response = self.client.post("/cuenta/registro/", signup_data(), follow=True)

        self.assertTrue(get_user_model().objects.filter(username="bruno").exists())
        self.assertContains(response, "No pudimos mandarte el correo")

    def test_a_password_reset_looks_the_same_and_is_logged(self):
        with (
            mock.patch("accounts.forms.send_templated_mail", side_effect=SMTPException),
            self.assertLogs("accounts.forms", "ERROR"),
        ):
            response = self.client.post("/cuenta/clave/olvidada/", {"email": "ana@example.com"})

        self.assertRedirects(
            response, "/cuenta/clave/olvidada/enviada/", fetch_redirect_response=False
        )
