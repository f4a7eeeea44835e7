"""The command line: options parsed, the nodes started, the run driven and reported."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import shutil
import ssl
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import uvloop

import bench.load
from bench import front
from bench.load.options import RESULTS, Options
from bench.load.report import print_report
from bench.load.run import Run
from bench.load.servers import (
    _raise_open_files,
    database_name,
    drop_database,
    live_overrides,
    make_nodes,
    prepare_database,
    settings_env,
    stop_server,
    wait_for_socket,
    wait_until_up,
    web_overrides,
)


def parse(argv: list[str]) -> Options:
    defaults = Options()
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=(bench.load.__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--boards", type=int, default=defaults.boards)
    parser.add_argument("--players", type=int, default=defaults.players)
    parser.add_argument("--readers", type=int, default=defaults.readers)
    parser.add_argument("--spectators-per-room", type=int, default=defaults.spectators_per_room)
    parser.add_argument("--boards-per-idle-room", type=float, default=defaults.boards_per_idle_room)
    parser.add_argument("--duration", "--seconds", type=float, default=defaults.duration)
    parser.add_argument("--warmup", type=float, default=defaults.warmup)
    parser.add_argument("--window", type=float, default=defaults.window)
    parser.add_argument("--rounds", type=int, default=defaults.rounds)
    parser.add_argument("--think", type=float, nargs=2, default=defaults.think)
    parser.add_argument("--server", choices=("wsgi", "live"), default=defaults.server)
    parser.add_argument("--nodes", type=int, choices=(1, 2), default=defaults.nodes)
    parser.add_argument("--keep-files", action="store_true")
    parser.add_argument("--live-workers", type=int, default=defaults.live_workers)
    parser.add_argument("--live-pool", type=int, default=defaults.live_pool)
    parser.add_argument("--web-workers", type=int, default=defaults.web_workers)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--pool", type=int, default=defaults.pool, help="DB_POOL_MAX; 0 = off")
    parser.add_argument("--no-state-cache", dest="state_cache", action="store_false")
    parser.add_argument("--no-live-pass", dest="live_pass", action="store_false")
    parser.add_argument(
        "--long-poll", action="store_true", help="boards wait by the fallback (held by uvicorn)"
    )
    parser.add_argument("--port", type=int, default=defaults.port)
    parser.add_argument("--database-url", default=defaults.database_url)
    parser.add_argument("--redis-url", default=defaults.redis_url)
    parser.add_argument("--server-cores", default=defaults.server_cores)
    parser.add_argument("--client-cores", default=defaults.client_cores)
    parser.add_argument("--still", type=float, default=defaults.still)
    parser.add_argument("--grace", type=float, default=defaults.grace)
    parser.add_argument("--open-rate", type=float, default=defaults.open_rate)
    parser.add_argument(
        "--reload-nginx-at",
        dest="reload_at",
        type=float,
        default=defaults.reload_at,
        help="reload every node's nginx (SIGHUP) this many seconds into the players' phase",
    )
    parser.add_argument("--profile", default="", help="write the generator's cProfile here")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--output", default="")
    parser.add_argument("--quiet", action="store_true")
    values = vars(parser.parse_args(argv))
    values["think"] = tuple(values["think"])
    return Options(**values)


def run_nodes(options: Options, nodes: list[front.Node]) -> dict[str, Any]:
    """Start every node, wait for each server, drive the run."""
    settings = settings_env(options, nodes)
    sizes: dict[str, str] = {}
    for node in nodes:
        sizes = front.start_node(
            node,
            settings=settings,
            web=web_overrides(options),
            live=live_overrides(options) if options.server == "live" else None,
            live_workers=options.live_workers,
            database_url=options.database_url,
            cores=options.server_cores,
            boards=options.boards,
            # The long poll holds an upstream connection a board too.
            per_board=2 if options.long_poll else 1,
        )
    context = ssl.create_default_context()
    for node in nodes:
        context.load_verify_locations(cafile=str(node.folder / "cert.pem"))
    for node in nodes:
        log = node.folder / "logs" / "servers.log"
        if "uvicorn" in node.processes:
            socket = Path(node.run_path("/run/mesa-live/uvicorn.sock"))
            asyncio.run(wait_for_socket(socket, node.processes["uvicorn"], log))
        asyncio.run(wait_until_up(node.base + "/healthz", node.processes, log, context))
        if node.reference:
            asyncio.run(wait_until_up(node.reference + "/ref/-", node.processes, log, context))
    run = Run(options, nodes, context)
    run.sizes = sizes
    servers = {
        process.pid: f"{node.folder.name} {name}"
        for node in nodes
        for name, process in node.processes.items()
    }
    profile = cProfile.Profile() if options.profile else None
    if profile is not None:
        profile.enable()
    gc.callbacks.append(run.time_full_collections)
    try:
        # uvloop: the generator's one core goes to the boards, not to asyncio's own
        # loop, and a TLS connection costs no zeroed 256 KB read buffer (asyncio's
        # sslproto: 2.5 GB for 10,000 boards).
        return uvloop.run(run.drive(servers))
    finally:
        gc.callbacks.remove(run.time_full_collections)
        gc.unfreeze()  # what drive() froze
        if profile is not None:
            profile.disable()
            profile.dump_stats(options.profile)


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    _raise_open_files()
    cores = {int(core) for core in options.client_cores.split(",")}
    if hasattr(os, "sched_setaffinity") and cores <= set(range(os.cpu_count() or 1)):
        os.sched_setaffinity(0, cores)
    created = prepare_database(options)
    folder = Path(tempfile.mkdtemp(prefix="mesa-load-"))
    nodes = make_nodes(options, folder)
    failed = True  # until the run reports otherwise: a run that failed keeps its logs
    try:
        report = run_nodes(options, nodes)
        failed = bool(report["failures"]) or not report["nothing_lost"]["ok"]
    finally:
        for node in nodes:
            for process in reversed(node.processes.values()):  # nginx first
                stop_server(process)
        if created:
            drop_database(options)
        else:
            print(f"{database_name(options.database_url)}: there before the run, kept")
        if options.keep_files or failed:
            print(f"the nodes' configs and logs: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print_report(report)
    path = (
        Path(options.output)
        if options.output
        else RESULTS / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2))
    print(f"report: {path}")
    return 0 if report["nothing_lost"]["ok"] and not report["failures"] else 1
