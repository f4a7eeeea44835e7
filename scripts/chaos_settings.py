"""The settings of `make chaos`'s processes: production's, with the beat's clock shortened.

Every periodic sweep and email of config.settings.base (the reminder, "ya
puedes cerrar", the digest, closing by absence, expiring rooms and
challenges) runs every CHAOS_SWEEP_SECONDS (15) instead of every 10 minutes,
hour or day, so that two beats at once meet on the same rows within a
scenario. The follow-up sweep keeps FOLLOW_UP_SWEEP_SECONDS (the script sets it).
"""

import os

from config.settings.base import *  # noqa: F403 - these settings, then the changes below
from config.settings.base import CELERY_BEAT_SCHEDULE

SWEEP_SECONDS = int(os.environ.get("CHAOS_SWEEP_SECONDS", "15"))

for name in (
    "close-absent-games",
    "expire-idle-rooms",
    "expire-challenges",
    "send-absence-reminders",
    "send-absence-claimable",
    "send-daily-digests",
):
    CELERY_BEAT_SCHEDULE[name] = {
        **CELERY_BEAT_SCHEDULE[name],
        "schedule": SWEEP_SECONDS,
        "options": {"expires": SWEEP_SECONDS},
    }

# The run's push service (scripts/chaos/pushserver.py) listens on 127.0.0.1.
PUSH_ALLOW_LOOPBACK = True
