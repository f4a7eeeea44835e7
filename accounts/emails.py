"""Templated mail in the recipient's language.

Every message has a plain-text and an HTML body, rendered from
templates/emails/<name>.txt and <name>.html, and a subject from
<name>_subject.txt. Mail a person may stop also carries a one-click
unsubscribe link (RFC 8058): in the footer and in the List-Unsubscribe header.
"""

from collections.abc import Mapping

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template import Context
from django.template.backends.django import Template
from django.template.loader import get_template, render_to_string
from django.utils import translation


def render_plain(template_name: str, context: Mapping[str, object]) -> str:
    """A plain-text part (the subject, the text body): rendered without HTML
    escaping, so a nickname "<b>" reads "<b>", not "&lt;b&gt;". Only the HTML
    part escapes."""
    template = get_template(template_name)
    assert isinstance(template, Template), "mail templates are Django templates"
    return template.template.render(Context(dict(context), autoescape=False))


def send_templated_mail(
    *,
    to: str,
    template_name: str,
    context: Mapping[str, object],
    language: str,
    unsubscribe_url: str | None = None,
) -> int:
    """Render and send one message to `to`; return how many were sent (0 or 1).

    `language` is the recipient's ("es" or "en"), not the current request's.
    Transactional mail (password reset, address confirmation) passes no
    `unsubscribe_url`; notifications must pass one.
    """
    context = {**context, "site_url": settings.SITE_URL, "unsubscribe_url": unsubscribe_url}
    with translation.override(language):
        subject = render_plain(f"emails/{template_name}_subject.txt", context)
        text = render_plain(f"emails/{template_name}.txt", context)
        html = render_to_string(f"emails/{template_name}.html", context)
    headers = {"Auto-Submitted": "auto-generated"}
    if unsubscribe_url:
        headers["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message = EmailMultiAlternatives(
        # A subject is one line, whatever the template's trailing newline.
        subject=" ".join(subject.split()),
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers=headers,
    )
    message.attach_alternative(html, "text/html")
    return message.send()
