"""Test settings: the base settings with fast hashing and in-memory email.

DATABASE_URL still chooses the database, so the same suite runs on SQLite
(the default) and on PostgreSQL (CI).
"""

import os

# The base settings refuse to start without a SECRET_KEY when DEBUG is off;
# the suite runs with DEBUG off, on a key that signs nothing outside it.
os.environ.setdefault("SECRET_KEY", "test-only-key-never-used-outside-the-test-suite-0123456789")

from .base import *  # noqa: F403

# The suite runs with DEBUG off on SQLite and the database cache on purpose.
MESA_ALLOW_EMBEDDED = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
PUSH_ALLOW_LOOPBACK = True  # tests/games/test_push.py runs a push service on 127.0.0.1
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405

# Tests never run collectstatic: serve static files straight from the finders
# (the browser tests need them) instead of warning about a missing STATIC_ROOT.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# The browser tests' live server answers from several threads at once. An
# in-memory SQLite test database (shared cache) refuses a write while another
# thread reads ("database table is locked") instead of waiting, so SQLite runs
# get a file database, one per test process, with the base settings' SQLite
# options (writers take the lock at BEGIN and wait for it). PostgreSQL runs
# are untouched.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    import tempfile

    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"mesa-test-{os.getpid()}.sqlite3")
    }

# Celery (ACCOUNTS): tasks that tests schedule go to an in-memory broker that
# ends with the test process, never to the folder a `make run` worker reads
# (BASE_DIR/.celery). A CELERY_BROKER_URL in the environment (CI's Redis)
# still wins, as Celery reads that variable itself.
if not env.str("CELERY_BROKER_URL", default=""):  # noqa: F405
    CELERY_BROKER_URL = "memory://"
    CELERY_BROKER_TRANSPORT = None  # the URL's own (base names the embedded one)
    CELERY_BROKER_TRANSPORT_OPTIONS = {}

# The suite plays thousands of actions from one address and one session: the
# rate limits are far away here, and the tests of the limits set their own.
MESA_RATE_LIMITS = {
    kind: {who: (count * 1000, seconds) for who, (count, seconds) in limits.items()}
    for kind, limits in MESA_RATE_LIMITS.items()  # noqa: F405
}

# Django closes the connection after every TestCase class, so a run connects to
# PostgreSQL several hundred times. The production default of 3 s once expired
# on a busy two-core CI machine and failed a whole class at setup; the suite
# waits longer. DATABASE_CONNECT_TIMEOUT in the environment still wins, and the
# outage tests run their servers on config.settings.base with its own default.
if DATABASES["default"]["ENGINE"] in ("django.db.backends.postgresql", "config.postgresql"):  # noqa: F405
    DATABASES["default"]["OPTIONS"]["connect_timeout"] = env.int(  # noqa: F405
        "DATABASE_CONNECT_TIMEOUT", default=20
    )
