"""games.web.sessions: Django's database sessions, read by a query compiled once,
find what Django's own store finds: a live session's data, nothing for an
expired or unknown key (the key dropped, as Django drops it), in one query."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.web import sessions

pytestmark = pytest.mark.django_db


def loaded(store_class, key):
    store = store_class(session_key=key)
    data = store.load()
    return data, store.session_key


def test_it_is_the_default_store():
    assert settings.SESSION_ENGINE == "games.web.sessions"
    assert issubclass(sessions.SessionStore, db.SessionStore)


def test_a_live_session_reads_as_djangos_store_reads_it():
    saved = sessions.SessionStore()
    saved["mesa_seats"] = {"sala": "ficha-ñ"}
    saved.save()
    with CaptureQueriesContext(connection) as queries:
        ours = loaded(sessions.SessionStore, saved.session_key)
    assert len(queries.captured_queries) == 1
    assert ours == loaded(db.SessionStore, saved.session_key)
    assert ours == ({"mesa_seats": {"sala": "ficha-ñ"}}, saved.session_key)


@pytest.mark.parametrize("age", [timedelta(seconds=1), timedelta(days=400)])
def test_an_expired_session_is_not_found(age):
    store = sessions.SessionStore()
    store["mesa_seats"] = {"sala": "x"}
    store.save()
    Session.objects.filter(pk=store.session_key).update(expire_date=timezone.now() - age)
    assert loaded(sessions.SessionStore, store.session_key) == ({}, None)
    assert loaded(db.SessionStore, store.session_key) == ({}, None)


def test_an_unknown_key_and_a_cycled_one_are_not_found():
    assert loaded(sessions.SessionStore, "a" * 32) == ({}, None)
    store = sessions.SessionStore()
    store["n"] = 1
    store.save()
    old = store.session_key
    store.cycle_key()  # binding a seat does this: the old key goes at once
    assert loaded(sessions.SessionStore, old) == ({}, None)
    assert loaded(sessions.SessionStore, store.session_key) == ({"n": 1}, store.session_key)


def test_a_player_keeps_their_seat_through_the_store(room, alice, carol):
    """The store under the site: alice's session finds her seat; carol's none."""
    from tests.helpers import bind, state_url

    bind(alice, room)
    assert alice.client.get(state_url(room)).json()["viewer"]["seat"] == 1
    assert carol.client.get(state_url(room)).json()["viewer"]["seat"] is None
