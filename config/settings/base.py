"""Mesa settings.

Every value comes from the environment through django-environ, with a default
that works on a fresh machine: SQLite, email to the console, DEBUG off unless
asked. Production differs only by environment variables (see README).
"""

from pathlib import Path

import environ
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str(
    "SECRET_KEY",
    default="insecure-dev-key-set-SECRET_KEY-in-production-0123456789abcdef",
)
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "games",
    "accounts",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.waiting_games",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "es"
LANGUAGES = [("es", "Español"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": env.str(
            "STATICFILES_BACKEND",
            default="config.storage.StaticFilesStorage",
        )
    },
}

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Mesa <mesa@localhost>")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

# Security: production turns these on through SITE_URL being https.
SECURE_HTTPS = SITE_URL.startswith("https://")
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=SECURE_HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HTTPS
SECURE_HSTS_PRELOAD = SECURE_HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE_HTTPS else None
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[SITE_URL])
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # correspondence games last for days

# Celery (ACCOUNTS). Production sets CELERY_BROKER_URL to Redis. The default is
# kombu's filesystem transport: no server to run, and still a real queue that a
# separate worker process reads (folders under CELERY_BROKER_DIR, created by
# config/celery.py when the app is configured).
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
_CELERY_BROKER_DIR = Path(env.str("CELERY_BROKER_DIR", default=str(BASE_DIR / ".celery")))
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(_CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(_CELERY_BROKER_DIR / "queue"),
        "control_folder": str(_CELERY_BROKER_DIR / "control"),
    }
    if CELERY_BROKER_URL.startswith("filesystem://")
    else {}
)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(_CELERY_BROKER_DIR / "beat-schedule")
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True  # tasks write to the database; nobody waits on results
# A task is acknowledged after it ran, and one worker takes one task at a time,
# so a worker that dies mid-task leaves it on the queue for another one.
# Tasks must therefore be idempotent (re-read and lock, never trust arguments).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 3,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 2,
}
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
# The sweeps (games/tasks.py). Run exactly one beat in production. A sweep
# message that waited longer than its period is dropped: the next one does
# the same work, so a stopped worker does not come back to a pile of them.
CELERY_BEAT_SCHEDULE = {
    "close-absent-games": {
        "task": "games.tasks.close_absent_games",
        "schedule": 10 * 60,
        "options": {"expires": 10 * 60},
    },
    "expire-idle-rooms": {
        "task": "games.tasks.expire_idle_rooms",
        "schedule": 60 * 60,
        "options": {"expires": 60 * 60},
    },
    # Correspondence email (CORRESPONDENCE, games/notifications.py): the reminder
    # 24 h before the absence deadline, "you may close by absence" for a waiting
    # player who kept waiting, and the daily digest (noon UTC: morning in the
    # Americas, lunchtime in Spain).
    "send-absence-reminders": {
        "task": "games.tasks.send_absence_reminders",
        "schedule": 10 * 60,
        "options": {"expires": 10 * 60},
    },
    "send-absence-claimable": {
        "task": "games.tasks.send_absence_claimable",
        "schedule": 10 * 60,
        "options": {"expires": 10 * 60},
    },
    "send-daily-digests": {
        "task": "games.tasks.send_daily_digests",
        "schedule": crontab(hour=12, minute=0),
        "options": {"expires": 60 * 60},
    },
}

# Accounts (ACCOUNTS). The login rate limit counts failures in the cache, so
# production points CACHE_URL at Redis to share the count between web workers.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "games:my_rooms"
LOGOUT_REDIRECT_URL = "games:home"

# The JSON API answers a CSRF failure in JSON like its other errors (games.views).
CSRF_FAILURE_VIEW = "games.views.csrf_failure"

# A chosen language outlives the browser session, like the seat it goes with.
LANGUAGE_COOKIE_AGE = SESSION_COOKIE_AGE
