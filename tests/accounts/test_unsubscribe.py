from django.test import Client

from accounts import services
from accounts.models import EmailOptOut, Notify, Profile

from .base import AccountsTestCase


class UnsubscribeTests(AccountsTestCase):
    def setUp(self):
        super().setUp()
        self.url = services.unsubscribe_url("Ana@Example.com").removeprefix("http://127.0.0.1:8000")

    def test_the_link_asks_before_doing_anything(self):
        response = self.client.get(self.url)

        self.assertContains(response, "ana@example.com")
        self.assertContains(response, "Sí, no quiero más correos")
        self.assertFalse(EmailOptOut.objects.exists())

    def test_confirming_stops_mail_to_the_address_and_the_account(self):
        response = self.client.post(self.url)

        self.assertContains(response, "Baja hecha")
        self.assertTrue(services.email_is_opted_out("ANA@example.com"))
        self.assertEqual(Profile.objects.get(user=self.ana).notify, Notify.NONE)

    def test_it_works_for_a_guest_address_without_an_account(self):
        url = services.unsubscribe_url("invitado@example.com")

        self.client.post(url.removeprefix("http://127.0.0.1:8000"))

        self.assertTrue(services.email_is_opted_out("invitado@example.com"))

    def test_a_forged_link_is_refused_and_changes_nothing(self):
        forged = services.unsubscribe_token("ana@example.com")[:-2] + "xx"
        for method in (self.client.get, self.client.post):
            response = method(f"/cuenta/correo/baja/{forged}/")
            self.assertEqual(response.status_code, 400)
        other_salt = services.confirm_email_url(self.ana).rsplit("/", 2)[-2]
        response = self.client.post(f"/cuenta/correo/baja/{other_salt}/")
        self.assertEqual(response.status_code, 400)

        self.assertFalse(EmailOptOut.objects.exists())
        self.assertEqual(Profile.objects.get(user=self.ana).notify, Notify.EVERY_TURN)

    def test_a_mail_client_one_click_post_works_without_a_csrf_token(self):
        mail_client = Client(enforce_csrf_checks=True)

        response = mail_client.post(self.url, {"List-Unsubscribe": "One-Click"})

        self.assertEqual(response.status_code, 200)
        self.assertTrue(services.email_is_opted_out("ana@example.com"))

    def test_unsubscribing_twice_is_harmless(self):
        self.client.post(self.url)
        response = self.client.post(self.url)

        self.assertEqual(response.status_code, 200)
        self.assertEqual(EmailOptOut.objects.count(), 1)
