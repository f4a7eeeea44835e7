"""Choices only, one vocabulary: a seat's Notify is accounts' (its words), a Turn's
kind an engine ActionKind. No stored value changes."""

from django.db import migrations, models

NOTIFY = [
    ("turn", "Cada vez que te toca jugar"),
    ("daily", "Un resumen al día con las partidas que te esperan"),
    ("none", "Ninguno"),
]
KINDS = [
    (kind, kind)
    for kind in (
        "roll double take drop beaver play resign_offer resign_accept resign_decline"
        " forfeit next_game stop"
    ).split()
]


class Migration(migrations.Migration):
    dependencies = [("games", "0005_match_absence_due_at")]

    operations = [
        migrations.AlterField(
            "seat", "notify", models.CharField(choices=NOTIFY, default="turn", max_length=5)
        ),
        migrations.AlterField("turn", "kind", models.CharField(choices=KINDS, max_length=16)),
    ]
