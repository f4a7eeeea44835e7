"""`make load`: thousands of open boards, a few dozen players, spectators, on real servers.

    python -m bench.load [--boards 2000] [--players 50] [--readers 20] [--duration 150]

It starts its own front (bench/front.py: nginx from the template, gunicorn
and uvicorn as deploy/systemd's units run them; --server wsgi for gunicorn
alone) on PostgreSQL and Redis, with bench/web/settings.py, pinned with
taskset to the server's cores (--server-cores, 0 by default), and drives it
from this process pinned to the others (--client-cores, 1), both at the
priority `make load` was started with: neither side starves the other. The
generator measures its own lag (how late its event loop wakes a timer); a
run whose p99 lag exceeds 100 ms is VOID, as its latencies are partly its
own. Each side's cores and the load average are in the report. The clients
behave as the site's own pages do:

- boards: open and waiting as static/js/board/controller.js waits, with
  static/js/poll.js's rhythm: `GET /api/rooms/<slug>/?wait=<version>` with
  If-None-Match, again at once after a held answer or a change, backing off
  1 s × 1.5 up to 20 s after quick answers with nothing new (the server would
  not hold them). As a club's boards are open: a few on each room where
  people are playing now (--spectators-per-room; one in ten of them a
  player's other tab), and the rest on rooms where nobody moves during the
  run (--boards-per-idle-room, the players' tabs and a spectator's: a
  correspondence player keeps a dozen matches open, most of them waiting
  for the other side).
- players: two guests per room (created and seated through the JSON API),
  each acting as a person does: when the state says it is their turn, a
  think of --think seconds, then the action (`POST /api/rooms/<slug>/actions/
  play` with a legal play the engine finds, `roll`, the rematch at the end).
- readers: spectators reloading the state every few seconds with If-None-Match.
- throughput: in windows in the middle of the run, closed-loop clients GET
  the room state (a spectator's, 200 with its body) and then the reference
  view, alternately, so both are measured in the same conditions. They fill
  the server by design, so the latencies are reported apart for the actions
  and moves that overlapped a window and for the rest of the run.

Once the boards are open, --still seconds (15) pass with nobody moving: what
waiting boards alone cost. For every phase the report gives each server's
CPU (nginx, gunicorn, uvicorn, the bare project, and the machine's
PostgreSQL and Redis) as a share of one core.

At the end it checks that nothing was lost: every acknowledged action is one
Turn row (no more, no less), and every waiting board shows its room's final
version. It prints one report (and writes it as JSON under bench/results/).
A run that failed or lost anything keeps its nodes' folder (nginx's logs).

The package, by job: options.py (what a run is asked for), measure.py (what is
counted), servers.py (the database, the servers' lives and their memory),
clients.py (the browsers, the boards' reads, the players' choices), run.py (the
run itself: seeding, players, boards, readers, throughput, samplers), report.py
(the report built and printed), cli.py (the command line and the nodes' start).
"""

from __future__ import annotations

from bench.load.cli import main, parse, run_nodes
from bench.load.clients import (
    TURN_ACTIONS,
    Browser,
    Seat,
    StateReader,
    choose_play,
    live_poll,
    next_action,
)
from bench.load.measure import (
    Board,
    Move,
    Stats,
    json_or_none,
    percentile,
    server_ms,
    verdict,
)
from bench.load.options import (
    DEFAULT_DATABASE,
    DEFAULT_PORT,
    DEFAULT_REDIS,
    HELD,
    LAG_TICK,
    NAMES,
    RESULTS,
    ROOT,
    VOID_LAG_MS,
    Options,
)
from bench.load.report import print_report, rss_by_role
from bench.load.run import Run
from bench.load.servers import (
    admin_url,
    children,
    database_name,
    drop_database,
    live_overrides,
    make_nodes,
    prepare_database,
    rss_kb,
    settings_env,
    stop_server,
    wait_for_socket,
    wait_until_up,
    web_overrides,
)

__all__ = [
    "DEFAULT_DATABASE",
    "DEFAULT_PORT",
    "DEFAULT_REDIS",
    "HELD",
    "LAG_TICK",
    "NAMES",
    "RESULTS",
    "ROOT",
    "TURN_ACTIONS",
    "VOID_LAG_MS",
    "Board",
    "Browser",
    "Move",
    "Options",
    "Run",
    "Seat",
    "StateReader",
    "Stats",
    "admin_url",
    "children",
    "choose_play",
    "database_name",
    "drop_database",
    "json_or_none",
    "live_overrides",
    "live_poll",
    "main",
    "make_nodes",
    "next_action",
    "parse",
    "percentile",
    "prepare_database",
    "print_report",
    "rss_by_role",
    "rss_kb",
    "run_nodes",
    "server_ms",
    "settings_env",
    "stop_server",
    "verdict",
    "wait_for_socket",
    "wait_until_up",
    "web_overrides",
]
