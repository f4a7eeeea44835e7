"""Expired sessions leave the database: clearsessions runs daily on beat."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.tasks import clear_expired_sessions
from config import celery_app


@pytest.mark.django_db
def test_the_task_deletes_expired_sessions_and_keeps_live_ones():
    live, expired = SessionStore(), SessionStore()
    live["x"] = expired["x"] = 1
    live.create()
    expired.create()
    Session.objects.filter(session_key=expired.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )

    clear_expired_sessions()

    assert list(Session.objects.values_list("session_key", flat=True)) == [live.session_key]


def test_beat_runs_it_daily_on_the_sweeps_queue():
    (entry,) = [
        entry
        for entry in settings.CELERY_BEAT_SCHEDULE.values()
        if entry["task"] == "accounts.tasks.clear_expired_sessions"
    ]
    assert entry["schedule"].hour == {4}
    route = celery_app.amqp.router.route({}, "accounts.tasks.clear_expired_sessions")
    assert route["queue"].name == "sweeps"
