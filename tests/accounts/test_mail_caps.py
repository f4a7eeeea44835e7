"""Who can make the site mail a stranger, and how often (accounts.ratelimit).

Every limit counts an IPv6 client by its /64: one subscriber may use any
address in it. And whatever the clients, one address gets at most
MAILS_PER_RECIPIENT mails of each kind a day that someone else asked for
(sign-up, password reset, confirmation of a changed address; invitations in
tests/games/test_challenges.py); past it the answer is the usual one and
nothing is sent.
"""

# A rate limit's window is a cache entry's expiry, read by Django on time.time():
# time-machine, not the site's clock (games.lib.clock says why).
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client, override_settings

from accounts import ratelimit
from accounts.client import client_group
from accounts.models import Profile
from accounts.recipients import recipient_for_seat
from games import services
from games.engine import MatchRules
from games.models import Seat

from .base import IN_PROCESS_CACHE, PASSWORD, AccountsTestCase


def signup_data(username, email):
    return {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}


def in_one_64(n):
    """The n-th address of one subscriber's /64, each one different."""
    return f"2001:db8:77:1:{n:x}:{n * 7:x}:5:{n + 1:x}"


def test_an_ipv6_client_is_its_64_and_an_ipv4_client_its_address():
    assert client_group("2001:db8:77:1:aa:bb:cc:dd") == "2001:db8:77:1::/64"
    assert client_group("2001:db8:77:1::1") == client_group(in_one_64(11))
    assert client_group("2001:db8:77:2::1") == "2001:db8:77:2::/64"
    assert client_group("203.0.113.9") == "203.0.113.9"
    assert client_group("::ffff:203.0.113.9") == "203.0.113.9"
    assert client_group("") == ""


def test_the_mailbox_of_an_address_ignores_case_and_a_plus_tag():
    assert ratelimit.mailbox(" Vic+1@Example.com ") == "vic@example.com"
    assert ratelimit.mailbox("vic+a+b@example.com") == "vic@example.com"
    assert ratelimit.mailbox("+x@example.com") == "+x@example.com"


class SignupFromOne64Tests(AccountsTestCase):
    def test_twelve_sign_ups_from_one_64_count_as_one_client(self):
        answers = [
            Client(REMOTE_ADDR=in_one_64(n))
            .post("/cuenta/registro/", signup_data(f"p{n}", f"p{n}@example.com"))
            .status_code
            for n in range(12)
        ]

        limit = ratelimit.MAX_SIGNUPS_PER_ADDRESS
        self.assertEqual(answers, [302] * limit + [429] * (12 - limit))
        self.assertEqual(len(mail.outbox), limit)
        # The next /64 is someone else.
        other = Client(REMOTE_ADDR="2001:db8:77:2::1")
        response = other.post("/cuenta/registro/", signup_data("q", "q@example.com"))
        self.assertEqual(response.status_code, 302)

    def test_twelve_sign_ups_naming_one_victim_from_one_64_mail_them_three_times(self):
        for n in range(12):
            Client(REMOTE_ADDR=in_one_64(n)).post(
                "/cuenta/registro/", signup_data(f"v{n}", f"victima+{n}@example.com")
            )

        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)


class RecipientCapTests(AccountsTestCase):
    def sign_up_from(self, n, email, username=None):
        response = Client(REMOTE_ADDR=f"198.51.100.{n}").post(
            "/cuenta/registro/", signup_data(username or f"u{n}", email)
        )
        self.assertRedirects(response, "/cuenta/registro/enviado/", fetch_redirect_response=False)
        return response

    def test_sign_ups_from_many_clients_mail_a_new_address_three_times_a_day(self):
        with self.assertLogs("accounts.ratelimit", "WARNING") as logs:
            for n in range(12):
                response = self.sign_up_from(n, "victima@example.com")
                # As usual: nothing says the mail was held back.
                self.assertEqual(list(response.wsgi_request._messages), [])

        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)
        self.assertEqual({m.to[0] for m in mail.outbox}, {"victima@example.com"})
        self.assertEqual(len(logs.records), 12 - ratelimit.MAILS_PER_RECIPIENT)
        self.assertIn("signup to v***@example.com held back", logs.output[0])
        self.assertNotIn("victima", "".join(logs.output))

    def test_the_owner_of_a_known_address_gets_three_notes_a_day(self):
        Profile.objects.update_or_create(user=self.ana, defaults={"email_confirmed": True})
        self.ana.last_login = self.ana.date_joined
        self.ana.save()
        for n in range(8):
            self.sign_up_from(n, "Ana@Example.com" if n % 2 else "ana+x@example.com")

        # A note to the account's owner, or a new account's link to "ana+x@": one mailbox.
        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)
        self.assertEqual({ratelimit.mailbox(m.to[0]) for m in mail.outbox}, {"ana@example.com"})

    @override_settings(CACHES=IN_PROCESS_CACHE)
    def test_the_cap_lifts_after_a_day(self):
        with time_machine.travel("2026-03-01 10:00Z", tick=False) as traveller:
            for n in range(5):
                self.sign_up_from(n, "victima@example.com")
            traveller.shift(ratelimit.MAIL_WINDOW_SECONDS - 60)
            self.sign_up_from(6, "victima@example.com")
            self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)
            traveller.shift(120)
            self.sign_up_from(7, "victima@example.com")

        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT + 1)

    def test_password_resets_from_many_clients_mail_the_owner_three_times_a_day(self):
        for n in range(8):
            self.ask_for_a_reset(REMOTE_ADDR=f"198.51.100.{n}")

        self.assertEqual(len(mail.outbox), ratelimit.MAILS_PER_RECIPIENT)

    def test_accounts_changing_their_address_to_a_strangers_mail_it_three_times_a_day(self):
        for n in range(6):
            user = get_user_model().objects.create_user(f"m{n}", f"m{n}@example.com", PASSWORD)
            browser = Client()
            browser.force_login(user)
            # Each account within its own limit: one change there, one back.
            for email in ("victima@example.com", f"m{n}@example.com"):
                browser.post("/cuenta/correo/", {"email": email, "password": PASSWORD})

        to_victim = [m for m in mail.outbox if m.to == ["victima@example.com"]]
        self.assertEqual(len(to_victim), ratelimit.MAILS_PER_RECIPIENT)
        self.assertEqual(len(mail.outbox), 6 + ratelimit.MAILS_PER_RECIPIENT)


class LockoutsFromOne64Tests(AccountsTestCase):
    def test_failed_log_ins_from_one_64_count_together(self):
        get_user_model().objects.create_user("bea", password=PASSWORD)
        per_name = ratelimit.MAX_FAILURES_PER_USERNAME - 1
        n = 0
        for name in range(ratelimit.MAX_FAILURES_PER_ADDRESS // per_name):
            for _ in range(per_name):
                n += 1
                self.log_in(username=f"nadie{name}", password="no", REMOTE_ADDR=in_one_64(n))

        blocked = self.log_in(username="bea", REMOTE_ADDR=in_one_64(n + 1))
        self.assertContains(blocked, "Demasiados intentos fallidos")
        elsewhere = self.log_in(username="bea", REMOTE_ADDR="2001:db8:77:2::9")
        self.assertRedirects(elsewhere, "/mis-partidas/", fetch_redirect_response=False)

    def test_password_resets_from_one_64_count_together(self):
        for n in range(ratelimit.MAX_RESETS_PER_ADDRESS):
            self.ask_for_a_reset(email=f"nadie{n}@example.com", REMOTE_ADDR=in_one_64(n))
        self.ask_for_a_reset(REMOTE_ADDR=in_one_64(99))

        self.assertEqual(mail.outbox, [])


class GuestSeatCapTests(AccountsTestCase):
    def test_three_new_guest_seats_a_day_may_ask_for_mail_to_one_address(self):
        with self.assertLogs("accounts.ratelimit", "WARNING") as logs:
            seats = [
                services.room_create(
                    rules=MatchRules(),
                    nickname=f"g{n}",
                    bot="domador",
                    email=f"Victima+{n}@example.com",
                    email_consent=True,
                )
                for n in range(4)
            ]
            waiting = services.room_create(rules=MatchRules(), nickname="h")
            seats.append(
                services.room_join(
                    room=waiting.room, nickname="j", email="victima@example.com", email_consent=True
                )
            )

        mailed = [recipient_for_seat(Seat.objects.get(pk=seat.pk)) is not None for seat in seats]
        self.assertEqual(mailed, [True] * ratelimit.MAILS_PER_RECIPIENT + [False, False])
        self.assertIn("guest_seat to v***@example.com held back", logs.output[0])
        # The seats themselves play on as any other; someone else's address is mailed.
        other = services.room_create(
            rules=MatchRules(), nickname="k", email="otra@example.com", email_consent=True
        )
        self.assertIsNotNone(recipient_for_seat(Seat.objects.get(pk=other.pk)))

    def test_rooms_from_many_clients_naming_one_address_ask_for_its_mail_three_times(self):
        for n in range(6):
            response = Client(REMOTE_ADDR=f"2001:db8:{n}::1").post(
                "/api/rooms",
                data={
                    "nickname": "x",
                    "rules": {"format": "single"},
                    "bot": "domador",
                    "email": "victima@example.com",
                    "email_consent": True,
                },
                content_type="application/json",
            )
            self.assertEqual(response.status_code, 201)

        consents = list(Seat.objects.filter(number=1).values_list("email_consent", flat=True))
        self.assertEqual(sorted(consents), [False] * 3 + [True] * 3)
