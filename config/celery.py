"""The Celery app of Mesa.

Configuration comes from the Django settings (keys prefixed CELERY_), and
tasks are found in each installed app's tasks.py. Start a worker with beat
with `celery -A config worker --beat` (what `make run` does).
"""

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("mesa")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The worker's liveness probe and its watchdog (registered with the app).
import config.liveness  # noqa: E402, F401


@app.on_after_configure.connect
def _create_filesystem_broker_folders(sender: Celery, **kwargs: object) -> None:
    # kombu's filesystem transport (the embedded default) expects its folders
    # to exist; create them once the settings are read, in the web process and
    # in the worker alike, whichever publishes or consumes first.
    if not str(sender.conf.broker_url or "").startswith("filesystem://"):
        return
    options = sender.conf.broker_transport_options or {}
    for key in (
        "data_folder_in",
        "data_folder_out",
        "control_folder",
        "processed_folder",
        "claimed_folder",
    ):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)
