"""Test settings: the base settings with fast hashing and in-memory email.

DATABASE_URL still chooses the database, so the same suite runs on SQLite
(the default) and on PostgreSQL (CI).
"""

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405

# Tests never run collectstatic: serve static files straight from the finders
# (the browser tests need them) instead of warning about a missing STATIC_ROOT.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# The browser tests' live server answers from several threads at once. An
# in-memory SQLite test database (shared cache) refuses a write while another
# thread reads ("database table is locked") instead of waiting, so SQLite runs
# get a file database, one per test process, whose writers take the lock at
# BEGIN and wait for it. PostgreSQL runs are untouched.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    import os
    import tempfile

    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"mesa-test-{os.getpid()}.sqlite3")
    }
    DATABASES["default"].setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"  # noqa: F405

# Celery (ACCOUNTS): tasks that tests schedule go to an in-memory broker that
# ends with the test process, never to the folder a `make run` worker reads
# (BASE_DIR/.celery). A CELERY_BROKER_URL in the environment (CI's Redis)
# still wins, as Celery reads that variable itself.
if not env.str("CELERY_BROKER_URL", default=""):  # noqa: F405
    CELERY_BROKER_URL = "memory://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
