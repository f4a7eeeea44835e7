"""Content-Security-Policy (django-csp), Permissions-Policy, and the optional
error tracking (SENTRY_DSN) with tokens masked before an event leaves."""

import json

import pytest
from django.test import Client

from config.sentry import before_send
from tests.test_deploy import django_script


def directives(header):
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.django_db
def test_every_page_forbids_scripts_styles_and_frames_from_elsewhere():
    response = Client().get("/")
    policy = directives(response["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_the_permissions_policy_allows_only_copying_and_sharing_from_the_site():
    header = Client().get("/")["Permissions-Policy"]
    features = dict(item.strip().split("=", 1) for item in header.split(","))
    assert features["camera"] == "()" and features["geolocation"] == "()"
    assert features["clipboard-write"] == "(self)"
    assert features["web-share"] == "(self)"


def test_without_sentry_dsn_no_error_tracking_runs():
    result = django_script("import sentry_sdk; print(sentry_sdk.get_client().is_active())")
    assert result.stdout.split() == ["False"], result.stderr


def test_sentry_dsn_turns_on_the_django_and_celery_integrations():
    result = django_script(
        "import sentry_sdk\n"
        "client = sentry_sdk.get_client()\n"
        "print(client.is_active(), ' '.join(sorted(client.integrations)))\n"
        "print(client.options['send_default_pii'])\n",
        # Nothing is sent at start-up; a port of this project's range nobody listens on.
        SENTRY_DSN="http://public@127.0.0.1:18499/1",
    )
    lines = result.stdout.splitlines()
    assert lines[0].startswith("True"), result.stderr
    assert {"django", "celery"} <= set(lines[0].split()[1:])
    assert lines[1] == "False"


def test_an_event_leaves_with_its_tokens_masked():
    secret = "Zx-_9abcDEFsecret"
    event = {
        "request": {
            "url": f"https://mesa.example.com/mesa/ab/asiento/{secret}/",
            "headers": {"Referer": f"https://mesa.example.com/cuenta/correo/baja/{secret}/"},
        },
        "breadcrumbs": {"values": [{"message": f"GET /cuenta/clave/nueva/MQ/{secret}/"}]},
        "transaction": f"/mesa/ab/asiento/{secret}/",
    }
    assert secret not in json.dumps(before_send(event, {}))
