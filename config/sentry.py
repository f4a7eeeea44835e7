"""Optional error tracking: SENTRY_DSN turns on sentry-sdk for the web and the workers.

Events carry the request's URL and headers, so the same mask as the logs
(config.logmask) runs over them before they leave: a seat link's token must
not end up in a third party's error tracker either. No personal data is sent.
"""

from __future__ import annotations

from typing import Any, cast

from sentry_sdk.types import Event, Hint

from config.logmask import mask


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {key: _masked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item) for item in value]
    return value


def before_send(event: Event, hint: Hint) -> Event | None:
    """Mask tokens in the request, the messages and the breadcrumbs of an event."""
    data = cast(dict[str, Any], event)
    for key in ("request", "logentry", "message", "breadcrumbs", "transaction"):
        if key in data:
            data[key] = _masked(data[key])
    return event


def init(dsn: str, *, environment: str, traces_sample_rate: float) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        traces_sample_rate=traces_sample_rate,
        before_send=before_send,
        before_send_transaction=before_send,
    )
