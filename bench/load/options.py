"""What a `make load` run is asked for, and the constants its parts share."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
VENV_BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "results"

# This checkout's own resources (the team's table): ports 19100-19199, Redis db 2.
DEFAULT_PORT = 19100
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/mesa_load"
DEFAULT_REDIS = "redis://127.0.0.1:6379/2"

# The two GETs compared: a spectator's room state, and the bare-Django reference.
NAMES = ("state", "reference")
HELD = 3.0  # poll.js: an answer that took this long was held by the server
# After a reload of nginx: the boards' minute on the long poll (channel.js's
# REST_MS) and their way back to the channels. Moves in it are reported apart.
RELOAD_SPAN = 75.0
# The generator's own lag (a timer woken late) beyond which its latencies are its own.
VOID_LAG_MS = 100.0
LAG_TICK = 0.05  # the lag probe's timer


@dataclass
class Options:
    boards: int = 2000
    players: int = 50
    readers: int = 20
    duration: float = 150.0
    think: tuple[float, float] = (2.0, 5.0)
    warmup: float = 20.0
    window: float = 10.0  # each throughput window
    # The state's and the reference's windows taken in turn, this many times each: more
    # and shorter ones when the machine's load moves (both see the same moments).
    rounds: int = 2
    throughput_clients: int = 8
    seated_share: float = 0.1
    spectators_per_room: int = 4  # boards on each room being played, besides its players
    boards_per_idle_room: float = 2.5  # the other boards, on rooms where nobody moves
    english_share: float = 0.2
    server: str = "live"  # live: gunicorn and uvicorn, as the kit; wsgi: gunicorn alone
    nodes: int = 1  # 2: boards wait on the first node, players act on the second
    # None: the units' own (deploy/systemd/mesa-web.service, mesa-live.service).
    web_workers: int | None = None
    live_workers: int | None = None
    live_pool: int | None = None
    threads: int | None = None  # None: config/gunicorn.conf.py's
    pool: int | None = None
    state_cache: bool = True
    # False: the boards never send their live pass back, so every woken board goes
    # through Django as before the shared wake-up (games.web.live.fanout): its A/B.
    live_pass: bool = True
    long_poll: bool = False  # the boards wait by the fallback, not on nginx's channels
    port: int = DEFAULT_PORT  # node n: nginx on port+10n (HTTPS), +1 (HTTP), +2 (reference)
    keep_files: bool = False  # the nodes' folders (logs, configs) kept after the run
    database_url: str = DEFAULT_DATABASE
    redis_url: str = DEFAULT_REDIS
    server_cores: str = "0"  # the servers' cores (taskset)
    client_cores: str = "1"  # the generator's, apart from them, at the same priority
    # Once the boards are open, this long with nobody moving: what waiting boards
    # alone cost the node (each wait held 21-25 s, then renewed).
    still: float = 15.0
    grace: float = 40.0  # after the players stop, for the boards to catch up
    # Boards opened a second (each one's first state GET is Django's): 2,000 boards
    # opened at this rate in every run before, 10,000 at 1,000/s, a herd of page
    # loads no server core answers (docs/LOAD.md); --open-rate 1000 is that herd.
    open_rate: float = 200.0
    # Seconds into the players' phase at which every node's nginx is reloaded
    # (SIGHUP to its master: `systemctl reload nginx` after certbot renews a
    # certificate). None: never.
    reload_at: float | None = None
    profile: str = ""  # a path: the generator's cProfile (pstats) written there
    seed: int = 19
    quiet: bool = False
    output: str = ""  # the JSON report's path; empty: bench/results/load-<time>.json
