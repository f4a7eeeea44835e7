from accounts.models import EmailOptOut, Notify, Profile
from accounts.recipients import recipient_for_seat
from games import services
from games.engine import MatchRules

from .base import AccountsTestCase


class RecipientForSeatTests(AccountsTestCase):
    def guest_seat(self, **kwargs):
        fields = {"email": "invitado@example.com", "email_consent": True, "language": "en"}
        return services.room_create(rules=MatchRules(), nickname="Invitado", **{**fields, **kwargs})

    def account_seat(self, *, confirmed=True, **profile):
        Profile.objects.filter(user=self.ana).update(email_confirmed=confirmed, **profile)
        return services.room_create(rules=MatchRules(), nickname="Ana", user=self.ana)

    def test_a_guest_who_consented_is_mailed_in_their_language(self):
        recipient = recipient_for_seat(self.guest_seat())

        self.assertEqual(
            (recipient.email, recipient.language, recipient.notify),
            ("invitado@example.com", "en", Notify.EVERY_TURN),
        )
        self.assertIn("/cuenta/correo/baja/", recipient.unsubscribe_url)

    def test_a_guest_without_consent_or_address_is_not_mailed(self):
        self.assertIsNone(recipient_for_seat(self.guest_seat(email_consent=False)))
        self.assertIsNone(recipient_for_seat(self.guest_seat(email="")))

    def test_an_account_seat_uses_the_profile_not_the_seat(self):
        recipient = recipient_for_seat(self.account_seat(language="en", notify=Notify.DAILY))

        self.assertEqual(
            (recipient.email, recipient.language, recipient.notify),
            ("ana@example.com", "en", Notify.DAILY),
        )

    def test_an_unconfirmed_account_address_is_not_mailed(self):
        self.assertIsNone(recipient_for_seat(self.account_seat(confirmed=False)))

    def test_an_account_that_chose_no_mail_is_not_mailed(self):
        self.assertIsNone(recipient_for_seat(self.account_seat(notify=Notify.NONE)))

    def test_an_unsubscribed_address_is_not_mailed_whoever_holds_it(self):
        EmailOptOut.objects.create(email="invitado@example.com")
        EmailOptOut.objects.create(email="ana@example.com")

        self.assertIsNone(recipient_for_seat(self.guest_seat(email="Invitado@Example.com")))
        self.assertIsNone(recipient_for_seat(self.account_seat()))
