"""`make chaos`'s command line: start everything, run the scenarios, print the table,
stop everything."""

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import scripts.chaos
from scripts.chaos.env import (
    HTTP,
    PG,
    PUSH,
    REDIS,
    ROOT,
    SETTINGS,
    SMTP,
    STARTED,
    WEB,
    log,
    wait_until,
)
from scripts.chaos.mailserver import MailServer
from scripts.chaos.players import site_up
from scripts.chaos.processes import (
    Postgres,
    Processes,
    beat,
    live_up,
    port_open,
    start_analysis_worker,
    start_bots_worker,
    start_live,
    start_mail_worker,
    start_nginx,
    start_redis,
    start_sweeps_worker,
    start_web,
)
from scripts.chaos.pushserver import PushServer
from scripts.chaos.report import Report, analysis_lateness, print_table, replays_clean
from scripts.chaos.scenarios import SCENARIOS


def main() -> int:
    parser = argparse.ArgumentParser(description=scripts.chaos.__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated: " + ", ".join(SCENARIOS))
    chosen = [name for name in parser.parse_args().only.split(",") if name] or list(SCENARIOS)
    unknown = set(chosen) - set(SCENARIOS)
    if unknown:
        parser.error(f"no such scenario: {', '.join(sorted(unknown))}")
    for port in (WEB, REDIS, SMTP, PG, HTTP, PUSH):
        if port_open(port):
            print(f"port {port} is taken: is another chaos run going?", file=sys.stderr)
            return 2
    folder = Path(tempfile.mkdtemp(prefix="mesa-chaos-"))
    processes = Processes(folder)
    pg = Postgres(folder)
    mail = MailServer()
    mail.push = PushServer(mail.inbox)
    matches = bad = 0
    try:
        log(f"logs in {folder}")
        SETTINGS["MESA_WORKER_HEARTBEAT_DIR"] = str(folder / "heartbeats")
        pg.init()
        # As `make run` does: the cache table first, whose absence migrate's checks refuse.
        for command in (["createcachetable"], ["migrate", "--noinput"]):
            subprocess.run([sys.executable, "manage.py", *command, "-v0"], cwd=ROOT, check=True)
        start_redis(processes)
        mail.up()
        mail.push.up()
        start_web(processes)
        start_live(processes)
        start_nginx(processes)
        start_bots_worker(processes)
        start_sweeps_worker(processes)
        start_mail_worker(processes)
        start_analysis_worker(processes)
        beat(processes, "beat")
        if not wait_until(lambda: site_up() and live_up(processes), 90):
            raise RuntimeError("the site (nginx, gunicorn, uvicorn) did not start")
        time.sleep(3)  # the workers connect
        for name in chosen:
            log(f"--- {name}")
            SCENARIOS[name](processes, mail, pg)
        time.sleep(5)  # a late duplicate would come now
        for report in Report.rows:
            report.mail(mail.inbox)
        analysis_lateness()
        matches, bad = replays_clean()
    finally:
        processes.stop_all()
        mail.down()
        mail.push.down()
        pg.stop()
    print_table(processes)
    print(f"every match replays from its turns: {matches - bad}/{matches}")
    restarts = ", ".join(f"{name} {count}" for name, count in processes.restarts.items())
    print(f"processes that exited by themselves and were restarted: {restarts or 'none'}")
    print(f"took {time.monotonic() - STARTED:.0f} s; logs in {folder}")
    failed = any(report.failed() for report in Report.rows) or bad
    if not failed:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed else 0
