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
