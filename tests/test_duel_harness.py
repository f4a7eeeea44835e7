"""The duel's results file: rows count together only for the same bot version and settings."""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from bench import duel
from games.bots import RandomPlayer, players
from games.engine import Action, MatchRules, MatchState, Phase


def _args(bot: str = "empresario") -> argparse.Namespace:
    return argparse.Namespace(bot=bot, plies=2, seed=1, budget=None)


def test_a_change_to_the_character_changes_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = duel.player_version("empresario")
    assert duel.player_version("Empresario") == before
    assert duel.player_version("carcelero") != before
    deeper = replace(players.EMPRESARIO, deep_cube_window=0.05)
    monkeypatch.setitem(players.CHARACTERS, "empresario", deeper)
    assert duel.player_version("empresario") != before


def test_only_rows_of_the_same_version_and_settings_are_read(tmp_path: Path) -> None:
    config = duel.config_of(_args())
    match = {"length": 5, "games": 3, "gammons": 1, "highest_cube": 2}
    rows = [
        {**config, **match, "pair": 0, "bot_seat": 0, "bot_won": 1},
        {**config, **match, "bot_version": "older", "pair": 0, "bot_seat": 1, "bot_won": 0},
        {**config, **match, "seed": 2, "pair": 1, "bot_seat": 0, "bot_won": 0},
        {**config, **match, "pair": 0, "bot_seat": 1, "bot_won": 0},
    ]
    path = tmp_path / "duel.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "\n")
    found = duel.read_results(path, config)
    assert [(row["pair"], row["bot_seat"]) for row in found] == [(0, 0), (0, 1)]
    assert "50.0%" in duel.summary(found, "empresario", "gnubg 2-ply")


@pytest.mark.parametrize("shard", ["2/2", "one/2", "3"])
def test_a_malformed_shard_or_one_outside_its_count_is_refused(
    shard: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        duel.main(["--shard", shard, "--summary"])
    assert stopped.value.code == 2
    assert f"--shard {shard}" in capsys.readouterr().err


def test_two_versions_are_compared_only_on_the_pairs_both_completed() -> None:
    config = duel.config_of(_args())
    match = {"length": 5, "games": 3, "gammons": 1, "highest_cube": 2}

    def row(version: str, pair: int, seat: int, won: int) -> dict[str, object]:
        return {**config, **match, "bot_version": version, "pair": pair, "bot_seat": seat,
                "bot_won": won}  # fmt: skip

    now = [row("new", 0, 0, 1), row("new", 0, 1, 1), row("new", 1, 0, 1), row("new", 1, 1, 0),
           row("new", 2, 0, 1)]  # fmt: skip
    earlier = [row("old", 0, 0, 1), row("old", 0, 1, 0), row("old", 1, 0, 0), row("old", 1, 1, 0),
               row("old", 2, 0, 0), row("old", 2, 1, 0)]  # fmt: skip
    # Pair 2 is half played by the new version: only pairs 0 and 1 count.
    # Gains per pair: 1.0 - 0.5 = +0.5 and 0.5 - 0.0 = +0.5.
    text = duel.paired_difference(now, earlier, "empresario", "old")
    assert "same 2 pairs: 75.0% against 25.0%, a difference of +50.0 ± 0.0 points" in text
    assert "no pair completed by both" in duel.paired_difference(now[4:], earlier, "e", "old")


def test_the_pooled_summary_prints_both_seeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = {"length": 7, "games": 4, "gammons": 0, "highest_cube": 4}
    rows = []
    for seed, wins in ((1, (1, 1)), (2, (0, 1)), (3, (0, 0))):
        config = duel.config_of(_args(), seed)
        rows += [
            {**config, **match, "pair": 0, "bot_seat": s, "bot_won": w} for s, w in enumerate(wins)
        ]
    path = tmp_path / "duel.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    assert duel.main(["--summary", "--seed", "1,2", "--results", str(path)]) == 0

    text = capsys.readouterr().out
    # Pair 0 of seed 1 and pair 0 of seed 2 are other dice: two pairs, not one
    # of four matches; seed 3 is not asked for. Pair means 1.0 and 0.5 give
    # 75% with a standard error of 0.25.
    assert "4 matches, 2 complete pairs (seeds 1, 2)" in text
    assert "match wins for empresario: 75.0% ± 25.0 (4 matches)" in text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--seed", "1,2"], "several only with --summary"),
        (["--seed", "one", "--summary"], "write it as a whole number"),
    ],
)
def test_a_malformed_seed_or_several_to_play_are_refused(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        duel.main(argv)
    assert stopped.value.code == 2
    assert says in capsys.readouterr().err


def test_rows_played_within_a_budget_count_only_with_rows_of_the_same_budget(
    tmp_path: Path,
) -> None:
    plain = duel.config_of(_args())
    budgeted = duel.config_of(argparse.Namespace(bot="empresario", plies=2, seed=1, budget=5.0))
    assert "budget" not in plain and budgeted["budget"] == 5.0
    match = {"length": 5, "games": 3, "gammons": 1, "highest_cube": 2}
    rows = [
        {**plain, **match, "pair": 0, "bot_seat": 0, "bot_won": 1},
        {**budgeted, **match, "pair": 0, "bot_seat": 1, "bot_won": 0},
        {**budgeted, **match, "budget": 2.0, "pair": 1, "bot_seat": 0, "bot_won": 0},
    ]
    path = tmp_path / "duel.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert [row["bot_seat"] for row in duel.read_results(path, plain)] == [0]
    assert [row["bot_seat"] for row in duel.read_results(path, budgeted)] == [1]
    assert duel.results_path("empresario", 2, 1).name == "duel-empresario-gnubg2-s1.jsonl"
    assert (
        duel.results_path("empresario", 2, 1, 5.0).name == "duel-empresario-gnubg2-s1-budget5.jsonl"
    )


class Recording(RandomPlayer):
    """Rolls and plays like the random player, writing down each decision's deadline."""

    def __init__(self) -> None:
        super().__init__(random.Random(3))
        self.deadlines: list[tuple[str, float | None]] = []

    def should_double(self, position, context, *, deadline=None):
        self.deadlines.append(("double", deadline))
        return False

    def choose_play(self, position, dice, context=None, *, deadline=None):
        self.deadlines.append(("play", deadline))
        return super().choose_play(position, dice, context, deadline=deadline)


def test_with_a_budget_a_turn_has_one_deadline_from_its_first_decision_as_on_the_site() -> None:
    now = [10.0]
    player = duel.MesaPlayer("empresario", random.Random(1), 5.0, clock=lambda: now[0])
    player.bot = recording = Recording()
    rules = MatchRules.from_json({"format": "match", "length": 5})
    # Side 0 plays its opening roll (the table rolled it): a turn of its own.
    opening = MatchState.new(rules).apply(Action("roll", 0, dice=(3, 1)))
    assert player.next_action(opening, 0) is not None
    # Side 0 on roll: it thinks about doubling and rolls at 20 s...
    ready = replace(MatchState.new(rules), phase=Phase.ROLL, turn=0, on_roll=0)
    assert ready.may_double(0)
    now[0] = 20.0
    assert player.next_action(ready, 0) == Action("roll", 0)
    moving = ready.apply(Action("roll", 0, dice=(6, 5)))
    assert moving.phase is Phase.MOVE
    # ...and plays at 23 s within that turn's deadline, 25 s.
    now[0] = 23.0
    player.next_action(moving, 0)
    assert recording.deadlines == [("play", 15.0), ("double", 25.0), ("play", 25.0)]
    # A play that does not follow the bot's own roll starts its own deadline:
    # the bot rolls at 30 s, and its next play is in another position (the
    # roll had no play, the turn passed, the table rolled for it later).
    now[0] = 30.0
    player.next_action(ready, 0)
    elsewhere = replace(opening, position=opening.position.apply(((8, 5), (6, 5))))
    now[0] = 40.0
    player.next_action(elsewhere, 0)
    assert recording.deadlines[-2:] == [("double", 35.0), ("play", 45.0)]
    # Without a budget, no deadline at all (the committed duels).
    unbounded = duel.MesaPlayer("empresario", random.Random(1))
    unbounded.bot = recording = Recording()
    unbounded.next_action(opening, 0)
    assert recording.deadlines == [("play", None)]
