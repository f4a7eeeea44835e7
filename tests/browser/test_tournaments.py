"""In a real browser: two accounts join a site tournament, play their match on the
board, and the winner's next match appears in "Mis partidas". Then the bracket
and the standings on a phone (390x844) and a desktop, photographed into
test-artifacts/ and checked for a page no wider than the phone.
"""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.models import Rating
from games import services
from games.models import Match, Seat, TournamentMatch
from tests.browser.test_lobby import signed_in_page
from tests.helpers import finish_turn, make_player, tap_step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def rated(name, rating):
    user = make_player(name)
    Rating.objects.create(user=user, rating=rating, matches=1)
    return user


def resign(row, loser):
    seat = Seat.objects.get(room_id=row.room_id, user=loser)
    services.match_resign(seat=seat, version=Match.objects.get(room_id=row.room_id).version)


def test_two_accounts_join_play_on_the_board_and_the_winner_sees_the_next_match(
    live_server, clock, dice, open_page
):
    ana, beto = rated("ana", 1800), rated("beto", 1400)
    cris, dani = rated("cris", 1700), rated("dani", 1600)
    # One of the site's own (no host), of four seats so two more fill it.
    tournament = services.tournament_create(
        host=None, name="Copa del martes", kind="knockout", capacity=4, lengths=[1]
    )
    page = reverse("games:tournament", args=[tournament.slug])

    ana_page = signed_in_page(open_page, live_server, ana, reverse("games:tournaments"))
    ana_page.get_by_role("link", name="Copa del martes").click()
    ana_page.get_by_role("button", name="Apuntarme").click()
    expect(ana_page.locator(".messages")).to_contain_text("Estás dentro")
    beto_page = signed_in_page(open_page, live_server, beto, page)
    beto_page.get_by_role("button", name="Apuntarme").click()
    expect(beto_page.locator(".tournament-status")).to_contain_text("Apuntados 2 de 4")

    dice.push((3, 1))  # the first semifinal's opening: ana, at seat 1, starts with 3-1
    services.tournament_join(tournament=tournament, user=cris)
    services.tournament_join(tournament=tournament, user=dani)  # full: it starts

    ana_page.goto(live_server.url + page)
    expect(ana_page.locator(".bracket")).to_contain_text("Semifinales")
    ana_page.get_by_role("link", name="ir a tu mesa").click()
    expect(ana_page.locator("#board-app")).to_be_visible()
    semi = TournamentMatch.objects.get(tournament=tournament, round=1, index=0)
    beto_page.goto(live_server.url + reverse("games:room", args=[semi.room.slug]))

    tap_step(ana_page, 8, 5)
    tap_step(ana_page, 6, 5)
    finish_turn(ana_page)

    # beto gives the game up, and with it the 1-point match; ana accepts.
    expect(beto_page.locator("#board-resign")).to_be_visible()
    beto_page.locator("#board-resign").click()
    beto_page.get_by_role("button", name="Ofrecer la rendición").click()
    ana_page.get_by_role("button", name="Aceptar la rendición").click()
    ana_page.locator(".board-dialog").get_by_role("button", name="Aceptar la rendición").click()
    expect(ana_page.locator(".board-status")).to_contain_text("¡Ganaste!")

    # The other semifinal ends too: the final is known, and opens.
    resign(TournamentMatch.objects.get(tournament=tournament, round=1, index=1), dani)
    ana_page.goto(live_server.url + reverse("games:my_rooms"))
    final = TournamentMatch.objects.get(tournament=tournament, round=2)
    line = ana_page.locator(f'.my-room[data-room="{final.room.slug}"]')
    expect(line).to_contain_text("Contra cris")
    expect(line).to_contain_text("torneo «Copa del martes»")


def test_the_bracket_and_the_standings_on_a_phone_and_a_desktop(
    live_server, clock, dice, open_page, artifacts
):
    names = ["ana", "beto", "cris", "dani", "eva", "fede", "gala", "hugo"]
    users = [rated(name, 1900 - 40 * number) for number, name in enumerate(names)]
    knockout = services.tournament_create(
        host=None, name="Eliminatoria del día, a 5", kind="knockout", capacity=8, lengths=[5, 7]
    )
    for user in users:
        services.tournament_join(tournament=knockout, user=user)
    for index, loser in ((0, users[7]), (1, users[3]), (2, users[6])):
        resign(TournamentMatch.objects.get(tournament=knockout, round=1, index=index), loser)
    league = services.tournament_create(
        host=None, name="Liga de la semana, a 3", kind="league", capacity=5, lengths=[3]
    )
    for user in users[:5]:
        services.tournament_join(tournament=league, user=user)
    for row in TournamentMatch.objects.filter(tournament=league).order_by("round", "index")[:6]:
        resign(row, row.player_b.user if row.index % 2 == 0 else row.player_a.user)

    for label, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        for kind, tournament in (("bracket", knockout), ("standings", league)):
            url = reverse("games:tournament", args=[tournament.slug])
            page = signed_in_page(open_page, live_server, users[0], url)
            page.set_viewport_size(viewport)
            expect(page.locator("h1")).to_have_text(tournament.name)
            shown = page.locator(".bracket" if kind == "bracket" else ".standings table")
            expect(shown).to_be_visible()
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"{kind} on a {label}: {width}px wide"
            page.screenshot(path=str(artifacts / f"tournament-{kind}-{label}.png"), full_page=True)
