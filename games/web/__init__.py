"""The web layer: pages, the JSON API and what serves them. Thin: parse, call
a service or a selector, render or answer JSON.

Django reaches it by dotted path (config/urls.py, config/settings): urls,
http_errors (handler400..500), views.csrf_failure, context_processors,
session_middleware, and signals (connected in games.apps). Nothing below
the web imports it, so it re-exports nothing.

- views, archive, review: the pages (the board, the archive, the review)
- api: the JSON endpoints; actions: the action table both share
- forms, presenters: form input and the state shaped for templates
- seats: who is asking (the seat a browser holds); signals: a log-in claims them
- throttle, http_errors, longpoll, context_processors, session_middleware
"""

__all__: list[str] = []
