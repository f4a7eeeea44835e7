"""Celery tasks of the accounts app."""

import smtplib
from collections.abc import Mapping

from celery import shared_task

from .emails import send_templated_mail


# Transient delivery errors (the SMTP server down or refusing for a moment)
# are retried with backoff; a message the server accepted is not sent again.
@shared_task(
    autoretry_for=(smtplib.SMTPException, ConnectionError, TimeoutError),
    retry_backoff=30,
    retry_jitter=True,
    max_retries=5,
)
def send_templated_mail_task(
    *,
    to: str,
    template_name: str,
    context: Mapping[str, object],
    language: str,
    unsubscribe_url: str | None = None,
) -> int:
    """Send a templated message from a worker; arguments as send_templated_mail."""
    return send_templated_mail(
        to=to,
        template_name=template_name,
        context=context,
        language=language,
        unsubscribe_url=unsubscribe_url,
    )


@shared_task
def clear_expired_sessions() -> None:
    """Delete the sessions past their expiry (Django's `clearsessions`), daily on beat.

    Sessions last a year (settings.SESSION_COOKIE_AGE) and the database
    backend never removes one by itself.
    """
    from django.core.management import call_command

    call_command("clearsessions")
