# What Mesa calls of pywebpush (games/mail/push.py); stubtest checks it against the package.
from collections.abc import Mapping
from typing import Any

import requests

# py_vapid ships no types either; Mesa passes the key as a string.
Vapid = Any

class WebPushException(Exception):
    message: str
    response: requests.Response | None
    def __init__(self, message: str, response: requests.Response | None = None) -> None: ...

def webpush(
    subscription_info: Mapping,
    data: None | str = None,
    vapid_private_key: None | Vapid | str = None,
    vapid_claims: None | dict[str, str | int] = None,
    content_encoding: str = "aes128gcm",
    curl: bool = False,
    timeout: None | float = None,
    ttl: int = 0,
    verbose: bool = False,
    headers: None | dict[str, str | int | float] = None,
    requests_session: None | requests.Session = None,
) -> str | requests.Response: ...
