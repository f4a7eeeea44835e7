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

Behind nginx (deploy/nginx/mesa.conf.template) bind to a unix socket or loopback
(GUNICORN_BIND=unix:/run/mesa/gunicorn.sock): slow clients are nginx's to
hold, never a gunicorn thread's. The access log names the client as the app
does (TRUSTED_PROXIES) and masks private-link tokens (config/gunicorn_log.py).
Before the master forks, it runs the system checks with the database
(config/checks.py): a missing cache table or an embedded default in
production stops the start instead of answering 500s.
"""

import os

wsgi_app = "config.wsgi"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "20"))
timeout = 60
# Connections waiting for a worker to accept them. nginx's connect() to a unix
# socket whose queue is full fails at once (EAGAIN) and answers 502, never
# waiting: gunicorn's own 2048 overflowed when 10,000 boards opened at once
# (docs/LOAD.md). The kernel caps it at net.core.somaxconn (4096 by default).
backlog = 4096
# Idle keep-alive connections are kept longer than nginx keeps its own to us
# (keepalive_timeout in deploy/nginx's upstreams): a connection must be closed
# by nginx, never by gunicorn while nginx is sending a request on it (a POST
# that meets a closed connection is a 502, as nginx never sends one twice).
# gunicorn's own default (2 s) fits clients straight on the internet only.
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "75"))
errorlog = "-"
accesslog = "-"
logger_class = "config.gunicorn_log.AccessLogger"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
capture_output = True
# gunicorn >= 25.1 opens a control socket for gunicornc in $HOME/.gunicorn by
# default: under the units' ProtectSystem=strict the site user's home is
# read-only (an error at every start), and every gunicorn of one user would
# share that one path. The kit reloads and stops through signals (systemctl).
control_socket_disable = True


def on_starting(server: object) -> None:
    """Run the system checks, database ones included, once in the master."""
    import django
    from django.core.management import call_command
    from django.db import connections

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    django.setup()
    try:
        call_command("check", "--database", "default")
    finally:
        connections.close_all()  # the workers fork from here: no shared connection
        for connection in connections.all(initialized_only=True):
            close_pool = getattr(connection, "close_pool", None)
            if close_pool is not None:
                close_pool()  # nor a pool (DB_POOL_MAX): each worker opens its own
