"""/healthz and /readyz (config/health.py): JSON, 200 when ready, 503 naming what is not."""

from datetime import timedelta

import pytest
from django.test import Client

from config.celery import app
from games.lib import clock
from games.models import FollowUp
from tests.test_deploy import django_script


def test_healthz_answers_without_touching_anything():
    # No django_db mark: a query here would raise.
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "sessionid" not in response.cookies


@pytest.mark.django_db
def test_readyz_is_ready_when_every_dependency_answers():
    response = Client().get("/readyz")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "migrations", "cache", "broker", "outbox"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_readyz_fails_when_the_broker_is_unreachable(monkeypatch):
    # A port of this project's range that nothing listens on. Celery reads the
    # CELERY_BROKER_URL variable before its own setting, so both are moved; the
    # setting first, or monkeypatch would remember the variable's value as the
    # setting's and leave the broker unreachable for the tests after this one.
    unreachable = "redis://127.0.0.1:18499/0"
    monkeypatch.setattr(app.conf, "broker_url", unreachable)
    monkeypatch.setenv("CELERY_BROKER_URL", unreachable)
    response = Client().get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["broker"]["status"] == "failing"
    assert checks["database"]["status"] == "ok"


@pytest.mark.django_db
def test_readyz_fails_when_the_cache_table_is_missing(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "no_such_cache_table",
        }
    }
    response = Client().get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["cache"]["status"] == "failing"
    assert checks["outbox"]["status"] == "ok"


@pytest.mark.django_db
def test_readyz_fails_when_a_follow_up_waits_unpublished_for_more_than_five_minutes():
    now = clock.now()
    FollowUp.objects.create(
        task="games.tasks.bot_turn", due_at=now - timedelta(minutes=4), created_at=now
    )
    assert Client().get("/readyz").status_code == 200

    FollowUp.objects.create(
        task="games.tasks.bot_turn", due_at=now - timedelta(minutes=6), created_at=now
    )
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert "due for" in response.json()["checks"]["outbox"]["error"]


def test_readyz_fails_before_the_migrations_ran(tmp_path):
    result = django_script(
        "from django.test import Client\n"
        "response = Client(HTTP_HOST='mesa.example.com').get('/readyz', secure=True)\n"
        "print(response.status_code, response.json()['checks']['migrations']['status'])\n",
        DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        CELERY_BROKER_URL="memory://",
        CACHE_URL="locmemcache://",
        MESA_ALLOW_EMBEDDED="1",
    )
    assert result.stdout.split() == ["503", "failing"], result.stderr


UNREACHABLE_BROKER = "redis://127.0.0.1:18499/0"  # of this project's range; nothing listens


@pytest.fixture
def broker_unreachable(monkeypatch):
    # As above: the setting first, then the variable Celery reads before it.
    monkeypatch.setattr(app.conf, "broker_url", UNREACHABLE_BROKER)
    monkeypatch.setenv("CELERY_BROKER_URL", UNREACHABLE_BROKER)


@pytest.mark.django_db
@pytest.mark.usefixtures("broker_unreachable")
def test_readyz_tells_a_public_caller_only_the_statuses(caplog, settings):
    # Behind nginx on the machine: the peer is the proxy, the client its header's.
    settings.TRUSTED_PROXIES = "127.0.0.1"
    caplog.set_level("WARNING", logger="config.health")
    response = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9").get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["broker"] == {"status": "failing"}
    assert set(body["checks"]) == {"database", "migrations", "cache", "broker", "outbox"}
    text = response.content.decode()
    for secret in ("18499", "127.0.0.1", "error", "Error", "refused"):
        assert secret not in text
    # The operator still reads why, in the log.
    assert any("18499" in record.getMessage() for record in caplog.records)


@pytest.mark.django_db
@pytest.mark.usefixtures("broker_unreachable")
def test_readyz_tells_a_forged_forwarded_loopback_only_the_statuses(settings):
    # No proxy trusted: a header claiming the machine itself is the client's own words.
    settings.TRUSTED_PROXIES = ""
    client = Client(REMOTE_ADDR="198.51.100.4", HTTP_X_FORWARDED_FOR="127.0.0.1")
    response = client.get("/readyz")
    assert response.json()["checks"]["broker"] == {"status": "failing"}


@pytest.mark.django_db
@pytest.mark.usefixtures("broker_unreachable")
def test_readyz_tells_the_machine_itself_why_a_check_fails():
    response = Client(REMOTE_ADDR="127.0.0.1").get("/readyz")
    assert response.status_code == 503
    assert "18499" in response.json()["checks"]["broker"]["error"]


@pytest.mark.django_db
@pytest.mark.usefixtures("broker_unreachable")
def test_readyz_tells_a_configured_network_why_a_check_fails(settings):
    settings.TRUSTED_PROXIES = "127.0.0.1"
    settings.READYZ_DETAIL_NETWORKS = "10.20.0.0/16, 2001:db8::/32"
    for forwarded in ("10.20.3.4", "2001:db8::7"):
        client = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
        assert "18499" in client.get("/readyz").json()["checks"]["broker"]["error"]
    outside = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="10.21.0.1")
    assert "error" not in outside.get("/readyz").json()["checks"]["broker"]
