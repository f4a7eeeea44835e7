"""Mesa settings.

Every value comes from the environment through django-environ, with a default
that works on a fresh machine: SQLite, email to the console, DEBUG off unless
asked. Production differs only by environment variables (docs/CONFIGURATION.md).
"""

import socket
from datetime import timedelta
from pathlib import Path

import django_stubs_ext
import environ
from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from accounts.client import parse_trusted as parse_trusted_proxies
from config.vapid import local_key_pair

# Django's generic classes take the type parameters django-stubs gives them
# (admin.ModelAdmin[Room]) at run time too.
django_stubs_ext.monkeypatch()

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
# The proxies in front (nginx: deploy/nginx.conf), as addresses or networks,
# comma-separated. Only their X-Forwarded-For entries are believed: the client
# is the rightmost entry that is not one of them (accounts.client). Empty,
# the default, believes no forwarding header: the peer is the client.
TRUSTED_PROXIES = env.str("TRUSTED_PROXIES", default="")
try:
    parse_trusted_proxies(TRUSTED_PROXIES)
except ValueError as error:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES is not a list of addresses: {error}") from None
# Who may read why /readyz fails (config/health.py): clients (as accounts.client
# decides them) in these networks get each failing check's error text, which
# names hosts and ports; everybody else gets the statuses alone, and the log
# has the rest. By default a probe on the machine itself.
READYZ_DETAIL_NETWORKS = env.str("READYZ_DETAIL_NETWORKS", default="127.0.0.1,::1")
try:
    parse_trusted_proxies(READYZ_DETAIL_NETWORKS)
except ValueError as error:
    raise ImproperlyConfigured(
        f"READYZ_DETAIL_NETWORKS is not a list of addresses: {error}"
    ) from None

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
    "config.apps.MesaConfig",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "games.web.http_errors.DatabaseUnavailableMiddleware",  # a database error: 503, see there
    # The state GET goes on from here through what it needs only: see there.
    "games.web.lean.LeanStateGetMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "games.web.session_middleware.SessionMiddleware",  # keeps a newer session cookie: see there
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns the attempt that locked an account into its answer (accounts.lockout).
    "axes.middleware.AxesMiddleware",
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
                "games.web.context_processors.waiting_games",
                "games.web.context_processors.push_site",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# SQLite (make run, a small club): one writer at a time, and every writer waits
# its turn instead of failing. A transaction that reads and then writes must
# take the write lock at BEGIN (IMMEDIATE): one that upgrades later is refused
# at once ("database is locked") when another wrote meanwhile, whatever the
# timeout. select_for_update is a no-op here; the IMMEDIATE transaction is the
# lock. WAL lets readers go on while one writes; synchronous=FULL syncs each
# commit, so an acknowledged move survives a power cut, not only a crash.
# The timeout bounds the wait for the lock, far above a transaction's length.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL",
        }
    )
# Connection pooling (docs/DEPLOY.md "PostgreSQL connections"):
# DB_POOL_MAX > 0 gives each process Django's psycopg pool of at most that many
# connections (CONN_MAX_AGE must then be 0: the pool keeps them). The deploy
# kit sets it for the web processes only; the Celery workers and beat, one
# thread each, hold one connection at most without it. The budget:
# web processes x DB_POOL_MAX + worker processes + beat <= 20.
# Behind PgBouncer in transaction mode instead, leave the pool off and set
# DB_DISABLE_SERVER_SIDE_CURSORS=1 (Django already sends no prepared statements).
DB_POOL_MAX = env.int("DB_POOL_MAX", default=0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_POOL_MAX > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(env.int("DB_POOL_MIN", default=1), DB_POOL_MAX),
        "max_size": DB_POOL_MAX,
        # A request waits this long for a free connection, then fails as the
        # database being away does (OperationalError).
        "timeout": float(env.str("DB_POOL_TIMEOUT", default="10")),
    }
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env.bool(
    "DB_DISABLE_SERVER_SIDE_CURSORS", default=False
)
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
# Set by the line above; named here for the check below (and for mypy).
EMAIL_BACKEND: str = EMAIL_CONFIG["EMAIL_BACKEND"]
# State requests a web process holds open at once (long polling, games.web.longpoll):
# keep it below the threads a process has (gunicorn --threads).
LONG_POLL_WAITERS = env.int("LONG_POLL_WAITERS", default=16)
# Over SMTP, games.mail.smtp tells a refused message from one whose answer was lost
# (which is never sent twice). A hung mail server gives up after EMAIL_TIMEOUT
# seconds per read or write, well inside the mail tasks' time limit.
if EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend":
    EMAIL_BACKEND = "games.mail.smtp.EmailBackend"
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
# An email's "sending" claim (games.mail.claims) is a lease: a send talks to the
# server for at most MAIL_SEND_SECONDS from its claim (games.mail.smtp gives up
# before the message goes out once they are spent, and waits for the answer no
# longer than what is left), so a claim older than that plus EMAIL_TIMEOUT (room
# to write "sent") is a dead worker's, and another takes it over: a mail worker
# killed mid-send delays its email about a minute, not the visibility timeout.
MAIL_SEND_SECONDS = env.int("MAIL_SEND_SECONDS", default=2 * EMAIL_TIMEOUT)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Mesa <mesa@localhost>")

# Web Push (RFC 8030/8291) with VAPID (RFC 8292): "Es tu turno" also goes to the
# browsers a player allowed. Without a key pair nothing is pushed and the site
# offers no subscription. Make one with
# `python -c "from py_vapid import Vapid01; v = Vapid01(); v.generate_keys(); ..."`
# (docs/CONFIGURATION.md, VAPID_*).
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", default="")  # PEM or base64url raw
VAPID_PUBLIC_KEY = env.str("VAPID_PUBLIC_KEY", default="")  # base64url, uncompressed point
# A development run (DEBUG on) without a pair makes one on its first start and
# keeps it with the local data (config/vapid.py), never in the repository.
VAPID_KEY_FILE = Path(env.str("VAPID_KEY_FILE", default=str(BASE_DIR / ".mesa" / "vapid.json")))
if DEBUG and not (VAPID_PRIVATE_KEY or VAPID_PUBLIC_KEY):
    VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY = local_key_pair(VAPID_KEY_FILE)
VAPID_SUBJECT = env.str("VAPID_SUBJECT", default="mailto:mesa@localhost")
# Push services are https; only tests point a subscription at a loopback http peer.
PUSH_ALLOW_LOOPBACK = False

# Everything to stderr, where gunicorn (config/gunicorn.conf.py), Celery and
# the service manager collect it. django.request gets its own entry so a 500's
# traceback reaches the operator even if the root level is raised.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # "Not Found: /mesa/…/asiento/<token>/" would hand a seat to whoever reads
    # the log: private-link tokens are masked in every line (config.logmask).
    "filters": {"mask_tokens": {"()": "config.logmask.MaskTokens"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "plain",
            "filters": ["mask_tokens"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
    },
}

# Content-Security-Policy (django-csp): every script, style and request comes
# from the site itself; the board's SVG is drawn by our own modules and the
# page data travels in json_script blocks, so nothing inline needs allowing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Permissions-Policy (django-permissions-policy): only what the room page uses,
# copying its link and the phone's share sheet; the rest is off for everyone.
PERMISSIONS_POLICY = {
    "accelerometer": [],
    "camera": [],
    "clipboard-write": ["self"],
    "geolocation": [],
    "gyroscope": [],
    "magnetometer": [],
    "microphone": [],
    "payment": [],
    "usb": [],
    "web-share": ["self"],
}

# Security: production turns these on through SITE_URL being https.
SECURE_HTTPS = SITE_URL.startswith("https://")
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=SECURE_HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HTTPS
SECURE_HSTS_PRELOAD = SECURE_HTTPS
# Probes on the host itself speak plain HTTP to the app (config/health.py).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE_HTTPS else None
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[SITE_URL])
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # correspondence games last for days

# Celery (ACCOUNTS). Production sets CELERY_BROKER_URL to Redis. The default is
# kombu's filesystem transport: no server to run, and still a real queue that a
# separate worker process reads (folders under CELERY_BROKER_DIR, created by
# config/celery.py when the app is configured).
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
# kombu's filesystem transport lets a worker read a message while it is being
# written, and die of it: config.broker writes whole files and claims by rename.
CELERY_BROKER_TRANSPORT: str | None = (
    "config.broker:Transport" if CELERY_BROKER_URL.startswith("filesystem://") else None
)
_CELERY_BROKER_DIR = Path(env.str("CELERY_BROKER_DIR", default=str(BASE_DIR / ".celery")))
# Redis hands an unacknowledged message to another worker after the
# visibility timeout, so it bounds how late work comes back after a worker is
# killed (Celery's default is an hour). It must stay above the longest time a
# message legitimately sits unacknowledged in a worker: the longest countdown
# the broker holds (the turn email's 60 s pause, database retries of at most
# 30 s: mail retries wait in the database, games.services.outbox) and the longest hard
# time limit (the digest's and the analysis's 230 s). 300 s is five times the
# first and above the second. It cannot be set per queue: kombu's Redis
# transport keeps every queue's unacknowledged messages in one set, and any
# consumer gives back those older than its own timeout (a bots worker with
# 30 s would hand out a turn email in its pause, or an analysis mid-run). So
# it is the slow backstop; what bounds lateness after a broker fault is the
# outbox's re-drive, per queue (FOLLOW_UP_REDRIVE_SECONDS), and a stuck bot
# is nudged sooner still, after BOT_STUCK_AFTER.
CELERY_VISIBILITY_TIMEOUT = 300
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = (
    {
        "data_folder_in": str(_CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(_CELERY_BROKER_DIR / "queue"),
        "control_folder": str(_CELERY_BROKER_DIR / "control"),
        "claimed_folder": str(_CELERY_BROKER_DIR / "claimed"),
        # How often an idle worker looks in the folder (kombu's default: every
        # second): a bot's turn starts sooner, and a worker notices a stop sooner.
        "polling_interval": 0.1,
    }
    if CELERY_BROKER_URL.startswith("filesystem://")
    else {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
        # A hung or unreachable Redis fails a publish in seconds, not minutes;
        # the move is saved anyway and its follow-up waits in the outbox.
        "socket_connect_timeout": 3,
        "socket_timeout": 5,
        # A connection idle for 10 s is checked (PING) before it is used, and
        # kombu drops a consumer's BRPOP or pub/sub connection whose answer is
        # overdue by that much: a Redis that restarted or vanished without
        # closing the socket is noticed in seconds, not at the next failure.
        "health_check_interval": 10,
        # TCP keepalive: a peer gone without a word (a network cut, a host
        # lost) ends the connection after about a minute instead of two hours.
        "socket_keepalive": True,
        "socket_keepalive_options": {
            option: value
            for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3))
            if (option := getattr(socket, name, None)) is not None
        },
        # A command that timed out is not sent again by redis-py: a push whose
        # answer was lost would queue the task twice. The outbox re-drives.
        "retry_on_timeout": False,
    }
)
CELERY_BROKER_CONNECTION_TIMEOUT = 3
# A worker that lost the broker reconnects by itself, waiting 2, 4... 20 s
# between tries; after 10 failed tries (about two minutes) it exits, and its
# supervisor starts a fresh one (systemd Restart=always), which keeps trying
# at start-up.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = 10
# When the connection drops, a task taken from it (acknowledged late) can no
# longer be acknowledged on the new one: it is stopped instead of left
# running, and comes back (the broker's visibility timeout, or the outbox's
# re-drive when the broker lost it). Every task is idempotent at its effect.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Each worker also reads a queue of its own (<name>.dq2), where it sends
# itself the liveness probe (config/liveness.py): a worker that stops taking
# messages stops itself, for its supervisor to restart. Not on the embedded
# filesystem broker of `make run`.
CELERY_WORKER_DIRECT = not CELERY_BROKER_URL.startswith(("filesystem://", "memory://"))
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
# No remote control (celery inspect/control): on Redis it listens on a
# pub/sub channel, and losing Redis while subscribed killed the worker for
# good ("Unrecoverable error", seen in `make chaos`); without it a worker
# reconnects by itself. Workers also run --without-gossip --without-mingle,
# the other pub/sub users. Run them under a supervisor that restarts them all
# the same (systemd Restart=always).
CELERY_WORKER_ENABLE_REMOTE_CONTROL = env.bool("CELERY_REMOTE_CONTROL", default=False)
# One quick retry (a pooled connection that went stale when Redis restarted);
# beyond that the outbox's sweep publishes, and the request stays fast.
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}
# No task may run away: the soft limit raises inside it, the hard one kills
# it (the prefork pool). Both stay under CELERY_VISIBILITY_TIMEOUT.
CELERY_TASK_SOFT_TIME_LIMIT = 60
CELERY_TASK_TIME_LIMIT = 90
# A bot's move (games.tasks.bot_turn) is an anytime search: its deeper
# stages stop BOT_MOVE_BUDGET_SECONDS after the bot's turn began and it plays
# the best found so far (games/bots/deep.py). A move overruns by at most its
# first pass and one evaluation, ~0.6 s + ~1 s idle (docs/BOTS.md), so the
# budget plus that stays under BOT_STUCK_AFTER: a nudge comes only for a turn
# that waited in the queue, and its copy finds no budget left. The task's own
# limits sit far above the budget, for a task gone wrong, not a slow move.
BOT_MOVE_BUDGET_SECONDS = env.float("BOT_MOVE_BUDGET_SECONDS", default=5.0)
BOT_TURN_SOFT_TIME_LIMIT = int(BOT_MOVE_BUDGET_SECONDS) + 55
BOT_TURN_TIME_LIMIT = BOT_TURN_SOFT_TIME_LIMIT + 30
# Queues: bots, mail and sweeps each have their own, so a hung mail server
# never holds up a bot's move. Workers name the queues they read (Makefile,
# docs/DEPLOY.md, deploy/). A new queue is one line here and one -Q name.
CELERY_TASK_ROUTES = {
    "games.tasks.bot_turn": {"queue": "bots"},
    "games.tasks.turn_email": {"queue": "mail"},
    "games.tasks.opponent_joined_email": {"queue": "mail"},
    "games.tasks.match_ended_email": {"queue": "mail"},
    "games.tasks.invitation_email": {"queue": "mail"},
    "games.tasks.answer_played_email": {"queue": "mail"},
    "games.tasks.turn_push": {"queue": "mail"},
    "games.tasks.tournament_match_email": {"queue": "mail"},
    "games.tasks.tournament_cancelled_email": {"queue": "mail"},
    "games.tasks.send_*": {"queue": "mail"},
    "accounts.tasks.clear_expired_sessions": {"queue": "sweeps"},
    "accounts.tasks.*": {"queue": "mail"},
    # The analysis of a game takes seconds of CPU: its own queue and worker
    # (docs/ANALYSIS.md), so it never delays a bot or a mail.
    "games.tasks.analyse_game": {"queue": "analysis"},
}
CELERY_TASK_DEFAULT_QUEUE = "sweeps"  # everything not routed above: the sweeps
CELERY_QUEUE_NAMES = "bots,mail,sweeps,analysis"  # what `make run` and the tests' worker read
# The outbox (games.services.outbox): how often the follow-up sweep publishes what is
# due, after how long a bot on turn gets its task again, and how mail that
# could not be delivered is tried again: MAIL_TRIES tries, the waits doubling
# from MAIL_RETRY_FIRST_SECONDS up to MAIL_RETRY_MAX_SECONDS (2 min, 4 min...
# 6 h: about 14 hours in all), then a dead letter in the admin. `make chaos`
# shortens them to run an outage of "20 minutes" in seconds.
# Every follow-up is owed within 2 minutes of its due time after a fault, a
# bot's turn within 30 s (docs/OPERATIONS.md): the sweep runs every 10 s (an
# indexed query of the rows due), and a bot that has owed an action for 10 s
# gets its task again (looked for every 5 s), so a bot's turn lost with a
# killed worker is played within 10 + 5 s and the restart of its worker.
FOLLOW_UP_SWEEP_SECONDS = env.int("FOLLOW_UP_SWEEP_SECONDS", default=10)
BOT_STUCK_AFTER = timedelta(seconds=env.int("BOT_STUCK_AFTER_SECONDS", default=10))
BOT_NUDGE_SECONDS = env.int("BOT_NUDGE_SECONDS", default=5)
# A published follow-up whose task has not reported that it ran by this many
# seconds after the publish is published again by the sweep (the broker lost
# it: Redis killed without persistence, or stopped with the message taken by
# a worker that lost it), per queue, from what its task takes: a bot's turn
# runs in a second or two (docs/BOTS.md), so 10 s; an email waits out its
# 60 s pause (the turn email) and may take EMAIL_TIMEOUT to send, so 90 s;
# an analysis takes seconds of CPU (bench/analysis.py) behind the others of
# its one-process queue, 90 s. A copy that comes too soon does nothing twice
# (a bot's turn checks the version, an email its claim, which a copy finding
# it held looks at again later, an analysis its RUNNING mark). Each re-drive
# doubles the wait (a bot's no further than FOLLOW_UP_REDRIVE_LONGEST: the
# worker may be killed again and again); after FOLLOW_UP_REDRIVES_MAX the
# row is a dead letter in the admin. As "bots=10,mail=90,..." in the
# environment.
FOLLOW_UP_REDRIVE_SECONDS = {
    "bots": 10,
    "mail": 90,
    "analysis": 90,
    "default": 60,
    **{
        queue.strip(): int(seconds)
        for queue, _, seconds in (
            item.partition("=") for item in env.list("FOLLOW_UP_REDRIVE_SECONDS", default=[])
        )
    },
}
FOLLOW_UP_REDRIVE_LONGEST = {"bots": 20}
FOLLOW_UP_REDRIVES_MAX = env.int("FOLLOW_UP_REDRIVES_MAX", default=8)
MAIL_RETRY_FIRST_SECONDS = env.int("MAIL_RETRY_FIRST_SECONDS", default=120)
MAIL_RETRY_MAX_SECONDS = env.int("MAIL_RETRY_MAX_SECONDS", default=6 * 60 * 60)
MAIL_TRIES = env.int("MAIL_TRIES", default=10)
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
# The sweeps (games/tasks.py). Run exactly one beat in production. A sweep
# message that waited longer than its period is dropped: the next one does
# the same work, so a stopped worker does not come back to a pile of them.
CELERY_BEAT_SCHEDULE = {
    "publish-follow-ups": {
        "task": "games.tasks.publish_follow_ups",
        "schedule": FOLLOW_UP_SWEEP_SECONDS,
        "options": {"expires": FOLLOW_UP_SWEEP_SECONDS},
    },
    "nudge-stuck-bots": {
        "task": "games.tasks.nudge_stuck_bots",
        "schedule": BOT_NUDGE_SECONDS,
        "options": {"expires": BOT_NUDGE_SECONDS},
    },
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
    # Tournaments (docs/TOURNAMENTS.md): start or cancel those whose start came,
    # then open the next of each of the site's standing ones.
    "start-due-tournaments": {
        "task": "games.tasks.start_due_tournaments",
        "schedule": 10 * 60,
        "options": {"expires": 10 * 60},
    },
    "keep-site-tournaments-open": {
        "task": "games.tasks.keep_site_tournaments_open",
        "schedule": 10 * 60,
        "options": {"expires": 10 * 60},
    },
    "expire-challenges": {
        "task": "games.tasks.expire_challenges",
        "schedule": 60 * 60,
        "options": {"expires": 60 * 60},
    },
    # Correspondence email (CORRESPONDENCE, games/mail/messages.py): the reminder
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
    # Expired sessions out of the database, once a day at a quiet hour.
    "clear-expired-sessions": {
        "task": "accounts.tasks.clear_expired_sessions",
        "schedule": crontab(hour=4, minute=30),
        "options": {"expires": 60 * 60},
    },
    # Analysis after the game (docs/ANALYSIS.md): its task is owed through the
    # outbox like any follow-up; this only sends again a run stuck RUNNING
    # (games.services.analysis.stuck_after: a minute or so), within 2 minutes.
    "requeue-stuck-analyses": {
        "task": "games.tasks.requeue_stuck_analyses",
        "schedule": 30,
        "options": {"expires": 30},
    },
    # After the evaluator changed, the archive's games analysed under the old
    # settings are analysed again, a few at a time, the latest ended first.
    "catch-up-analyses": {
        "task": "games.tasks.catch_up_analyses",
        "schedule": 5 * 60,
        "options": {"expires": 5 * 60},
    },
}

# The rate limits (log-in, rooms, joins, actions) count in the cache, so every
# web worker must share it: Redis with CACHE_URL, else the database's cache
# table (`manage.py createcachetable` after migrate; make run does it). Never
# a per-process memory cache: each gunicorn worker would count alone.
CACHES = {"default": env.cache("CACHE_URL", default="dbcache://mesa_cache")}
# When Redis or PostgreSQL is away (docs/OPERATIONS.md). Redis fails
# open (config/cache.py): an unreachable Redis is a cache miss and the limits
# count nothing, never an error after a saved move; short timeouts and no
# retries, so a hung Redis holds no request, and after a failure a process
# leaves it alone for FAIL_OPEN_RETRY_SECONDS and logs one line. The publish
# after a commit waits BROKER_PUBLISH_TIMEOUT at most (games.services.outbox).
# A database error is a 503 with Retry-After (games.web.unavailable); a
# connection that broke is dropped at the request's end and the next one
# connects again, each attempt waiting DATABASE_CONNECT_TIMEOUT at most.
FAIL_OPEN_RETRY_SECONDS = env.float("FAIL_OPEN_RETRY_SECONDS", default=5.0)
BROKER_PUBLISH_TIMEOUT = env.float("BROKER_PUBLISH_TIMEOUT", default=0.5)
UNAVAILABLE_RETRY_AFTER = env.int("UNAVAILABLE_RETRY_AFTER", default=5)
from redis.backoff import NoBackoff  # noqa: E402
from redis.retry import Retry  # noqa: E402

if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "config.cache.FailOpenRedisCache"
    CACHES["default"]["OPTIONS"] = {
        "socket_connect_timeout": env.float("CACHE_CONNECT_TIMEOUT", default=0.25),
        "socket_timeout": env.float("CACHE_SOCKET_TIMEOUT", default=0.5),
        "retry": Retry(NoBackoff(), 0),
        "retry_seconds": FAIL_OPEN_RETRY_SECONDS,
        **CACHES["default"].get("OPTIONS", {}),
    }
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Sessions in the database: Django's store, its read compiled once
# (games.web.sessions). `cached_db` also keeps them in the cache, which fails
# open to the database. Never the cache alone: a Redis outage would log
# everyone out and lose the seats their browsers remember.
SESSION_ENGINE = env.str("SESSION_ENGINE", default="games.web.sessions")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env.int("DATABASE_CONNECT_TIMEOUT", default=3)
    )
    if DATABASES["default"]["OPTIONS"].get("pool"):
        # The same backend, whose pool checks a lent connection without a round
        # trip unless the server spoke since (config/postgresql/base.py).
        DATABASES["default"]["ENGINE"] = "config.postgresql"
# The room state's cache (games/web/state_cache.py): its keys come from
# the rows the state reads, so a per-process memory cache is correct too and
# only hits less; where CACHE_URL is Redis it is shared by every process and node.
_state_cache_url = env.str("CACHE_URL", default="")
if not _state_cache_url.startswith(("redis://", "rediss://")):
    _state_cache_url = "locmemcache://mesa-room-state"
CACHES["state"] = env.cache("STATE_CACHE_URL", default=_state_cache_url)
CACHES["state"]["KEY_PREFIX"] = "state"
if CACHES["state"]["BACKEND"].endswith("LocMemCache"):
    CACHES["state"].setdefault("OPTIONS", {})["MAX_ENTRIES"] = 5000
elif CACHES["state"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # Hardened as the default cache is (config/cache.py): a miss when Redis is away.
    CACHES["state"]["BACKEND"] = "config.cache.FailOpenRedisCache"
    CACHES["state"]["OPTIONS"] = {
        "socket_connect_timeout": env.float("CACHE_CONNECT_TIMEOUT", default=0.25),
        "socket_timeout": env.float("CACHE_SOCKET_TIMEOUT", default=0.5),
        "retry": Retry(NoBackoff(), 0),
        "retry_seconds": FAIL_OPEN_RETRY_SECONDS,
        **CACHES["state"].get("OPTIONS", {}),
    }
MESA_STATE_CACHE = env.bool("MESA_STATE_CACHE", default=True)
MESA_STATE_CACHE_SECONDS = env.int("MESA_STATE_CACHE_SECONDS", default=600)
# Answers each process keeps in front of a shared (Redis) state cache.
MESA_STATE_LOCAL_ENTRIES = env.int("MESA_STATE_LOCAL_ENTRIES", default=1000)


# Live updates (games.services.live publishes, games.web.live waits): Redis
# pub/sub, by default on the cache's Redis, else the broker's; none in make run
# (the boards then long-poll the database). Pub/sub ignores database numbers,
# so the channel carries the URL's one: two sites on one Redis never mix.
def _live_redis_default() -> str:
    for url in (env.str("CACHE_URL", default=""), CELERY_BROKER_URL):
        if url.startswith(("redis://", "rediss://", "unix://")):
            return url
    return ""


LIVE_REDIS_URL = env.str("LIVE_REDIS_URL", default=_live_redis_default())
LIVE_REDIS_TIMEOUT = env.float("LIVE_REDIS_TIMEOUT", default=0.25)
_live_db = LIVE_REDIS_URL.split("?")[0].rstrip("/").rpartition("/")[2]
LIVE_CHANNEL = env.str("LIVE_CHANNEL", default=f"mesa:live:{_live_db if _live_db.isdigit() else 0}")
# Behind the production front the boards wait in nginx's nchan (deploy/nginx):
# every node's publisher, comma-separated, to which a room's slug is appended
# ("http://127.0.0.1:8090/rooms/"). Empty (make run, no nginx): the boards long-poll.
LIVE_NCHAN_URL = env.list("LIVE_NCHAN_URL", default=[])
# With DEBUG off, SQLite, the filesystem broker and the database cache are
# system check errors (config/checks.py) unless this says the operator means it.
MESA_ALLOW_EMBEDDED = env.bool("MESA_ALLOW_EMBEDDED", default=False)
# Log-in lockouts on every way in (django-axes, accounts/lockout.py): its backend
# first refuses a locked username before any password is checked. Failures are
# rows (axes' admin lists them; `manage.py axes_reset` clears them) counted per
# username, whatever its case, with accounts.ratelimit's numbers; the client
# address is accounts.client's.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_USERNAME_CALLABLE = "accounts.lockout.username"
AXES_FAILURE_LIMIT = "accounts.lockout.failure_limit"
AXES_COOLOFF_TIME = "accounts.lockout.cool_off"
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "accounts.client.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.locked_out"
# No row per successful log-in: the failures are what the lockout needs.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no banner on every command; lockouts still log warnings
# axes.W006 asks for a per-address lockout in axes too: ours is
# accounts.ratelimit's, with its own, higher limit (a shared router).
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "games:my_rooms"
LOGOUT_REDIRECT_URL = "games:home"

# Rate limits on what writes (games.web.throttle): (requests, seconds) per client
# address and per session, counted in the shared cache above. A player taking
# a turn every second stays well inside them; a script opening rooms does not.
# The address limits are higher: several people may share one router.
# MESA_RATE_LIMIT_SCALE multiplies every count: a club whose players all come
# from one address may raise it, and `make chaos` does, its players being one.
MESA_RATE_LIMIT_SCALE = env.int("MESA_RATE_LIMIT_SCALE", default=1)
MESA_RATE_LIMITS = {
    kind: {who: (n * MESA_RATE_LIMIT_SCALE, seconds) for who, (n, seconds) in limits.items()}
    for kind, limits in {
        "create": {"address": (30, 10 * 60), "session": (10, 10 * 60)},
        "join": {"address": (60, 10 * 60), "session": (20, 10 * 60)},
        "action": {"address": (600, 60), "session": (180, 60)},
        # Words to the opponent on their own (a word with a turn counts as the action).
        "message": {"address": (120, 10 * 60), "session": (30, 10 * 60)},
    }.items()
}
# The seats one browser remembers in its session; past it the oldest drop out.
MESA_SESSION_SEATS_MAX = 100
# The state GET's short way through the middleware (games.web.lean); False: the whole stack.
MESA_LEAN_STATE_GET = env.bool("MESA_LEAN_STATE_GET", default=True)

# The JSON API answers a CSRF failure in JSON like its other errors (games.web.views).
CSRF_FAILURE_VIEW = "games.web.views.csrf_failure"

# A chosen language outlives the browser session, like the seat it goes with.
LANGUAGE_COOKIE_AGE = SESSION_COOKIE_AGE

# Optional error tracking: with SENTRY_DSN, sentry-sdk reports the web's and
# the workers' errors (Django and Celery integrations), tokens masked.
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    from config import sentry

    sentry.init(
        SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="production"),
        traces_sample_rate=float(env.str("SENTRY_TRACES_SAMPLE_RATE", default="0")),
    )
