"""Mesa settings.

Every value comes from the environment through django-environ, with a default
that works on a fresh machine: SQLite, email to the console, DEBUG off unless
asked. Production differs only by environment variables (see README).
"""

from pathlib import Path

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
# Only a development run (DEBUG on: `make run`) may use the key in this file;
# a production site without its own key would sign sessions and seat links
# with a key anyone can read here, so it refuses to start instead.
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it in the environment to a long random string "
            "(python -c 'import secrets; print(secrets.token_urlsafe(64))'), "
            "or set DEBUG=true for a development run."
        )
    SECRET_KEY = "insecure-dev-key-set-SECRET_KEY-in-production-0123456789abcdef"
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
# State requests a web process holds open at once (long polling, games.longpoll):
# keep it below the threads a process has (gunicorn --threads).
LONG_POLL_WAITERS = env.int("LONG_POLL_WAITERS", default=16)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Mesa <mesa@localhost>")

# Everything to stderr, where gunicorn (config/gunicorn.conf.py), Celery and
# the service manager collect it. django.request gets its own entry so a 500's
# traceback reaches the operator even if the root level is raised.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "plain",
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
    },
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
    # Analysis after the game (docs/ANALYSIS.md): send again what a lost message left owed.
    "requeue-analyses": {
        "task": "games.tasks.requeue_analyses",
        "schedule": 10 * 60,
        "options": {"expires": 10 * 60},
    },
}
# The analysis of a game takes seconds of CPU: its own queue, read by its own
# worker (`celery -A config worker -Q analysis`), so it never delays a bot or a mail.
CELERY_TASK_ROUTES = {
    "games.tasks.analyse_game": {"queue": "analysis"},
}

# The rate limits (log-in, rooms, joins, actions) count in the cache, so every
# web worker must share it: Redis with CACHE_URL, else the database's cache
# table (`manage.py createcachetable` after migrate; make run does it). Never
# a per-process memory cache: each gunicorn worker would count alone.
CACHES = {"default": env.cache("CACHE_URL", default="dbcache://mesa_cache")}
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "games:my_rooms"
LOGOUT_REDIRECT_URL = "games:home"

# Rate limits on what writes (games.throttle): (requests, seconds) per client
# address and per session, counted in the shared cache above. A player taking
# a turn every second stays well inside them; a script opening rooms does not.
# The address limits are higher: several people may share one router.
MESA_RATE_LIMITS = {
    "create": {"address": (30, 10 * 60), "session": (10, 10 * 60)},
    "join": {"address": (60, 10 * 60), "session": (20, 10 * 60)},
    "action": {"address": (600, 60), "session": (180, 60)},
}
# The seats one browser remembers in its session; past it the oldest drop out.
MESA_SESSION_SEATS_MAX = 100

# The JSON API answers a CSRF failure in JSON like its other errors (games.views).
CSRF_FAILURE_VIEW = "games.views.csrf_failure"

# A chosen language outlives the browser session, like the seat it goes with.
LANGUAGE_COOKIE_AGE = SESSION_COOKIE_AGE
