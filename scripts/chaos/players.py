"""People on the site: browsers that open rooms, join, and act through the API."""

import json
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from datetime import timedelta
from http.cookiejar import CookieJar

from django.utils import timezone

from games.engine import MatchState, Phase, legal_plays
from games.models import Match, Seat, Turn
from scripts.chaos.env import SITE, db
from scripts.chaos.polling import from_the_gateway

# nginx's throwaway certificate (bench/front.py): the players do not check it.
TLS = ssl.create_default_context()
TLS.check_hostname = False
TLS.verify_mode = ssl.CERT_NONE


def site_up() -> bool:
    """The site answers through nginx."""
    try:
        with urllib.request.urlopen(f"{SITE}/healthz", timeout=5, context=TLS) as response:
            return response.status == 200
    except OSError:
        return False


# --- people on the site --------------------------------------------------------------

# Every HTTP status the players got, by hundreds; 599: no answer at all, GATEWAY:
# nginx's own 502/504 (the process behind it died or hung mid-request).
STATUSES = Counter()
GATEWAY = 598
STATUS_LOCK = threading.Lock()


class Player:
    """One browser: its cookies, its seat, every status it got."""

    def __init__(self, name: str, address: str = ""):
        self.name, self.address = name, address
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies),
            urllib.request.HTTPSHandler(context=TLS),
        )
        self.slug = None
        self.seat = None
        self.request("GET", "/")  # the csrftoken cookie

    def request(self, method: str, path: str, body=None):
        csrf = next((c.value for c in self.cookies if c.name == "csrftoken"), "")
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{SITE}{path}",
            data=data,
            method=method,
            # Over HTTPS Django's CSRF check wants the Origin a browser sends.
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf, "Origin": SITE},
        )
        try:
            with self.opener.open(request, timeout=30) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        except OSError:
            status, text = 599, b""  # no answer at all: the connection died
        if from_the_gateway(status, text):
            status = GATEWAY
        with STATUS_LOCK:
            STATUSES[status if status in (GATEWAY, 599) else status // 100 * 100] += 1
        try:
            return status, json.loads(text or b"null")
        except ValueError:
            return status, None

    def sign_in(self, username: str, password: str) -> bool:
        """The log-in form (accounts.views.LoginView), as a browser posts it."""
        csrf = next((c.value for c in self.cookies if c.name == "csrftoken"), "")
        form = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
        )
        request = urllib.request.Request(
            f"{SITE}/cuenta/entrar/",
            data=form.encode(),
            method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": SITE},
        )
        try:
            with self.opener.open(request, timeout=30):
                pass
        except OSError:
            return False
        return any(c.name == "sessionid" for c in self.cookies)

    def open_room(self, bot=None, rules=None) -> bool:
        body = {"nickname": self.name, "rules": rules or {}}
        if bot:
            body["bot"] = bot
        status, state = self.request("POST", "/api/rooms", body)
        if status != 201:
            return False
        self.slug = state["room"]["slug"]
        self.seat = db(lambda: Seat.objects.get(room__slug=self.slug, number=1))
        return True

    def join(self, host: "Player") -> bool:
        status, _state = self.request(
            "POST", f"/api/rooms/{host.slug}/join", {"nickname": self.name}
        )
        if status != 200:
            return False
        self.slug = host.slug
        self.seat = db(lambda: Seat.objects.get(room__slug=self.slug, number=2))
        return True

    def match(self) -> Match | None:
        return db(lambda: Match.objects.filter(room__slug=self.slug).order_by("-number").first())

    def turns(self) -> int:
        """The actions of this seat in the turn log (not the table's automatic ones)."""
        return db(lambda: Turn.objects.filter(seat=self.seat, automatic=False).count())

    def next_action(self):
        """(action, body) when it is our turn, else None."""
        match = self.match() if self.slug else None
        if match is None or match.status != Match.Status.PLAYING:
            return None
        if match.turn_seat_id != self.seat.pk:
            return None
        state = MatchState.from_json(match.state)
        side = match.side_of(self.seat)
        body = {"version": match.version}
        if state.phase is Phase.ROLL:
            action = "roll"
        elif state.phase is Phase.DOUBLED:
            action = "take"
        elif state.phase is Phase.RESIGN_OFFERED:
            action = "resign_decline"
        elif state.phase is Phase.MOVE:
            action = "play"
            play = legal_plays(state.position_for(side), state.dice)[0]
            body["play"] = [list(step) for step in play]
        else:
            return None
        return action, body


def leave_the_board(players, notify: str = Seat.Notify.EVERY_TURN) -> None:
    """Everyone listed gives an address, and left the board an hour ago."""
    for player in players:
        db(
            lambda player=player: Seat.objects.filter(pk=player.seat.pk).update(
                email=player.address,
                email_consent=True,
                notify=notify,
                last_seen_at=timezone.now() - timedelta(hours=1),
            )
        )


def on_turn(host: Player, guest: Player) -> Player:
    match = host.match()
    return host if match.turn_seat_id == host.seat.pk else guest


def rooms_of_two(tag: str, count: int):
    pairs = []
    for index in range(count):
        host = Player(f"h{index}", f"{tag}-{index}-host@chaos.test")
        guest = Player(f"g{index}", f"{tag}-{index}-guest@chaos.test")
        assert host.open_room() and guest.join(host), "setup failed"
        pairs.append((host, guest))
    return pairs


def against_the_computer(tag: str, count: int, rules=None):
    humans = [Player(f"{tag}b{index}", f"{tag}-{index}-human@chaos.test") for index in range(count)]
    for human in humans:
        assert human.open_room(bot="domador", rules=rules), "setup failed"
    return humans


def waiting_for_the_computer(humans) -> list[Player]:
    stuck = []
    for human in humans:
        match = human.match()
        if match.status == Match.Status.PLAYING and match.turn_seat_id != human.seat.pk:
            stuck.append(human)
    return stuck
