"""gunicorn's settings for Mesa: `gunicorn -c config/gunicorn.conf.py`.

Errors and tracebacks go to stderr, where the service manager (systemd's
journal, docker logs) keeps them: gunicorn's own error log, each request's
access line, and whatever the app prints or logs (settings.LOGGING sends
django.request's 500s to stderr too; capture_output catches stray prints).
Any setting here can still be overridden on the command line or with
GUNICORN_CMD_ARGS.
"""

import os

wsgi_app = "config.wsgi"
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = 30
graceful_timeout = 30
errorlog = "-"
accesslog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
capture_output = True
