"""In Chromium: "Avísame en este dispositivo" on "Mis partidas" subscribes the
browser, "Es tu turno" then reaches its push service, and the button turns it off.

Chromium's own pushManager.subscribe() asks Google's push service, which this
machine cannot reach, so the page's Push API is replaced before any script
runs: subscribe() and getSubscription() hand out a subscription whose
endpoint is the local push service (tests.helpers.PushService) and whose
keys are a real P-256 pair and auth secret made here. Everything else is the
real thing: the permission (granted to the context), the service worker's
registration, push.js, the site's endpoints, the outbox's task, pywebpush,
and the decryption with the subscription's private key.
"""

import json
from datetime import timedelta

import pytest
from celery import current_app
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.engine import MatchRules
from games.models import FollowUp, PushSubscription
from tests.helpers import PushBrowser, account, check_vapid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The Push API as the page sees it, with one subscription made in the test.
# Each call is noted in window.pushCalls for the test to read.
FAKE_PUSH_API = """
(() => {
  const made = %s;
  let current = null;
  window.pushCalls = [];
  const toBase64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const subscription = () => ({
    endpoint: made.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true },
    toJSON: () => ({ endpoint: made.endpoint, expirationTime: null, keys: made.keys }),
    unsubscribe: async () => {
      window.pushCalls.push(["unsubscribe"]);
      current = null;
      return true;
    },
  });
  PushManager.prototype.getSubscription = async function () {
    window.pushCalls.push(["getSubscription"]);
    return current;
  };
  PushManager.prototype.subscribe = async function (options) {
    window.pushCalls.push(["subscribe", options.userVisibleOnly,
                           toBase64url(options.applicationServerKey)]);
    current = subscription();
    return current;
  };
})();
"""


def my_rooms_page(open_page, live_server, user, init_script):
    """ "Mis partidas" in a browser logged in as `user`, notifications allowed."""
    client = Client()
    client.force_login(user)
    page = open_page(user.username, live_server.url + reverse("games:rules"))
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    page.context.grant_permissions(["notifications"], origin=live_server.url)
    page.context.add_init_script(init_script)
    page.goto(live_server.url + reverse("games:my_rooms"))
    return page


def run_owed(task: str) -> list[object]:
    """Run what the outbox owes for `task`, as a worker would; what each run returned."""
    rows = list(FollowUp.objects.filter(task=task).order_by("pk"))
    return [current_app.tasks[row.task](*row.args, **row.kwargs) for row in rows]


def test_the_button_subscribes_the_turn_is_pushed_and_the_button_unsubscribes(
    live_server, clock, dice, open_page, site_key, push_service, artifacts
):
    bea = account("bea")
    phone = PushBrowser(f"{push_service.url}/push/bea-chromium")
    page = my_rooms_page(
        open_page, live_server, bea, FAKE_PUSH_API % json.dumps(phone.subscription())
    )
    button = page.get_by_role("button", name="Avísame en este dispositivo")
    expect(button).to_be_visible()
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#push-status")).to_have_text("")
    # The worker really registered, from the site's root.
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == live_server.url + "/"

    button.click()
    off = page.get_by_role("button", name="Dejar de avisarme aquí")
    expect(off).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#push-status")).to_have_text("Te avisaremos aquí cuando te toque.")
    page.screenshot(path=str(artifacts / "push-subscribed.png"))
    subscribe = [call for call in page.evaluate("window.pushCalls") if call[0] == "subscribe"]
    # Subscribed for visible notifications, with the site's own public key.
    assert subscribe == [["subscribe", True, settings.VAPID_PUBLIC_KEY]]
    stored = PushSubscription.objects.get()
    keys = phone.subscription()["keys"]
    assert (stored.user, stored.endpoint) == (bea, phone.endpoint)
    assert (stored.p256dh, stored.auth) == (keys["p256dh"], keys["auth"])

    # bea's turn comes: the guest opens with 3-1 and plays it; the outbox owes her push.
    seat = services.room_create(rules=MatchRules(), nickname="bea", user=bea)
    dice.push((1, 3))
    guest = services.room_join(room=seat.room, nickname="carlos")
    clock.tick(timedelta(hours=2))  # bea left the new table long ago
    match = services.game_play(seat=guest, version=1, play=[[8, 5], [6, 5]])
    assert run_owed("games.tasks.turn_push") == [1]
    [(path, headers, body)] = push_service.received
    assert path == "/push/bea-chromium"
    check_vapid(headers, site_key, push_service.url)
    message = phone.read(body)
    assert message["title"] == "Es tu turno en Mesa"
    assert message["body"] == "carlos ya jugó y la mesa te espera."
    assert message["url"] == settings.SITE_URL + reverse("games:my_seat", args=[match.room.slug])

    off.click()
    on = page.get_by_role("button", name="Avísame en este dispositivo")
    expect(on).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#push-status")).to_have_text("")
    assert ["unsubscribe"] in page.evaluate("window.pushCalls")
    assert not PushSubscription.objects.exists()
