"""A guest's seats in this browser join the account at sign-up or log-in."""

from django.contrib.auth import get_user_model
from django.core import mail

from games import services
from games.engine import MatchRules
from games.models import Seat
from games.web.seats import SESSION_SEATS

from .base import PASSWORD, AccountsTestCase


class GuestSeatClaimTests(AccountsTestCase):
    def setUp(self):
        super().setUp()
        self.seat = services.room_create(rules=MatchRules(), nickname="Ana invitada")
        # Someone else's room: its token is not in this browser.
        self.other = services.room_create(rules=MatchRules(), nickname="Otra persona")

    def hold_in_this_browser(self, *seats, extra=None):
        session = self.client.session
        session[SESSION_SEATS] = {seat.room.slug: seat.token for seat in seats} | (extra or {})
        session.save()

    def test_log_in_joins_the_browser_seats_to_the_account(self):
        self.hold_in_this_browser(self.seat)

        self.log_in()

        self.assertEqual(Seat.objects.get(pk=self.seat.pk).user, self.ana)
        self.assertIsNone(Seat.objects.get(pk=self.other.pk).user)
        self.assertContains(self.client.get("/cuenta/perfil/"), "ahora es de tu cuenta")

    def test_sign_up_joins_them_when_its_link_is_opened_in_this_browser(self):
        self.hold_in_this_browser(self.seat)

        self.client.post(
            "/cuenta/registro/",
            {
                "username": "bruno",
                "email": "bruno@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )

        self.assertIsNone(Seat.objects.get(pk=self.seat.pk).user)  # not before the link

        link = next(w for w in mail.outbox[-1].body.split() if "/cuenta/correo/confirmar/" in w)
        self.client.get(link.removeprefix("http://127.0.0.1:8000"))

        self.assertEqual(Seat.objects.get(pk=self.seat.pk).user.username, "bruno")

    def test_a_seat_opened_from_an_email_link_joins_too(self):
        self.hold_in_this_browser(extra={self.seat.room.slug: self.seat.mail_token()})

        self.log_in()

        self.assertEqual(Seat.objects.get(pk=self.seat.pk).user, self.ana)

    def test_a_forged_token_claims_nothing(self):
        self.hold_in_this_browser(extra={self.other.room.slug: "not-the-token"})

        self.log_in()

        self.assertIsNone(Seat.objects.get(pk=self.other.pk).user)

    def test_a_seat_of_another_account_stays_with_it(self):
        Seat.objects.filter(pk=self.seat.pk).update(user=self.ana)
        self.hold_in_this_browser(self.seat)
        get_user_model().objects.create_user("bruno", password=PASSWORD)
        self.log_in(username="bruno")

        self.assertEqual(Seat.objects.get(pk=self.seat.pk).user, self.ana)
