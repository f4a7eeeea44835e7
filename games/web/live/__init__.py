"""Live updates, the waiting side: a held ``?wait=`` request as a coroutine.

Under an ASGI server (uvicorn, config/asgi.py) `LiveWaits` holds a board's
``GET /api/rooms/<slug>/?wait=<version>`` in front of Django: no thread, no
database connection, no session read while it waits. When the room moves,
a board whose pass says who it is (games.web.live_pass: signed by Django for
this very request) is answered from the room's new state for its role and
language, read once in this process for all the boards of that role and
language (fanout); any other goes on to Django without ``wait=``, and
games.web.api.room_state answers the state at once. Either way with its
ETag (304 when this viewer's state did not change), so the board's contract
and every private part of the state stay as they are. When the wait runs
out with the room where it was (the fate of nearly every wait), the
database confirms it and the board's own ETag is answered 304 here, without
Django, provided the ETag names the room's state serial the wait started
from (nothing changed between the board's last answer and this wait) and
says the clock changes nothing it shows before now (games.web.etags). A
board whose ETag names an older serial is answered at once, as after a move.
Under WSGI (gunicorn, runserver, the test client) nothing here runs: the
view long-polls the database in a thread (games.web.longpoll), which is
also where nginx sends the waits when the ASGI server is away.

- middleware: the ASGI application, `LiveWaits`
- waits: one held wait, from the board's version to an answer
- hub: this event loop's Redis subscription and the waiters it wakes
- database: the pulses the waits read, those ending together in one query
- fanout: a room's woken boards answered from one state per role and language
"""

from games.web.live.middleware import LiveWaits

__all__ = ["LiveWaits"]
