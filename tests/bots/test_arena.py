"""The duplicate-dice arena and the botmatch command; games.bots stays free of Django."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from django.core.management import call_command

from games.bots.arena import duplicate_match, game_dice, play_game
from games.bots.players import RandomPlayer

ROOT = Path(__file__).resolve().parents[2]


def test_a_duplicate_match_is_repeatable_and_plays_each_dice_sequence_twice():
    first = duplicate_match("domador", "random", 4, seed=3)
    again = duplicate_match("domador", "random", 4, seed=3)
    assert first.games == 4 and len(first.pair_points) == 2
    assert first.pair_points == again.pair_points
    assert first.points_per_game > 0  # Domador is far better than random
    assert first.timings[0].seconds and first.timings[1].seconds


def test_a_game_ends_with_one_to_three_points():
    import random

    players = (RandomPlayer(random.Random(1)), RandomPlayer(random.Random(2)))
    points = play_game(players, game_dice(seed=5, game=0))
    assert abs(points) in (1, 2, 3)


def test_botmatch_prints_points_per_game_and_time_per_move():
    out = io.StringIO()
    call_command("botmatch", "Chofer", "random", "--games", "2", "--seed", "1", stdout=out)
    text = out.getvalue()
    assert "chofer vs random" in text and "over 2 games" in text
    assert "±" in text and "median time per move" in text


def test_games_bots_imports_without_django_and_loads_bgsage_only_when_needed():
    script = (
        "import sys\n"
        "import games.bots, games.bots.runner, games.bots.arena\n"
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)\n"
        "assert 'bgsage' not in sys.modules\n"
        "from games.engine import Position\n"
        "play = games.bots.get_bot('domador', seed=1).choose_play(Position.initial(), (3, 1))\n"
        "assert 'bgsage' in sys.modules and play\n"
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
