"""Django's session middleware, minus one cleanup that loses seats.

Binding a seat cycles the session key (games.web.seats.remember_seat), and
the old key is deleted at once. The same browser may still have a request in
flight with that old key: above all the board's long poll, which reads the
session only when the room moves, up to 45 seconds later. Django finds no
session for the old key and answers with "delete the session cookie"; the
browser, which by then holds the new key, drops it, and every seat with it.

A session that arrived with a key the store does not know and that the request
never changed is left alone here: its cookie is not ours to clear, because the
browser may hold a newer one. Logging out still clears it (flush() marks the
session modified), and an unknown key keeps giving an empty session, never
someone else's.

Saving the session is the last thing a request does, after the view
committed its move: a session store that is away then (the database between
the commit and here, a cache-held session with Redis down) must not turn the
saved move's answer into an error. The answer goes out as it is, without the
cookie of a session that was not saved, and one line is logged
(games.lib.outage), not a traceback per request. What the session was to
remember is lost (a seat just bound: its private link still holds it).
"""

import logging

from django.contrib.sessions.exceptions import SessionInterrupted
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from games.lib.outage import Outage

log = logging.getLogger(__name__)
store_outage = Outage("the session store", log, meanwhile="answered without saving the session")


class SessionMiddleware(DjangoSessionMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        session = getattr(request, "session", None)
        if session is not None and not session.modified and session.is_empty():
            if session.accessed:
                patch_vary_headers(response, ("Cookie",))
            return response
        try:
            return super().process_response(request, response)
        except SessionInterrupted:
            raise  # deleted meanwhile by a log-out elsewhere: Django's 400
        except (DatabaseError, RuntimeError) as error:  # the database; the cache's "cannot create"
            store_outage.failed(error)
            patch_vary_headers(response, ("Cookie",))
            return response
