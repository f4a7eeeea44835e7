from django.core import mail
from django.test import SimpleTestCase
from django.utils import translation

from accounts.emails import send_templated_mail

UNSUBSCRIBE = "http://127.0.0.1:8000/cuenta/correo/baja/abc/"


class TemplatedMailTests(SimpleTestCase):
    def send(self, language, unsubscribe_url=UNSUBSCRIBE):
        return send_templated_mail(
            to="bruno@example.com",
            template_name="confirm_email",
            context={"name": "Bruno", "confirm_url": "http://127.0.0.1:8000/x/"},
            language=language,
            unsubscribe_url=unsubscribe_url,
        )

    def test_it_renders_text_and_html_in_the_recipient_language(self):
        with translation.override("es"):
            self.assertEqual(self.send("en"), 1)
            # The caller's language is left as it was.
            self.assertEqual(translation.get_language(), "es")

        (message,) = mail.outbox
        self.assertEqual(message.subject, "Confirm your email at Mesa")
        self.assertIn("Hello Bruno,", message.body)
        html, mimetype = message.alternatives[0]
        self.assertEqual(mimetype, "text/html")
        self.assertIn('<html lang="en">', html)
        self.assertIn("Hello Bruno,", html)

    def test_it_speaks_spanish_by_default(self):
        self.send("es")

        (message,) = mail.outbox
        self.assertEqual(message.subject, "Confirma tu correo en Mesa")
        self.assertIn("Hola, Bruno:", message.body)

    def test_it_adds_one_click_unsubscribe_headers_and_footer_link(self):
        self.send("es")

        (message,) = mail.outbox
        self.assertEqual(message.extra_headers["List-Unsubscribe"], f"<{UNSUBSCRIBE}>")
        self.assertEqual(
            message.extra_headers["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click"
        )
        self.assertIn(UNSUBSCRIBE, message.body)
        self.assertIn(f'href="{UNSUBSCRIBE}"', message.alternatives[0][0])
        raw = message.message().as_string()
        self.assertIn("List-Unsubscribe-Post: List-Unsubscribe=One-Click", raw)

    def test_transactional_mail_has_no_unsubscribe(self):
        self.send("es", unsubscribe_url=None)

        (message,) = mail.outbox
        self.assertNotIn("List-Unsubscribe", message.extra_headers)
        self.assertNotIn("/baja/", message.body)

    def test_the_text_part_is_not_html_escaped(self):
        send_templated_mail(
            to="bruno@example.com",
            template_name="confirm_email",
            context={"name": "Bruno & Co", "confirm_url": "http://127.0.0.1:8000/?a=1&b=2"},
            language="es",
        )

        (message,) = mail.outbox
        self.assertIn("Bruno & Co", message.body)
        self.assertIn("?a=1&b=2", message.body)
        self.assertIn("Bruno &amp; Co", message.alternatives[0][0])
