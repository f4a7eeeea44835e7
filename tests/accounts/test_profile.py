from accounts.models import EmailOptOut, Notify, Profile

from .base import AccountsTestCase


class ProfileTests(AccountsTestCase):
    def test_it_needs_an_account(self):
        response = self.client.get("/cuenta/perfil/")

        self.assertRedirects(
            response, "/cuenta/entrar/?next=/cuenta/perfil/", fetch_redirect_response=False
        )

    def test_it_shows_the_current_choices(self):
        self.client.force_login(self.ana)

        response = self.client.get("/cuenta/perfil/")

        self.assertContains(response, "Cada vez que te toca jugar")
        self.assertContains(response, 'value="turn" id="id_notify_0" required checked')

    def test_it_saves_name_language_and_notification_choice(self):
        self.client.force_login(self.ana)

        response = self.client.post(
            "/cuenta/perfil/", {"display_name": "Ana M.", "language": "en", "notify": "daily"}
        )

        self.assertRedirects(response, "/cuenta/perfil/", fetch_redirect_response=False)
        profile = Profile.objects.get(user=self.ana)
        self.assertEqual(
            (profile.display_name, profile.language, profile.notify), ("Ana M.", "en", "daily")
        )
        self.assertEqual(response.cookies["django_language"].value, "en")
        self.assertContains(self.client.get("/cuenta/perfil/"), "Saved.")

    def test_forced_plays_are_played_for_a_new_account_until_it_says_no(self):
        self.client.force_login(self.ana)
        self.assertTrue(Profile.objects.get(user=self.ana).forced_plays)

        page = self.client.get("/cuenta/perfil/")
        self.assertContains(page, "Juega por mí las jugadas forzadas")
        self.assertContains(page, 'aria-describedby="id_forced_plays_helptext"')

        # An unticked box is not sent at all: the option goes off.
        data = {"display_name": "", "language": "es", "notify": "turn"}
        self.client.post("/cuenta/perfil/", data)
        self.assertFalse(Profile.objects.get(user=self.ana).forced_plays)
        self.client.post("/cuenta/perfil/", {**data, "forced_plays": "on"})
        self.assertTrue(Profile.objects.get(user=self.ana).forced_plays)

    def test_it_refuses_an_unknown_choice(self):
        self.client.force_login(self.ana)

        response = self.client.post(
            "/cuenta/perfil/", {"display_name": "", "language": "fr", "notify": "hourly"}
        )

        self.assertEqual(response.status_code, 200)
        profile = Profile.objects.get(user=self.ana)
        self.assertEqual((profile.language, profile.notify), ("es", Notify.EVERY_TURN))

    def test_asking_for_mail_again_lifts_an_unsubscribe(self):
        EmailOptOut.objects.create(email="ana@example.com")
        Profile.objects.filter(user=self.ana).update(notify=Notify.NONE)
        self.client.force_login(self.ana)

        self.client.post(
            "/cuenta/perfil/", {"display_name": "", "language": "es", "notify": "turn"}
        )

        self.assertFalse(EmailOptOut.objects.exists())
