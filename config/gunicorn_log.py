"""gunicorn's access log with the real client address and no secrets.

`%(h)s` is the client address decided as the app decides it (accounts.client,
TRUSTED_PROXIES from the environment), not the proxy's; every text atom of the
line (the request line, path, query, referer, headers) has its private-link
tokens masked (config.logmask).
"""

from __future__ import annotations

import os
from typing import Any

from gunicorn.glogging import Logger

from accounts.client import client_address_of_meta
from config.logmask import mask


class AccessLogger(Logger):  # type: ignore[misc]  # gunicorn ships no types
    def atoms(
        self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any
    ) -> dict[str, Any]:
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["h"] = client_address_of_meta(environ, os.environ.get("TRUSTED_PROXIES", "")) or "-"
        return {
            key: mask(value) if isinstance(value, str) else value for key, value in atoms.items()
        }
