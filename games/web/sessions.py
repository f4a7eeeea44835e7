"""Django's database sessions, with their read compiled once.

Every request of a browser that holds a seat reads its session (a player's
board included: the state GET finds its seat by the session's token), and
Django's store builds and compiles the same queryset each time: the row by
its key, not yet expired. Here that read is compiled once per connection
(games.selectors.prepared) by the key alone, and the expiry is checked on the
row, against the same clock Django's store uses: the same row found, or none.
Everything else (saving, cycling the key, deleting, clearing the expired
ones) is Django's own. SESSION_ENGINE names this store by default; another
engine (cached_db, say) may still be set from the environment.
"""

from typing import Any

from django.contrib.sessions.backends import db
from django.utils import timezone

from games.selectors.prepared import TEXT_MARKER, prepared


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Any:
        key, model = self.session_key, self.model
        if key is not None:
            rows = prepared(
                ("session by key", model),
                model,
                lambda marked: model.objects.filter(session_key=marked),
                TEXT_MARKER,
            ).instances(key)
            if rows and rows[0].expire_date > timezone.now():
                return rows[0]
        self._session_key = None  # as Django's: a key that is not there is dropped
        return None
