"""Shared fixtures: the clock, scripted dice and the personas of every site test.

alice opens a room (seat 1, side 0 of the first match), bob joins it (seat 2),
carol watches without a seat, mallory holds a forged seat token. Each persona
has its own Django test client for view tests. The room's format comes from
the `rules` fixture (a partida simple unless a test module overrides it), and
the opening roll from `opening` (alice 3, bob 1 by default: alice starts with 3-1).

After each test that touched the database, every match in it is rebuilt from
its Turn rows alone and compared with the stored state: the turn log is the
truth and the snapshot must agree with it, for every game the suite plays.

Django is imported only inside the fixtures, so `pytest tests/engine` runs
where Django is not installed at all (`make test-engine`).
"""

import secrets
import sys

import pytest

# The plain helpers (Persona, START, current_match, ...) are in tests/helpers.py,
# which imports Django: the fixtures below import it when they run.


@pytest.fixture(autouse=True)
def _no_outage_left_over():
    """A service one test saw failing (games.lib.outage) is not skipped in the next."""
    yield
    outage = sys.modules.get("games.lib.outage")  # not imported by the engine's tests
    if outage is not None:
        outage.reset_all()


@pytest.fixture(autouse=True)
def _every_match_replays(request):
    marker = request.node.get_closest_marker("django_db")
    names = set(request.fixturenames)
    if marker is None and not names & {"db", "transactional_db"}:
        yield
        return
    transactional = "transactional_db" in names or (marker and marker.kwargs.get("transaction"))
    # Ask for the database here so it is torn down after this check runs.
    request.getfixturevalue("transactional_db" if transactional else "db")
    yield
    from games.models import Match
    from games.selectors import replay_match

    for match in Match.objects.select_related("room"):
        replayed = replay_match(match)
        assert replayed.to_json() == match.state, f"{match} does not replay to its stored state"
    if transactional:
        # The database cache's table is no model's, so the flush after a
        # transactional test leaves it: its counts (the limits, the mail a day
        # to one address) would reach the next test.
        from django.core.cache import cache

        cache.clear()


@pytest.fixture
def clock():
    """A stopped clock at a fixed Monday morning; `clock.tick(timedelta)` moves it."""
    from games.lib import clock as game_clock
    from tests.helpers import START

    with game_clock.frozen(START) as frozen:
        yield frozen


@pytest.fixture
def dice():
    """Scripted dice: `dice.push((3, 1), (6, 6))`; after the script, fixed seeds."""
    from games.services.dice import ScriptedSource, use

    source = ScriptedSource()
    with use(source):
        yield source


@pytest.fixture
def rules():
    from games.engine import MatchRules

    return MatchRules()


@pytest.fixture
def opening():
    return (3, 1)


@pytest.fixture
def alice(db, clock, dice, rules):
    from games import services
    from tests.helpers import Persona

    seat = services.room_create(
        rules=rules, nickname="alice", email="alice@example.com", email_consent=True
    )
    return Persona("alice", seat=seat, token=seat.token)


@pytest.fixture
def bob(alice, dice, opening):
    from games import services
    from tests.helpers import Persona

    dice.push(opening)
    seat = services.room_join(room=alice.seat.room, nickname="bob", email="bob@example.com")
    alice.refresh()
    return Persona("bob", seat=seat, token=seat.token)


@pytest.fixture
def room(alice, bob):
    """A room with alice and bob seated and the opening roll played."""
    room = alice.seat.room
    room.refresh_from_db()
    return room


@pytest.fixture
def carol(db):
    from tests.helpers import Persona

    return Persona("carol")


@pytest.fixture
def mallory(db):
    from tests.helpers import Persona

    return Persona("mallory", token=secrets.token_urlsafe(24))


@pytest.fixture
def fast_analysis(monkeypatch):
    """The game analysis at bgsage 1-ply (FAST_ANALYSIS): fast; tests/analysis pins the depth."""
    from games.lib import evaluator
    from tests.helpers import FAST_ANALYSIS, FAST_QUICK

    monkeypatch.setattr(evaluator, "SETTINGS", FAST_ANALYSIS)
    monkeypatch.setattr(evaluator, "QUICK", FAST_QUICK)


@pytest.fixture
def full_pass(monkeypatch):
    """Every run is the full pass, whatever the queue (for tests of the full pass's
    verdicts: the games of a match end together, and a backlog would start quick)."""
    from games.services import analysis

    monkeypatch.setattr(analysis, "runs_quick", lambda row: False)


@pytest.fixture
def site_key(settings):
    """The site's VAPID key pair, in the settings; the private key for checking tokens."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from tests.helpers import b64u, point

    key = ec.generate_private_key(ec.SECP256R1())
    raw = key.private_numbers().private_value.to_bytes(32, "big")
    settings.VAPID_PRIVATE_KEY = b64u(raw)
    settings.VAPID_PUBLIC_KEY = b64u(point(key))
    settings.VAPID_SUBJECT = "mailto:mesa@example.com"
    return key


@pytest.fixture
def push_service():
    """A push service on 127.0.0.1 (tests.helpers.PushService)."""
    from tests.helpers import PushService

    service = PushService()
    yield service
    service.close()
