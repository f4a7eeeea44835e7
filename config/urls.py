from django.contrib import admin
from django.urls import include, path

from config import health

urlpatterns = [
    # Probes (config/health.py): outside every app, no session, no language.
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("cuenta/", include("accounts.urls")),
    path("", include("games.web.urls")),
]

# Errors raised outside a view still answer JSON under /api/ (games.web.http_errors).
handler400 = "games.web.http_errors.bad_request"
handler403 = "games.web.http_errors.permission_denied"
handler404 = "games.web.http_errors.page_not_found"
handler500 = "games.web.http_errors.server_error"
