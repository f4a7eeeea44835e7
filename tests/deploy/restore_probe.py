"""The site, pointed at a database, asked what tests/deploy/test_backup_restore.py
compares: run as `python -m tests.deploy.restore_probe <command>` with the
site's variables (DATABASE_URL...), a JSON request on stdin, JSON on stdout.

A process of its own, as a restarted site is: nothing it answers comes from
a cache or a connection of the process that played the rooms.

- states: every viewer's state of every room through the JSON API (a seat's
  by its browser's session cookie, the spectator's without one), and every
  match replayed from its Turn rows against its stored state;
- wait: a board's held `?wait=` through the ASGI application (config/asgi.py),
  with its ETag, timed; and the room's Redis key before and after;
- say: a word from one seat of a room to the other.
"""

import asyncio
import json
import sys
import time
from datetime import datetime

import django


def states(request: dict) -> dict:
    from django.conf import settings
    from django.test import Client
    from django.urls import reverse

    from games.models import Match, Turn
    from games.selectors import replay_match

    answers: dict[str, dict[str, object]] = {}
    for room in request["rooms"]:
        answers[room["slug"]] = {}
        for viewer, cookie in room["viewers"].items():
            client = Client()
            if cookie:
                client.cookies[settings.SESSION_COOKIE_NAME] = cookie
            response = client.get(reverse("games:api_state", args=[room["slug"]]))
            answers[room["slug"]][viewer] = {
                "status": response.status_code,
                "body": response.json(),
            }
    replays = {}
    for match in Match.objects.select_related("room").order_by("pk"):
        replays[f"{match.room.slug}#{match.number}"] = replay_match(match).to_json() == match.state
    return {"states": answers, "replays": replays, "turns": Turn.objects.count()}


def wait(request: dict) -> dict:
    import redis
    from django.conf import settings
    from django.core.asgi import get_asgi_application
    from django.urls import reverse

    from games.selectors.pulse import room_pulse
    from games.services import live
    from games.web.live import LiveWaits, waits
    from tests.helpers import asgi_get

    waits.WAIT_SECONDS = request["seconds"]
    app = LiveWaits(get_asgi_application())
    keys = redis.Redis.from_url(settings.LIVE_REDIS_URL)
    slug = request["slug"]
    key_before = keys.get(live.room_key(slug))

    url = reverse("games:api_state", args=[slug])
    headers = [("cookie", f"{settings.SESSION_COOKIE_NAME}={request['cookie']}")]

    async def held() -> tuple[int, float, int]:
        first = await asgi_get(app, url, "", headers)
        version = first.json()["version"]
        tag = [("if-none-match", first.headers["etag"])]
        started = time.monotonic()
        answer = await asgi_get(app, url, f"wait={version}", headers + tag)
        return answer.status, time.monotonic() - started, version

    status, seconds, version = asyncio.run(held())
    found = room_pulse(slug=slug)
    assert found is not None
    key_after = keys.get(live.room_key(slug))
    return {
        "status": status,
        "held": seconds,
        "version": version,
        "database": found[1].encode(),
        "key_before": key_before.decode() if key_before else None,
        "key_after": key_after.decode() if key_after else None,
    }


def say(request: dict) -> dict:
    from games import services
    from games.models import Seat

    seat = Seat.objects.get(room__slug=request["slug"], number=request["seat"])
    services.message_send(seat=seat, text=request["text"])
    return {}


COMMANDS = {"states": states, "wait": wait, "say": say}


def main() -> None:
    django.setup()
    from games.lib import clock

    request = json.load(sys.stdin)
    # One moment for both sides of the comparison: what the clock shows is the same.
    with clock.frozen(datetime.fromisoformat(request["at"])):
        answer = COMMANDS[sys.argv[1]](request)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
