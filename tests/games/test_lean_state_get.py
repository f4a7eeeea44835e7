"""The state GET's short way through the middleware (games.web.lean): the same answer,
header for header, as through the site's whole stack, for a spectator and a
player, in either language, from the cookie or the browser's, on a 304, a HEAD, a
404 and a database away; and without the work it does not need: no URL resolver,
no CSRF cookie read, no messages, one query on a spectator's cache hit, and no
Set-Cookie.

alice holds seat 1 in her browser (her session); carol watches.
"""

import pytest
from django.conf import settings as django_settings
from django.core import signing
from django.db import OperationalError
from django.urls import Resolver404, resolve, reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from games.web import lean, live_pass, state_cache
from tests.helpers import bind, count_queries, state_url


@pytest.fixture(autouse=True)
def _empty_cache():
    state_cache.clear()
    yield
    state_cache.clear()


def answer(response) -> tuple[int, dict[str, str], bytes]:
    """The response's status, headers and body; the live pass by what it signs, since
    its signature carries the second it was made in and two calls may straddle one."""
    headers = dict(response.headers)
    if live_pass.HEADER in headers:
        headers[live_pass.HEADER] = signing.TimestampSigner(salt=live_pass.SALT).unsign(
            headers[live_pass.HEADER]
        )
    return response.status_code, headers, response.content


def both_ways(settings, call):
    """(through the whole stack, the short way): the answer of `call()` each way."""
    settings.MESA_LEAN_STATE_GET = False
    whole = call()
    settings.MESA_LEAN_STATE_GET = True
    lean = call()
    assert lean.wsgi_request.resolver_match is None  # the short way was taken
    assert whole.wsgi_request.resolver_match is not None
    return answer(whole), answer(lean)


@pytest.mark.parametrize("language", ["es", "en"])
def test_a_spectator_and_a_player_get_the_same_answer_either_way(
    settings, room, alice, carol, language
):
    bind(alice, room)
    url = state_url(room)
    for persona in (carol, alice):
        client = persona.client

        def get(client=client):
            return client.get(url, HTTP_ACCEPT_LANGUAGE=language)

        get()  # computed and kept: both ways below are hits
        whole, lean = both_ways(settings, get)
        assert whole == lean
        assert lean[0] == 200 and lean[1]["Content-Language"] == language
        assert lean[1]["Content-Length"] == str(len(lean[2]))
        # A 304 for the ETag the board holds, either way.
        etag = lean[1]["ETag"]

        def again(client=client, etag=etag):
            return client.get(url, HTTP_IF_NONE_MATCH=etag, HTTP_ACCEPT_LANGUAGE=language)

        whole, lean = both_ways(settings, again)
        assert whole == lean and lean[0] == 304

        def head(client=client):
            return client.head(url, HTTP_ACCEPT_LANGUAGE=language)

        whole, lean = both_ways(settings, head)
        assert whole == lean and lean[0] == 200


def test_the_seat_is_the_players_own_the_short_way(settings, room, alice, carol):
    bind(alice, room)
    mine = alice.client.get(state_url(room)).json()
    theirs = carol.client.get(state_url(room)).json()
    assert mine["viewer"]["seat"] == 1 and theirs["viewer"]["seat"] is None


def test_the_language_cookie_wins_over_the_browsers_language(settings, room, carol):
    carol.client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"

    def get():
        return carol.client.get(state_url(room), HTTP_ACCEPT_LANGUAGE="es")

    whole, lean = both_ways(settings, get)
    assert whole == lean and lean[1]["Content-Language"] == "en"


@pytest.mark.parametrize("accept", ["en-GB,en;q=0.9", "fr-FR, de;q=0.5", "es-AR", ""])
def test_a_browsers_regional_or_unknown_language_is_chosen_the_same(settings, room, carol, accept):
    def get():
        return carol.client.get(state_url(room), HTTP_ACCEPT_LANGUAGE=accept)

    whole, lean = both_ways(settings, get)
    assert whole == lean and lean[1]["Vary"] == "Cookie, Accept-Language"


def test_the_url_conf_has_no_language_prefixed_urls():
    """lean.PlainLocale is Django's LocaleMiddleware without i18n_patterns' prefixes:
    true only while the site's URL conf has none."""
    from django.conf.urls.i18n import is_language_prefix_patterns_used

    assert is_language_prefix_patterns_used(django_settings.ROOT_URLCONF) == (False, False)


def test_no_such_room_and_a_database_away_answer_the_same(settings, room, carol, monkeypatch):
    def missing():
        return carol.client.get("/api/rooms/no-such-room/")

    whole, lean = both_ways(settings, missing)
    assert whole == lean and lean[0] == 404

    def broken(*args, **kwargs):
        raise OperationalError("the database went away")

    monkeypatch.setattr("games.web.state_cache.room_head", broken)

    def away():
        return carol.client.get(state_url(room))

    whole, lean = both_ways(settings, away)
    assert whole == lean and lean[0] == 503


def test_a_spectators_hit_is_one_query_and_sets_no_cookie(room, alice, carol):
    bind(alice, room)
    url = state_url(room)
    carol.client.get(url)
    # A spectator who once opened a page: a CSRF cookie and a session of no seat.
    carol.client.cookies["csrftoken"] = "x" * 32
    assert count_queries(carol.client, url) == 1
    response = carol.client.get(url)
    assert response.status_code == 200 and not response.cookies
    request = response.wsgi_request
    assert "CSRF_COOKIE" not in request.META and not hasattr(request, "_messages")
    # A player's hit: her session, then the seats with the stamp; nothing written.
    alice.client.get(url)
    assert count_queries(alice.client, url) == 2
    assert not alice.client.get(url).cookies


def test_every_other_request_takes_the_whole_stack(room, carol):
    """A long poll (?wait=), a POST, another room URL: resolved as always."""
    url = state_url(room)
    version = carol.client.get(url).json()["version"]
    waited = carol.client.get(url, {"wait": version - 1})
    assert waited.status_code == 200 and waited.wsgi_request.resolver_match is not None
    posted = carol.client.post(url)
    assert posted.status_code in (403, 405)
    assert posted.wsgi_request.resolver_match is not None
    steps = carol.client.get(url + "steps")
    assert steps.wsgi_request.resolver_match is not None


def test_a_changed_content_security_policy_is_followed(settings, room, carol):
    """The short way builds the CSP header once: anew when its settings change."""
    url = state_url(room)
    carol.client.get(url)
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    whole, lean = both_ways(settings, lambda: carol.client.get(url))
    assert whole == lean and lean[1]["Content-Security-Policy"] == "default-src 'none'"
    settings.CONTENT_SECURITY_POLICY = {
        "DIRECTIVES": {"default-src": ["'self'"]},
        "EXCLUDE_URL_PREFIXES": ["/api/"],
    }
    whole, lean = both_ways(settings, lambda: carol.client.get(url))
    assert whole == lean and "Content-Security-Policy" not in lean[1]


def test_the_heads_seats_are_the_orms_own_column_for_column(room, alice):
    """games.selectors.stamp reads its one query with a plain cursor: each seat's
    HEAD_SEAT_FIELDS as the ORM loads them (SQLite's dates converted too), the rest
    deferred, the seats in order, the asker's found."""
    from games.models import Seat
    from games.selectors.stamp import HEAD_SEAT_FIELDS, ROOM_COLUMNS, room_head

    bind(alice, room)
    alice.client.get(state_url(room))  # her last_seen_at: a date to convert
    head = room_head(room.slug, token=alice.token)
    orm = list(Seat.objects.filter(room=room).order_by("number"))
    assert [seat.pk for seat in head.seats] == [seat.pk for seat in orm]
    assert [seat.number for seat in head.seats] == [1, 2]
    for mine, theirs in zip(head.seats, orm, strict=True):
        deferred = {field.attname for field in Seat._meta.concrete_fields} - HEAD_SEAT_FIELDS
        assert mine.get_deferred_fields() == deferred
        for name in HEAD_SEAT_FIELDS:
            assert getattr(mine, name) == getattr(theirs, name), name
        assert not mine._state.adding and mine._state.db == theirs._state.db
    assert head.viewer is not None and head.viewer.pk == alice.seat.pk
    assert head.viewer.last_seen_at is not None and head.viewer.user_id == alice.seat.user_id
    room.refresh_from_db()
    assert head.room == tuple(head.room) and len(head.room) == len(ROOM_COLUMNS)
    assert head.room[0] == room.slug and head.room[2] == room.state_serial
    assert room_head("no-such-room") is None


# The short way recognises the state GET by its own pattern, beside the URL conf's
# route: if the route moved or its converter changed, the two would part silently.
# Both must pick out the same paths.
_SEGMENT = st.text(alphabet=st.sampled_from("abcXYZ019-_./%é "), min_size=0, max_size=40)


@given(
    prefix=st.sampled_from(["/api/rooms/", "/api/room/", "/api/rooms//", "/mesa/", "/"]),
    slug=_SEGMENT,
    suffix=st.sampled_from(["/", "", "/join", "//", "/?"]),
)
@hypothesis_settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_the_short_way_takes_exactly_the_paths_the_url_conf_routes_to_the_state(
    prefix, slug, suffix
):
    path = f"{prefix}{slug}{suffix}"
    try:
        routed = resolve(path).view_name == "games:api_state"
    except Resolver404:
        routed = False
    assert bool(lean.STATE_PATH.match(path)) == routed, path


def test_the_state_url_the_site_builds_takes_the_short_way(room):
    assert lean.STATE_PATH.match(reverse("games:api_state", args=[room.slug]))
