"""The settings `make load` (bench/load/) starts its servers with: the site's own,
and a Server-Timing header. The bare-Django reference is a project of its own
(bench/front.py's make_reference), not a view inside the site."""

from config.settings.base import *  # noqa: F403

# No collectstatic before a run: the pages name the static files unhashed.
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
# What Django spent on each answer, which the load generator reports beside what it saw.
MIDDLEWARE = ["bench.web.timing.ServerTimingMiddleware", *MIDDLEWARE]  # noqa: F405
