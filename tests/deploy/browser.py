"""One person's browser for the tests behind nginx: cookies kept, CSRF sent."""

from __future__ import annotations

import json
from http.cookies import SimpleCookie
from typing import Any, Protocol

from .conftest import HOST


class Node(Protocol):
    """Anything that answers a request through nginx: (status, headers, body)."""

    def request(
        self, method: str, path: str, *, headers: Any = None, body: Any = None, timeout: float = 20
    ) -> tuple[int, dict[str, str], bytes]: ...


class Browser:
    """One person's cookies, on whichever node they ask."""

    def __init__(self) -> None:
        self.cookies = SimpleCookie()

    def request(self, node: Node, method, path, *, headers=None, body=None, timeout=20):
        sent = {**(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={m.value}" for k, m in self.cookies.items())
        status, answer, content = node.request(
            method, path, headers=sent, body=body, timeout=timeout
        )
        for name, value in answer.items():
            if name.lower() == "set-cookie":
                self.cookies.load(value)
        return status, answer, content

    def sit(self, node: Node, slug: str, token: str) -> None:
        status, _headers, _body = self.request(node, "GET", f"/mesa/{slug}/asiento/{token}/")
        assert status == 302, status
        self.request(node, "GET", "/")  # the CSRF cookie

    def post(self, node: Node, path: str, body: dict):
        token = self.cookies["csrftoken"].value
        headers = {
            "Content-Type": "application/json",
            "X-CSRFToken": token,
            "Origin": f"https://{HOST}",
            "Referer": f"https://{HOST}/",
        }
        return self.request(node, "POST", path, headers=headers, body=json.dumps(body))
