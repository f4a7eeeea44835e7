"""axe-core on every page of the site: 0 violations.

One world is built once (two accounts, a match being played, a finished and
analysed game, an open challenge, a vacation) and every page is opened in it
as its readers see it: the board as a player on a desktop (and with its
resignation dialog open) and on a phone, and as a spectator; the review, the
archive, Mis partidas, the lobby, a profile, the leaderboard, the vacation
page, the account's pages and the pages of signing up, logging in and the
password. The failure lists every page's violations at once.
"""

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from games import services, tasks
from games.engine import Format, MatchRules
from games.models import GameAnalysis
from games.services.vacations import vacation_start
from tests.browser.axe import violations
from tests.helpers import Persona, make_player, play_out, seat_url, when_published

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def sign_in(page, live_server, user):
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )


@pytest.fixture
def world(monkeypatch, dice, clock, fast_analysis):
    when_published(monkeypatch, tasks.analyse_game, lambda analysis_id: None)
    ana, ben = make_player("ana"), make_player("ben")
    # A finished partida simple, analysed: its review and the room's archive.
    done = services.room_create(rules=MatchRules(), nickname="ana", user=ana)
    dice.push((3, 1))
    guest = services.room_join(room=done.room, nickname="ben", user=ben)
    play_out(done.room, Persona("ana", seat=done), Persona("ben", seat=guest))
    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    # A match to 3 being played, ana to move.
    playing = services.room_create(
        rules=MatchRules(format=Format.MATCH, length=3), nickname="ana", user=ana
    )
    dice.push((3, 1))
    services.room_join(room=playing.room, nickname="ben", user=ben)
    # ben is away: the board says until when.
    vacation_start(user=ben, days=3)
    # ben's open challenge in the lobby.
    services.challenge_post(author=ben, rules=MatchRules(format=Format.MATCH, length=5).to_json())
    return {
        "ana": ana,
        "ben": ben,
        "done": done.room,
        "playing": playing,
        "slug": playing.room.slug,
    }


def test_every_page_has_no_axe_violations(world, live_server, open_page):
    url = live_server.url
    done, slug = world["done"].slug, world["slug"]
    found: dict[str, list[dict]] = {}

    def check(name, page, path=None, drawn=None):
        if path is not None:
            page.goto(url + path)
        page.wait_for_load_state("load")
        if drawn:  # what the page's script draws, before axe reads it
            expect(page.locator(drawn).first).to_be_visible()
        found[name] = violations(page)

    visitor = open_page("visitor", url + reverse("games:home"))
    check("home", visitor)
    check("rules", visitor, reverse("games:rules"))
    check("board, spectator", visitor, reverse("games:watch", args=[slug]), ".board-svg .piece")
    check("review", visitor, reverse("games:review", args=[done, 1, 1]), "#board-best .piece")
    check("archive", visitor, reverse("games:room_archive", args=[done]))
    check("past match", visitor, reverse("games:past_match", args=[done, 1]))
    check("leaderboard", visitor, reverse("games:leaderboard"))
    check("profile (public)", visitor, reverse("games:player", args=["ben"]))
    check("lobby (visitor)", visitor, reverse("games:lobby"))
    check("sign-up", visitor, reverse("accounts:signup"))
    check("log-in", visitor, reverse("accounts:login"))
    check("password reset", visitor, reverse("accounts:password_reset"))
    check("password reset sent", visitor, reverse("accounts:password_reset_done"))
    check("offline", visitor, reverse("games:offline"))
    check("home (English)", open_page("english", url + reverse("games:home"), locale="en-GB"))

    seat = url + seat_url(world["playing"].room, world["playing"].token)
    player = open_page("ana", seat)
    check("board, player", player, drawn=".board-svg .piece")
    player.locator("#board-resign").click()
    check("board, the resignation dialog", player, drawn=".board-dialog #resign-choice")
    player.keyboard.press("Escape")
    check("board, phone", open_page("ana phone", seat, viewport=PHONE), drawn=".board-svg .piece")

    sign_in(player, live_server, world["ana"])
    check("Mis partidas", player, reverse("games:my_rooms"))
    check("lobby (signed in)", player, reverse("games:lobby"))
    check("profile (challenge form)", player, reverse("games:player", args=["ben"]))
    check("vacations", player, reverse("games:vacation"))
    check("account", player, reverse("accounts:profile"))
    check("password change", player, reverse("accounts:password_change"))

    failing = {name: v for name, v in found.items() if v}
    report = [
        f"{name}: {v['id']} ({v['impact']}) at {', '.join(v['nodes'])}"
        for name, page_violations in failing.items()
        for v in page_violations
    ]
    assert len(found) == 24
    assert failing == {}, "axe-core violations:\n" + "\n".join(report)
