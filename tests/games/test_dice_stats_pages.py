"""A match's dice and a player's career beside fair dice: counted from the Turn rows, shown
next to the dice proofs and on the profile."""

import pytest
from django.urls import reverse

from games.models import Match, Turn
from games.selectors import dice_stats
from tests.helpers import bind, current_match, play_out, play_turns

# After the opening 3-1 (side 0's die 3, side 1's 1: alice starts), the scripted rolls.
ROLLS = [(6, 6), (5, 5), (2, 1), (6, 5), (4, 4), (3, 1)]


@pytest.fixture
def scripted(room, alice, bob, dice):
    dice.push(*ROLLS)
    play_turns(room, alice, bob, len(ROLLS))  # alice's opening play, then a play per roll
    return current_match(room)


def test_a_matchs_dice_count_each_players_rolls_and_the_opening_in_the_total(scripted):
    # Five plays after the opening's: alice's 3-1 is rolled and waits for her play.
    rolls = Turn.objects.filter(game__match=scripted, kind="roll").order_by("number")
    assert [tuple(t.dice) for t in rolls] == [(3, 1), *ROLLS]
    found = dice_stats.match_dice(scripted)
    alice_side = scripted.side_of(scripted.room.seats.get(number=1))
    alices, bobs = found["sides"][alice_side], found["sides"][1 - alice_side]
    # alice: 5-5, 6-5, 3-1; bob: 6-6, 2-1, 4-4. The opening 3-1 is neither's own.
    assert (alices["rolls"], alices["doubles"]) == (3, 1)
    assert (bobs["rolls"], bobs["doubles"]) == (3, 2)
    assert alices["pips"] == pytest.approx((20 + 11 + 4) / 3)
    assert bobs["pips"] == pytest.approx((24 + 3 + 16) / 3)
    every = found["all"]
    assert (every["rolls"], every["doubles"]) == (7, 3)
    assert {row["total"]: row["count"] for row in every["totals"] if row["count"]} == {
        4: 2, 12: 1, 10: 1, 3: 1, 11: 1, 8: 1,
    }  # fmt: skip
    assert every["doubles_expected"] == pytest.approx(7 / 6)
    assert every["totals"][5] == {"total": 7, "count": 0, "expected": pytest.approx(7 / 6)}
    assert every["pips_expected"] == pytest.approx(49 / 6)
    # alice's 6-5 plays 13/7*, hitting bob's blot; bob's 4-4 comes from the bar against
    # one closed point (alice's 6-point): fair dice enter 35 times in 36.
    assert (bobs["bar_rolls"], bobs["entered"]) == (1, 1)
    assert bobs["entered_expected"] == pytest.approx(35 / 36)
    assert (alices["bar_rolls"], every["bar_rolls"]) == (0, 1)


def test_a_players_career_counts_their_own_rolls_in_every_match(scripted, alice, bob):
    assert alice.seat.user is None  # a guest: no career; give both seats accounts
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    ana, ben = users.create_user("ana"), users.create_user("ben")
    type(alice.seat).objects.filter(pk=alice.seat.pk).update(user=ana)
    type(bob.seat).objects.filter(pk=bob.seat.pk).update(user=ben)
    assert dice_stats.player_dice(ana)["rolls"] == 3 and dice_stats.player_dice(ana)["doubles"] == 1
    assert dice_stats.player_dice(ben)["rolls"] == 3 and dice_stats.player_dice(ben)["doubles"] == 2
    table = dice_stats.player_table(ben, "ben")
    assert table is not None and table["columns"][0]["label"] == "ben"
    assert [row["cells"][0]["count"] for row in table["totals"]][10] == 1  # his 6-6
    assert dice_stats.player_table(users.create_user("nadie"), "nadie") is None
    profile = alice.client.get(reverse("games:player", args=["ben"])).content.decode()
    assert "¿Son justos estos dados?" in profile
    assert (
        '<tr class="dice-doubles"><th scope="row">Dobles</th><td data-label="ben">2 (0,5)</td>'
        in (profile)
    )


def test_the_past_match_page_shows_the_dice_beside_fair_dice(room, alice, bob):
    play_out(room, alice, bob)
    bind(alice, room)
    match = Match.objects.get(room=room)
    page = alice.client.get(reverse("games:past_match", args=[room.slug, match.number]))
    html = page.content.decode()
    assert "¿Son justos estos dados?" in html
    rolls = Turn.objects.filter(game__match=match, kind="roll").count()
    summary = html.split('class="dice-rolls"')[1].split("</tr>")[0]
    assert f'<td data-label="Todas, con la salida">{rolls}</td>' in summary
    assert html.count('<tr data-total="') == 11
    english = alice.client.get(
        reverse("games:past_match", args=[room.slug, match.number]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "Are these dice fair?" in english
