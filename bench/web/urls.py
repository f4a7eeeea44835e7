"""The bare-Django reference of `make load` (bench/load.py): one indexed query as JSON.

Mounted only by the benchmark's settings (bench/web/settings.py, ROOT_URLCONF =
this module, which adds the site's own URLs after it); never in config.urls.
The same middleware, the same database and the same process as the room
state it is compared with: what is left of the difference is the state's own
work (the queries of the stamp or of the state, its cache, the JSON).
"""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path

from games.models import Room


def reference(request: HttpRequest, slug: str) -> HttpResponse:
    """The room's slug, status and last move, by its unique (indexed) slug."""
    row = Room.objects.filter(slug=slug).values("slug", "status", "last_move_at").first()
    if row is None:
        return JsonResponse({"error": {"code": "not_found"}}, status=404)
    return JsonResponse(row)


urlpatterns = [
    path("bench/reference/<str:slug>", reference, name="bench_reference"),
    path("", include("config.urls")),
]

# config.urls' error handlers, for the site's URLs under this one.
handler400 = "games.web.http_errors.bad_request"
handler403 = "games.web.http_errors.permission_denied"
handler404 = "games.web.http_errors.page_not_found"
handler500 = "games.web.http_errors.server_error"
