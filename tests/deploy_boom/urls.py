from django.urls import include, path

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401


def boom(request):
    raise RuntimeError("a bug nobody caught")


urlpatterns = [
    path("boom/", boom),
    path("api/boom", boom),
    path("", include("config.urls")),
]
