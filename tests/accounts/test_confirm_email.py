# Django's signing reads time.time() for a link's age:
# time-machine, not the site's clock (games.lib.clock says why).
import time_machine
from django.core import mail

from accounts import ratelimit, services
from accounts.models import Profile

from .base import AccountsTestCase


class ConfirmEmailTests(AccountsTestCase):
    def path(self):
        return services.confirm_email_url(self.ana).removeprefix("http://127.0.0.1:8000")

    def confirmed(self):
        return Profile.objects.get(user=self.ana).email_confirmed

    def test_the_link_confirms_the_address(self):
        self.assertContains(self.client.get(self.path()), "Correo confirmado")
        self.assertTrue(self.confirmed())

    def test_a_link_for_an_old_address_does_not_confirm_the_new_one(self):
        path = self.path()
        self.ana.email = "ana.nueva@example.com"
        self.ana.save()

        self.assertContains(self.client.get(path), "Este enlace no sirve")
        self.assertFalse(self.confirmed())

    def test_the_link_expires_after_a_week(self):
        with time_machine.travel("2026-03-01 10:00Z", tick=False) as traveller:
            path = self.path()
            traveller.shift(services.CONFIRM_MAX_AGE + 1)
            response = self.client.get(path)

        self.assertContains(response, "Este enlace no sirve")
        self.assertFalse(self.confirmed())

    def test_the_profile_can_send_the_link_again(self):
        self.client.force_login(self.ana)

        response = self.client.post("/cuenta/correo/confirmar/")

        self.assertRedirects(response, "/cuenta/perfil/", fetch_redirect_response=False)
        (message,) = mail.outbox
        self.assertIn("/cuenta/correo/confirmar/", message.body)

    def test_resending_is_limited_to_a_few_an_hour(self):
        self.client.force_login(self.ana)

        for _ in range(ratelimit.MAX_CONFIRMATIONS_PER_USER + 2):
            response = self.client.post("/cuenta/correo/confirmar/", follow=True)

        self.assertEqual(len(mail.outbox), ratelimit.MAX_CONFIRMATIONS_PER_USER)
        self.assertContains(response, "Ya te mandamos varios correos hace poco")

    def test_a_confirmed_address_is_not_mailed_again(self):
        services.email_mark_confirmed(user=self.ana)
        self.client.force_login(self.ana)

        self.client.post("/cuenta/correo/confirmar/")

        self.assertEqual(mail.outbox, [])
