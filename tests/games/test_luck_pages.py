"""The luck of the dice: stored by the analysis task, read on the review page with its chart.

The evaluator runs at bgsage 1-ply here (fast), the luck's own depth too.
"""

import json

import pytest
from django.urls import reverse

from games import services, tasks
from games.engine import Format, MatchRules
from games.models import GameAnalysis, Turn, TurnAnalysis
from games.selectors import luck as luck_selector
from tests.helpers import Persona, bind, play_out, version_of, when_published


@pytest.fixture(autouse=True)
def fast_settings(fast_analysis, monkeypatch):
    when_published(monkeypatch, tasks.analyse_game, lambda analysis_id: None)


@pytest.fixture
def analysed(room, alice, bob):
    play_out(room, alice, bob)
    bind(alice, room)
    bind(bob, room)
    services.game_analysis_run(analysis_id=GameAnalysis.objects.get().pk)
    return room


def page(persona, room, game=1, match=1, language="es") -> str:
    url = reverse("games:review", args=[room.slug, match, game])
    response = persona.client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def json_of(html: str, ident: str):
    return json.loads(html.split(f'id="{ident}" type="application/json">')[1].split("</script>")[0])


def test_the_task_stores_the_luck_of_every_roll_of_the_game(analysed):
    row = GameAnalysis.objects.get()
    rolls = list(Turn.objects.filter(game=row.game, kind="roll").order_by("number"))
    # Opening ties roll again: no one moves, so they carry no luck.
    first_play = Turn.objects.filter(game=row.game, kind="play").order_by("number").first()
    ties = [t for t in rolls if t.number < first_play.number and t.dice[0] == t.dice[1]]
    stored = row.luck["rolls"]
    assert [r["turn"] for r in stored] == [t.number for t in rolls if t not in ties]
    assert row.luck["unit"] == "points"
    for side in (0, 1):
        figures = row.luck["sides"][side]
        mine = [r for r in stored if r["side"] == side]
        assert figures["rolls"] == len(mine)
        assert figures["luck"] == pytest.approx(sum(r["luck"] for r in mine), abs=1e-3)
        assert figures["very_lucky"] == sum(r["mark"] == "very_lucky" for r in mine)
    result = [row.luck["sides"][side]["result"] for side in (0, 1)]
    assert sorted(result) == [-1, 1]  # a partida simple: one game won, one lost
    winner = result.index(1)
    assert row.luck["end"] == (1 if winner == 0 else -1)
    adjusted = row.luck["sides"][0]["adjusted"]
    own, theirs = row.luck["sides"][0]["value"], row.luck["sides"][1]["value"]
    assert adjusted == pytest.approx(result[0] - (own - theirs), abs=1e-3)


def test_the_review_shows_each_players_luck_and_the_chart_with_its_table(analysed, carol):
    row = GameAnalysis.objects.get()
    html = page(carol, analysed)
    assert "¿Fueron los dados?" in html and 'id="luck-svg"' in html
    assert "js/review/luck" in html
    chart = json_of(html, "luck-chart")
    assert chart["scale"] == "percent"  # a partida simple: side 0's chance to win
    assert len(chart["points"]) == len(row.luck["rolls"])
    assert all(0 <= p["y"] <= 100 for p in chart["points"])
    assert chart["end"] in (0, 100)
    marked = TurnAnalysis.objects.filter(analysis=row, mark__in=["error", "blunder"])
    assert [e["turn"] for e in chart["errors"]] == sorted(t.turn.number for t in marked)
    table = html.split('id="luck-table"')[1].split("</details>")[0]
    assert table.count("data-turn=") == len(chart["points"])
    english = page(carol, analysed, language="en")
    assert "Was it the dice?" in english and "Luck-adjusted result" in english


def test_the_page_without_luck_says_nothing_of_it(analysed, carol):
    GameAnalysis.objects.update(luck=None)
    html = page(carol, analysed)
    assert "¿Fueron los dados?" not in html and "luck-chart" not in html


def test_a_matchs_luck_is_summed_over_its_analysed_games(db, clock, dice, full_pass):
    alice = services.room_create(rules=MatchRules(format=Format.MATCH, length=3), nickname="alice")
    dice.push((3, 1))
    bob = services.room_join(room=alice.room, nickname="bob")
    room = alice.room
    services.game_play(seat=alice, version=version_of(room), play=[[8, 5], [6, 5]])
    play_out(room, Persona("alice", seat=alice), Persona("bob", seat=bob))
    rows = list(GameAnalysis.objects.filter(game__match__room=room).order_by("game__number"))
    assert len(rows) >= 2, "a match to 3 played out takes more than one game"
    for row in rows:
        services.game_analysis_run(analysis_id=row.pk)
        row.refresh_from_db()
        assert row.luck["unit"] == "mwc"
    totals = luck_selector.match_luck(rows[0].game.match)
    assert totals is not None
    for side in (0, 1):
        assert totals[side]["games"] == len(rows)
        assert totals[side]["luck"] == pytest.approx(
            sum(r.luck["sides"][side]["luck"] for r in rows)
        )
        # The match's result in MWC: from an even start to won (+0.5) or lost (−0.5).
        assert abs(totals[side]["result"]) == pytest.approx(0.5, abs=1e-3)


def test_figures_carry_their_sign_as_the_pages_language_writes_numbers():
    from django.utils import translation

    from games.templatetags.analysis import signed

    with translation.override("es"):
        assert [signed(0.3271), signed(-1.5, 1), signed(0.00001), signed(None)] == [
            "+0,327", "−1,5", "0,000", "—",
        ]  # fmt: skip
    with translation.override("en"):
        assert signed(-0.0412, 2) == "−0.04"
