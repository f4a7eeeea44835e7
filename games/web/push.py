"""The installable site and its notifications: the manifest, the service worker,
the offline page, and the JSON endpoints where a browser subscribes to push.
"""

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import services
from games.lib.errors import BadInput
from games.mail.push import push_enabled
from games.web.api import json_endpoint, read_json_body


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest: Mesa on the home screen, opening at "Mis partidas"."""
    data = {
        "name": "Mesa",
        "short_name": "Mesa",
        "description": _("Backgammon por correspondencia"),
        "lang": request.LANGUAGE_CODE,
        "start_url": reverse("games:my_rooms"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#f4e9d8",
        "theme_color": "#8b5a2b",
        "icons": [
            {"src": static("img/favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = JsonResponse(data, content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root so that it may serve every page."""
    response = render(
        request,
        "games/sw.js",
        {"offline_url": reverse("games:offline"), "css_url": static("css/site.css")},
        content_type="text/javascript",
    )
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "games/offline.html")


def _keys(body: dict[str, Any]) -> dict[str, Any]:
    keys = body.get("keys")
    if not isinstance(keys, dict):
        raise BadInput("bad_subscription")
    return keys


@json_endpoint(("POST",))
def subscribe(request: HttpRequest) -> HttpResponse:
    """Body: the browser's PushSubscription as JSON ({endpoint, keys: {p256dh, auth}})."""
    body = read_json_body(request)
    if not push_enabled():
        raise BadInput("push_off")
    keys = _keys(body)
    services.push_subscribe(
        user=request.user,
        endpoint=body.get("endpoint"),
        p256dh=keys.get("p256dh"),
        auth=keys.get("auth"),
    )
    return JsonResponse({"subscribed": True}, status=201)


@json_endpoint(("POST",))
def unsubscribe(request: HttpRequest) -> HttpResponse:
    body = read_json_body(request)
    deleted = services.push_unsubscribe(user=request.user, endpoint=body.get("endpoint"))
    return JsonResponse({"subscribed": False, "removed": deleted})


def push_context(request: HttpRequest) -> dict[str, object]:
    """What the page's push button needs: the site's public key, or nothing when push is off."""
    if not push_enabled() or not request.user.is_authenticated:
        return {}
    texts = {
        "on": _("Avísame en este dispositivo"),
        "off": _("Dejar de avisarme aquí"),
        "subscribed": _("Te avisaremos aquí cuando te toque."),
        "denied": _(
            "El navegador no permite avisos de este sitio. Puedes cambiarlo en sus ajustes."
        ),
        "failed": _("No se pudo activar los avisos. Inténtalo otra vez."),
        "unsupported": _("Este navegador no recibe avisos."),
    }
    return {"vapid_public_key": settings.VAPID_PUBLIC_KEY, "push_texts": texts}
