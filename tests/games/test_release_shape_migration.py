"""Migration 0007: dead letters written before the claims had one shape still release."""

import importlib
from datetime import UTC, datetime

from games.mail.claims import Claim

migration = importlib.import_module("games.migrations.0007_claims_one_release_shape")
NOON = "2026-03-02T12:00:00+00:00"


def test_each_old_release_shape_becomes_claims_of_the_one_shape():
    key = migration.one_shape({"key": "ended:1:2"})
    turns = migration.one_shape({"turns": [[7, NOON, None]]})
    field = migration.one_shape({"match": 3, "field": "reminder_sent_for", "started": NOON})

    noon = datetime(2026, 3, 2, 12, tzinfo=UTC)
    assert [Claim.from_json(c) for c in key["claims"]] == [Claim("sent_email", "ended:1:2")]
    assert [Claim.from_json(c) for c in turns["claims"]] == [
        Claim("seat", 7, "turn_notified_at", noon, None)
    ]
    assert [Claim.from_json(c) for c in field["claims"]] == [
        Claim("match", 3, "reminder_sent_for", noon, None)
    ]


def test_a_release_already_in_the_one_shape_is_left_alone():
    release = {"claims": [Claim("sent_email", "k").to_json()]}
    assert migration.one_shape(release) is release
