"""A profile keeps its time zone, for the deadlines in its emails."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_notify_words")]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="time_zone",
            field=models.CharField(
                blank=True, default="", max_length=64, verbose_name="zona horaria"
            ),
        ),
    ]
