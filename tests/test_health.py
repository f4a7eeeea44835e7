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
