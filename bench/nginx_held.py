"""nginx's memory a held wait, as `make load`'s boards hold them and as browsers do.

    python -m bench.nginx_held [--waits 2000] [--tabs 12] [--settle 20] [--nchan]

nginx is rendered from deploy/nginx/mesa.conf.template (bench/front.py, as
`make load` renders it) in front of two unix sockets that accept and never
answer, in place of uvicorn and gunicorn: every board's `GET
/api/rooms/<slug>/?wait=` is held until nginx's own timeout, and nothing
but nginx grows. h2load (Debian's nghttp2-client) makes the requests, with a
browser's headers (cookies, If-None-Match, X-Mesa-Pass), in two shapes:

- HTTP/1.1, one TLS connection a wait: what `make load`'s boards do (aiohttp
  speaks HTTP/1.1 only);
- HTTP/2, --tabs waits on one TLS connection: what one person's tabs do, a
  browser carrying all of them over one connection to the template's
  `http2` listen.

It prints the workers' RSS before the waits and --settle seconds into them,
and the difference a held wait. uvicorn's share of a board is not in it:
nginx speaks HTTP/1.1 to its upstreams, one connection a held wait, in both
shapes, so that share is `make load`'s (and bench/live_held.py's).

Those are the fallback's waits (the long poll, held upstream). --nchan also
measures the boards' own: each held by nginx itself, an nchan long-poll
subscriber (Debian's libnginx-mod-nchan) of its room's channel at the
template's /live/rooms/<slug>, with no upstream connection and no live
server behind it.
"""

from __future__ import annotations

import argparse
import http.client
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.front import HOST, NGINX, Node, write_nginx
from bench.load.servers import children, rss_kb
from tests.deploy.nginxconf import NCHAN_MODULE

# --nchan: nchan's count of the waits it holds, beside the template's locations.
NCHAN_STATUS = """
    location = /.nchan-status { nchan_stub_status; }
"""

# A browser's state request to the API, as api.js sends it (about 1.2 KB with its cookies).
HEADERS = {
    "Accept": "application/json",
    "Accept-Language": "es",
    "Cookie": f"sessionid={'s' * 32}; csrftoken={'c' * 32}; django_language=es",
    "If-None-Match": f'"{"e" * 64}"',
    "X-Mesa-Pass": "p" * 160,
}


@dataclass(frozen=True)
class Held:
    shape: str
    waits: int
    connections: int
    held: int  # the waits held upstream, or by nchan (all of them, or the figure says less)
    before_kb: int
    during_kb: int

    @property
    def kb_a_wait(self) -> float:
        return (self.during_kb - self.before_kb) / self.waits

    def line(self) -> str:
        return (
            f"{self.shape}: {self.waits} waits on {self.connections} TLS connections, "
            f"{self.held} held; nginx's workers {self.before_kb} -> "
            f"{self.during_kb} KB: {self.kb_a_wait:.1f} KB a held wait"
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def workers_kb(pids: list[int]) -> int:
    return sum(rss_kb(pid) or 0 for pid in pids)


class Silent:
    """A unix socket that accepts every connection and never answers."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(str(path))
        self.listener.listen(16384)
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _address = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self) -> None:
        for connection in self.held:
            connection.close()
        self.listener.close()


def subscribers(node: Node) -> int:
    """How many waits nchan holds, by its own count (nchan_stub_status)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", node.https_port, context=context)
    try:
        connection.request("GET", "/.nchan-status", headers={"Host": HOST})
        status = connection.getresponse().read().decode()
    finally:
        connection.close()
    found = re.search(r"^subscribers: (\d+)$", status, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"nchan's status says nothing of its subscribers: {status!r}")
    return int(found[1])


def with_nchan_status(conf: Path) -> None:
    """The rendered site of `conf`, with nchan's status page in the site's server."""
    site = conf.parent / "mesa.conf"
    text = site.read_text()
    location = "    location /static/ {"
    if text.count(location) != 1:
        raise RuntimeError("the template's static location, where the status goes, is not there")
    site.write_text(text.replace(location, NCHAN_STATUS.lstrip("\n") + location))


def measure(waits: int, tabs: int, http2: bool, settle: float, nchan: bool = False) -> Held:
    with tempfile.TemporaryDirectory(prefix="mesa-nginx-held-") as where:
        folder = Path(where)
        node = Node(folder, free_port(), free_port(), None, free_port())
        (folder / "logs").mkdir()
        live = Silent(Path(node.run_path("/run/mesa-live/uvicorn.sock")))
        web = Silent(Path(node.run_path("/run/mesa/gunicorn.sock")))
        conf = write_nginx(node, live=True, boards=waits, per_board=1 if nchan else 2)
        if nchan:
            with_nchan_status(conf)
        master = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
            stderr=subprocess.DEVNULL,
        )
        load = None
        try:
            workers: list[int] = []
            while not workers and master.poll() is None:
                time.sleep(0.2)
                workers = children(master.pid)
            time.sleep(0.5)
            before = workers_kb(workers)
            connections = -(-waits // tabs) if http2 else waits
            argv = ["h2load", "-n", str(waits), "-c", str(connections), "-T", "120"]
            argv += ["-m", str(tabs)] if http2 else ["--h1", "-m", "1"]
            for name, value in HEADERS.items():
                argv += ["-H", f"{name}: {value}"]
            if nchan:  # static/js/channel.js's wait: no ETag or pass, nchan's own answer
                argv.append(f"{node.base}/live/rooms/abcdefghijklmnop")
            else:
                argv.append(f"{node.base}/api/rooms/abcdefghijklmnop/?wait=3")
            load = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(settle)
            during = workers_kb(workers)
            shape = f"HTTP/2, {tabs} tabs a connection" if http2 else "HTTP/1.1"
            if nchan:
                shape += ", held by nchan"
            held = subscribers(node) if nchan else len(live.held) + len(web.held)
            return Held(shape, waits, connections, held, before, during)
        finally:
            if load is not None:
                load.kill()
                load.wait()
            master.terminate()
            master.wait()
            live.close()
            web.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waits", type=int, default=2000)
    parser.add_argument("--tabs", type=int, default=12, help="waits on one HTTP/2 connection")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds before measuring")
    parser.add_argument("--nchan", action="store_true", help="also the channels' waits (nchan)")
    options = parser.parse_args(argv)
    if shutil.which("h2load") is None:
        print("h2load is missing: apt-get install nghttp2-client")
        return 2
    if not NCHAN_MODULE.exists():
        print("nchan is missing: apt-get install libnginx-mod-nchan")
        return 2
    for nchan in (False, True) if options.nchan else (False,):
        for http2 in (False, True):
            held = measure(options.waits, options.tabs, http2, options.settle, nchan)
            print(held.line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
