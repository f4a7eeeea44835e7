from django.contrib.auth import get_user_model

from .base import AccountsTestCase


class AdminTests(AccountsTestCase):
    def test_the_user_page_shows_the_profile(self):
        admin = get_user_model().objects.create_superuser("root", "root@example.com", "x")
        self.client.force_login(admin)

        response = self.client.get(f"/admin/auth/user/{self.ana.pk}/change/")

        self.assertContains(response, 'name="profile-0-notify"')

    def test_the_profile_and_opt_out_lists_open(self):
        admin = get_user_model().objects.create_superuser("root", "root@example.com", "x")
        self.client.force_login(admin)

        for url in ("/admin/accounts/profile/", "/admin/accounts/emailoptout/"):
            self.assertEqual(self.client.get(url).status_code, 200, url)
