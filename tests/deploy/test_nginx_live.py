"""The held waits' failover in deploy/nginx/mesa.conf.template, read as shipped.

Under load nginx took uvicorn out after a few timed-out waits and then
gunicorn too ("no live upstreams": issue 35). What the template must say so
that it cannot: gunicorn, mesa_live's backup, is never marked down; nor is
a busy uvicorn, whatever its timed-out waits; a wait uvicorn could not
take or answer goes on to gunicorn; the app's own 503 never counts. The
behaviour through a running front (uvicorn away, the app's 503) is
tests/deploy/test_nginx_front.py's.
"""

from __future__ import annotations

import re

from .conftest import ROOT

TEMPLATE = (ROOT / "deploy" / "nginx" / "mesa.conf.template").read_text()


def block(text: str, opening: str) -> str:
    """The body of the last `{ ... }` block that starts with `opening` (comments dropped;
    the last `location / {` is the site's, the first the HTTP redirect's)."""
    text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    text = re.sub(r"\$\{(\w+)\}", r"<\1>", text)  # the template's ${NAME}: no braces
    start = text.rindex(opening)
    depth, i = 0, text.index("{", start)
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j]
    raise AssertionError(f"unclosed block {opening!r}")


def directives(body: str, name: str) -> list[list[str]]:
    """The arguments of each `name ...;` directive directly in `body`."""
    statements = (part.split() for part in body.replace("{", ";").replace("}", ";").split(";"))
    return [words[1:] for words in statements if words[:1] == [name]]


def seconds(text: str) -> float:
    found = re.fullmatch(r"(\d+)(ms|s|m)?", text)
    assert found, text
    value = float(found[1])
    return {"ms": value / 1000, "m": value * 60}.get(found[2] or "s", value)


def servers() -> dict[str, dict[str, str]]:
    upstream = block(TEMPLATE, "upstream mesa_live")
    found = {}
    for address, *options in directives(upstream, "server"):
        found[address] = dict(o.partition("=")[::2] for o in options)
    return found


def test_gunicorn_the_backup_is_never_marked_down():
    backup = servers()["<MESA_UPSTREAM>"]
    assert "backup" in backup
    assert backup["max_fails"] == "0"


def test_late_waits_never_take_uvicorn_out():
    """Any count of failures is a small share of 10,000 boards' waits: twenty in
    10 s took a busy uvicorn out and sent every board to gunicorn at once
    (docs/LOAD.md). A stopped uvicorn needs no marking: its socket refuses at once."""
    live = servers()["<MESA_LIVE_UPSTREAM>"]
    assert "backup" not in live
    assert live.get("max_fails") == "0", live


def test_a_wait_uvicorn_cannot_take_goes_to_gunicorn_and_the_apps_503_never_counts():
    site = block(TEMPLATE, "location / {")
    assert directives(site, "proxy_pass") == [["http://$mesa_upstream"]]
    (conditions,) = directives(site, "proxy_next_upstream")
    assert set(conditions) == {"error", "timeout"}, conditions
    ((read,),) = directives(site, "proxy_read_timeout")
    from games.web.live import waits

    # Above the board's longest wait (uvicorn's), below gunicorn's own timeout (60 s).
    assert waits.WAIT_SECONDS < seconds(read) < 60
    routes = block(TEMPLATE, 'map "$request_method $uri $arg_wait" $mesa_upstream')
    assert '"~^(GET|HEAD) /api/rooms/[^/]+/ ." mesa_live' in routes
