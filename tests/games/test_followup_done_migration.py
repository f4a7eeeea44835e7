"""Migration 0012: rows published before tasks reported that they ran count as done."""

import importlib

from django.apps import apps

from games.models import FollowUp
from games.services import outbox

migration = importlib.import_module("games.migrations.0012_followup_done_and_redrive")


def test_rows_published_before_the_migration_are_done_the_others_still_owed(db, clock):
    published = outbox.defer("games.tasks.match_ended_email", 1, until=clock())
    waiting = outbox.defer("games.tasks.match_ended_email", 2, until=clock())
    FollowUp.objects.filter(pk=published.pk).update(published_at=clock())

    migration.published_rows_are_done(apps, None)

    published.refresh_from_db(), waiting.refresh_from_db()
    assert published.done_at == published.published_at
    assert waiting.done_at is None and waiting.published_at is None
    assert outbox.publish_due() == 0  # nothing re-driven at deploy time
