"""Notify's words are the profile form's (one set for the form, the admin and
a guest seat's choice). Choices only: no stored value changes."""

from django.db import migrations, models

NOTIFY = [
    ("turn", "Cada vez que te toca jugar"),
    ("daily", "Un resumen al día con las partidas que te esperan"),
    ("none", "Ninguno"),
]


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.AlterField(
            "profile",
            "notify",
            models.CharField("correos", choices=NOTIFY, default="turn", max_length=8),
        )
    ]
