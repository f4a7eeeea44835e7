"""Fixtures of the games tests (the plain helpers are in tests/helpers.py).

(The replay check that runs after every test lives in tests/conftest.py.)
"""

import random

import pytest


@pytest.fixture
def random_bots(monkeypatch):
    """Every bot is a seeded random player: bgsage-free and fast (tests/bots test strength)."""
    import games.bots

    player = games.bots.RandomPlayer
    monkeypatch.setattr(games.bots, "get_bot", lambda name: player(random.Random(7)))
