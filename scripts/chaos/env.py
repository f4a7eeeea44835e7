"""The run's settings (ports, URLs, the processes' environment), Django set up on
them, and the helpers every part uses: the log, bounded waits, the ORM through
an outage. Imported first by every module of the package."""

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
# CHAOS_PORT_BASE moves every port of the run together. WEB is the site as the
# players reach it: nginx's HTTPS port (gunicorn and uvicorn are on unix sockets
# in the run's folder, as the units put them); HTTP is nginx's redirect to it.
PORT_BASE = int(os.environ.get("CHAOS_PORT_BASE", "18200"))
WEB, REDIS, SMTP, PG = PORT_BASE, PORT_BASE + 1, PORT_BASE + 2, PORT_BASE + 3
HTTP, PUSH, PUBLISH = PORT_BASE + 4, PORT_BASE + 5, PORT_BASE + 6
SITE = f"https://127.0.0.1:{WEB}"
DATABASE_URL = f"postgres://postgres@127.0.0.1:{PG}/mesa_chaos"
REDIS_URL = f"redis://127.0.0.1:{REDIS}/0"
EMAIL_TIMEOUT = 2
TURN_EMAIL_PAUSE = 60  # games.lib.deadlines: "Es tu turno" leaves 60 s after the turn passed
RUN_DEADLINE = 45 * 60  # the whole run, whatever happens
SETTINGS = {
    "DJANGO_SETTINGS_MODULE": "scripts.chaos_settings",
    "DATABASE_URL": DATABASE_URL,
    "CELERY_BROKER_URL": REDIS_URL,
    # The cache on the broker's Redis, another database: the README's production column.
    "CACHE_URL": f"redis://127.0.0.1:{REDIS}/1",
    "EMAIL_URL": f"smtp://127.0.0.1:{SMTP}",
    "EMAIL_TIMEOUT": str(EMAIL_TIMEOUT),
    "SITE_URL": SITE,
    "ALLOWED_HOSTS": "127.0.0.1",
    # nginx on this machine: the client is the X-Forwarded-For entry it appends.
    "TRUSTED_PROXIES": "127.0.0.1",
    # Every process publishes a room's pulse to nginx's nchan publisher.
    "LIVE_NCHAN_URL": f"http://127.0.0.1:{PUBLISH}/rooms/",
    "SECRET_KEY": "chaos-" + "k" * 50,
    "DEBUG": "false",
    # The follow-up machinery runs on production's own timings (the follow-up
    # sweep, the bot nudge, the re-drive deadlines, the workers' liveness
    # probe): the lateness measured here is the lateness a player would see.
    "MESA_WORKER_EXIT_GRACE_SECONDS": "5",
    # Every player of the run comes from 127.0.0.1: one address opening dozens of rooms.
    "MESA_RATE_LIMIT_SCALE": "100",
    "MAIL_RETRY_FIRST_SECONDS": "4",
    "MAIL_RETRY_MAX_SECONDS": "60",
    "MAIL_TRIES": "10",
    "CHAOS_SWEEP_SECONDS": "15",
    "LOG_LEVEL": "WARNING",
    # No collectstatic for a throwaway run: plain static file names.
    "STATICFILES_BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage",
}
os.environ.update(SETTINGS)

from config.vapid import new_key_pair  # noqa: E402 - the settings above first

# The site's Web Push keys, made for the run (scripts.chaos.pushserver checks them).
SETTINGS["VAPID_PRIVATE_KEY"], SETTINGS["VAPID_PUBLIC_KEY"] = new_key_pair()
SETTINGS["VAPID_SUBJECT"] = "mailto:chaos@chaos.test"
os.environ.update(SETTINGS)

import django  # noqa: E402 - the settings above first

django.setup()

from django.db import InterfaceError, OperationalError, connection  # noqa: E402

STARTED = time.monotonic()


def log(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:6.1f}s] {text}", flush=True)


def wait_until(condition, seconds: float, step: float = 0.5) -> bool:
    deadline = min(time.monotonic() + seconds, STARTED + RUN_DEADLINE)
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def db(read, seconds: float = 90):
    """Run an ORM call, again and again while the database is away (the postgres scenario)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return read()
        except (OperationalError, InterfaceError):
            connection.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
