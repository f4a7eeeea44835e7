"""The settings `make load` (bench/load.py) starts its servers with: the site's own,
with the bare-Django reference view (bench/web/urls.py) mounted beside it."""

from config.settings.base import *  # noqa: F403

ROOT_URLCONF = "bench.web.urls"
# No collectstatic before a run: the pages name the static files unhashed.
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
# What Django spent on each answer, which the load generator reports beside what it saw.
MIDDLEWARE = ["bench.web.timing.ServerTimingMiddleware", *MIDDLEWARE]  # noqa: F405
