"""Fixtures of the games tests (the plain helpers are in tests/helpers.py).

(The replay check that runs after every test lives in tests/conftest.py.)
"""

import random

import pytest

from tests.helpers import account, make_player


@pytest.fixture
def random_bots(monkeypatch):
    """Every bot is a seeded random player: bgsage-free and fast (tests/bots test strength)."""
    import games.bots

    player = games.bots.RandomPlayer
    monkeypatch.setattr(games.bots, "get_bot", lambda name: player(random.Random(7)))


@pytest.fixture
def ana(db):
    """ana, an account (a module may override her)."""
    return account("ana")


@pytest.fixture
def ben(db):
    """ben, an account."""
    return account("ben")


@pytest.fixture
def beto(db):
    """beto, a lobby player (email confirmed) who reads the site in English."""
    return make_player("beto", language="en")
