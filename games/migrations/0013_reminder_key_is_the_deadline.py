"""The absence reminder's claim is the deadline it reminds of, no longer the turn.

Match.reminder_sent_for held the turn_started_at of the reminded turn; it
now holds the absence_due_at reminded (games.mail.claims.claim_turn_field),
so that a deadline a vacation moves is reminded again. A reminder already
sent for the current turn becomes one sent for its current deadline: nobody
is reminded twice of the same deadline by the upgrade.
"""

from django.db import migrations
from django.db.models import F


def turn_to_deadline(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Match.objects.filter(reminder_sent_for=F("turn_started_at")).update(
        reminder_sent_for=F("absence_due_at")
    )


def deadline_to_turn(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Match.objects.filter(reminder_sent_for=F("absence_due_at")).update(
        reminder_sent_for=F("turn_started_at")
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0012_followup_done_and_redrive")]

    operations = [migrations.RunPython(turn_to_deadline, deadline_to_turn)]
