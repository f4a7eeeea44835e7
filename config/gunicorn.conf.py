"""gunicorn's settings for Mesa: `gunicorn -c config/gunicorn.conf.py`.

Errors and tracebacks go to stderr, where the service manager (systemd's
journal, docker logs) keeps them: gunicorn's own error log, each request's
access line, and whatever the app prints or logs (settings.LOGGING sends
django.request's 500s to stderr too; capture_output catches stray prints).
Workers are gthread with spare threads: the board's long poll (a state request
with ?wait=, games/web/longpoll.py) holds a thread up to 25 seconds, so a sync
worker would be tied up by one open board, and the timeout must exceed 25 s.
LONG_POLL_WAITERS (settings) stays below `threads` so page views always find a
free thread. Any setting here can still be overridden on the command line or with
GUNICORN_CMD_ARGS.
"""

import os

wsgi_app = "config.wsgi"
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "20"))
timeout = 60
errorlog = "-"
accesslog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
capture_output = True
