"""The dead letters' claims in games.mail.claims' one shape.

Before, a dead letter's `release` had one of three shapes: {"key": k} (a
SentEmail key), {"turns": [[seat id, turn start, previous], ...]} (the
seats' turns told) or {"match": id, "field": f, "started": turn start} (a
field of the match). Now every one is {"claims": [{"row", "id", "field",
"claimed", "previous"}, ...]}, so that the admin's "send again" reads one.
"""

from django.db import migrations


def _claim(row, id, field="", claimed=None, previous=None) -> dict:
    return {"row": row, "id": id, "field": field, "claimed": claimed, "previous": previous}


def one_shape(release: dict) -> dict:
    if "claims" in release:
        return release
    claims = []
    if "key" in release:
        claims.append(_claim("sent_email", release["key"]))
    for seat_id, started, previous in release.get("turns", []):
        claims.append(_claim("seat", seat_id, "turn_notified_at", started, previous))
    if "field" in release:
        claims.append(_claim("match", release["match"], release["field"], release["started"]))
    return {"claims": claims}


def forwards(apps, schema_editor):
    FollowUp = apps.get_model("games", "FollowUp")
    for row in FollowUp.objects.filter(release__isnull=False).only("pk", "release"):
        if isinstance(row.release, dict) and "claims" not in row.release:
            FollowUp.objects.filter(pk=row.pk).update(release=one_shape(row.release))


class Migration(migrations.Migration):
    dependencies = [("games", "0006_turn_kind_and_notify_choices")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
