"""The ASGI application: Django, with the boards' held ?wait= requests as coroutines.

Served by uvicorn for the long-poll location only (deploy/nginx, docs/DEPLOY.md):
`uvicorn config.asgi:application`. The rest of the site runs on gunicorn (WSGI),
whose threads serve ordinary views faster than Django's one sync thread per
ASGI process would.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
django_application = get_asgi_application()

from games.web.live import LiveWaits  # noqa: E402  (after Django is set up)

application = LiveWaits(django_application)
