"""A seat keeps its browser's time zone, for the deadlines in its emails."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0007_claims_one_release_shape")]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="time_zone",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
