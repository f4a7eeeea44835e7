"""The report: latencies in and out of the throughput windows, what every board saw,
nothing lost, and its printed form."""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from collections.abc import Sized
from dataclasses import asdict
from typing import Any, Protocol

from bench.load.measure import Board, Move, Stats, percentile, verdict
from bench.load.options import RELOAD_SPAN, VOID_LAG_MS, Options


class FinishedRun(Protocol):
    """What the report reads of a finished run (bench.load.run.Run, which imports
    this module: the report names only what it needs, so neither needs the other)."""

    options: Options
    stats: Stats
    boards: list[Board]
    slugs: list[str]
    sizes: dict[str, str]
    reloads: list[tuple[float, float]]  # each reload of nginx and the span after it

    @property
    def idle(self) -> Sized: ...

    def in_window(self, start: float, end: float) -> bool: ...

    def seen_delays(self) -> tuple[list[tuple[float, float]], int]: ...


def in_window(windows: list[tuple[float, float]], start: float, end: float) -> bool:
    """Whether [start, end] overlaps a throughput window."""
    return any(begin < end and start < until for begin, until in windows)


def seen_delays(boards: list[Board], moves: list[Move]) -> tuple[list[tuple[float, float]], int]:
    """For each move, (when it was sent, the time until every board of its room
    open before it had seen it: a later version counts); and how many (move,
    board) pairs never did."""
    by_room: dict[str, list[Board]] = defaultdict(list)
    for board in boards:
        by_room[board.room].append(board)
    delays: list[tuple[float, float]] = []
    missed = 0
    for move in moves:
        latest = 0.0
        for board in by_room[move.room]:
            if not board.started or board.started > move.sent:
                continue
            when = next((t for t, v in board.seen if v >= move.version), None)
            if when is None:
                missed += 1
                latest = float("nan")
                break
            latest = max(latest, when - move.sent)
        if latest == latest:  # not NaN
            delays.append((move.sent, max(0.0, latest)))
    return delays, missed


def build(
    run: FinishedRun, final: dict[str, int], caught_up: int, stored: dict[str, int], commits: float
) -> dict[str, Any]:
    """The run's report, as written to JSON and printed by print_report."""
    options, stats = run.options, run.stats
    seen, missed = run.seen_delays()

    def reloaded(start: float, end: float) -> bool:
        """Overlapping the span after a reload of nginx: reported on its own."""
        return in_window(run.reloads, start, end)

    def windowed(start: float, end: float) -> bool:
        return run.in_window(start, end) and not reloaded(start, end)

    def apart(start: float, end: float) -> bool:
        return run.in_window(start, end) or reloaded(start, end)

    delays = [d for sent, d in seen if not apart(sent, sent + d)]
    delays_in_windows = [d for sent, d in seen if windowed(sent, sent + d)]
    delays_reloaded = [d for sent, d in seen if reloaded(sent, sent + d)]
    spans = list(zip(stats.action_spans, stats.action_ms, strict=True))
    action_ms = [ms for (a, b), ms in spans if not apart(a, b)]

    def outside_windows(timed: list[float | None]) -> list[float]:
        return [
            ms
            for (a, b), ms in zip(stats.action_spans, timed, strict=True)
            if ms is not None and not apart(a, b)
        ]

    at_server = outside_windows(stats.action_server_ms)
    cpu_at_server = outside_windows(stats.action_cpu_ms)
    db_at_server = outside_windows(stats.action_db_ms)
    pool_at_server = outside_windows(stats.action_pool_ms)
    action_ms_in_windows = [ms for (a, b), ms in spans if windowed(a, b)]
    action_ms_reloaded = [ms for (a, b), ms in spans if reloaded(a, b)]
    acked_total = sum(stats.acked.values())
    stored_total = sum(stored.get(slug, 0) for slug in run.slugs)
    # Every acknowledged action stored once: the Turn rows are the acknowledged
    # ones, plus at most those whose answer never came.
    mismatched = [
        slug
        for slug in run.slugs
        if not stats.acked[slug]
        <= stored.get(slug, 0)
        <= stats.acked[slug] + stats.unanswered[slug]
    ]
    rates = {name: statistics.mean(values) for name, values in stats.throughput.items()}
    state_rate, ref_rate = rates.get("state", 0.0), rates.get("reference", 0.0)
    idle_state, idle_ref = rates.get("idle state", 0.0), rates.get("idle reference", 0.0)
    requests = sum(board.requests for board in run.boards)
    held = sum(board.held for board in run.boards)
    errors_5xx = sum(n for key, n in stats.statuses.items() if key.split()[1].startswith("5"))

    def ms(value: float | None) -> float | None:
        return round(value, 1) if value is not None else None

    def at(prefix: str, values: list[float], *levels: int) -> dict[str, float | None]:
        """{"<prefix>p50_ms": ..., ...}: the values' percentiles at each level."""
        return {f"{prefix}p{level}_ms": ms(percentile(values, level / 100)) for level in levels}

    void = verdict(stats.lag_ms)
    return {
        "void": void,
        "generator_lag": {
            "p50_ms": ms(percentile(stats.lag_ms, 0.50)),
            "p99_ms": ms(percentile(stats.lag_ms, 0.99)),
            "max_ms": ms(max(stats.lag_ms, default=0.0)),
            "samples": len(stats.lag_ms),
            # Each phase's count and longest (ms): the heap is frozen once the boards are open.
            "full_collections": by_phase(stats.full_collections_ms),
            # Its CPU over its wall time in each phase (1.0: its whole core).
            "cpu_share": {
                phase: round((cpu_end - cpu) / (end - start), 2)
                for (phase, start, cpu), (_next, end, cpu_end) in zip(
                    stats.cpu_marks, stats.cpu_marks[1:], strict=False
                )
                if end > start
            },
        },
        # Where the node's cores went in each phase: each role's CPU over the phase's
        # wall time (1.0: one whole core).
        "server_cpu": server_cpu(stats.server_cpu_marks),
        "options": {k: v for k, v in asdict(options).items() if k != "quiet"},
        "server": options.server,
        "sizes": run.sizes,
        "cores": {
            "server": options.server_cores,
            "client": options.client_cores,
            "machine": os.cpu_count(),
            "load_average": os.getloadavg(),
        },
        # Outside the throughput windows (the run as players live it), and
        # those that overlapped one (the server full by design).
        "actions": {
            "count": len(stats.action_ms),
            "per_second": round(len(stats.action_ms) / options.duration, 1),
            "outside_windows": len(action_ms),
            **at("", action_ms, 50, 95, 99),
            **at("at_server_", at_server, 50, 95, 99),
            **at("cpu_", cpu_at_server, 50, 95),
            **at("db_", db_at_server, 50, 95),
            **at("pool_", pool_at_server, 50, 95),
            "in_windows": len(action_ms_in_windows),
            **at("in_windows_", action_ms_in_windows, 50, 95),
        },
        "seen_by_every_board": {
            # --nodes 2: moves made on the second node, boards waiting on the first.
            "across_nodes": options.nodes > 1,
            "moves": len(delays),
            "p50_ms": ms(_times_1000(percentile(delays, 0.50))),
            "p95_ms": ms(_times_1000(percentile(delays, 0.95))),
            "max_ms": ms(_times_1000(max(delays) if delays else None)),
            "never_seen": missed,
            "in_windows": len(delays_in_windows),
            "in_windows_p95_ms": ms(_times_1000(percentile(delays_in_windows, 0.95))),
        },
        # The moves and actions in the span after each reload of nginx (--reload-nginx-at).
        "after_reloads": {
            "reloads": len(run.reloads),
            "actions": len(action_ms_reloaded),
            **at("actions_", action_ms_reloaded, 50, 95),
            "moves": len(delays_reloaded),
            "seen_p95_ms": ms(_times_1000(percentile(delays_reloaded, 0.95))),
            "seen_max_ms": ms(_times_1000(max(delays_reloaded) if delays_reloaded else None)),
        },
        "rooms": {"played": len(run.slugs), "idle": len(run.idle)},
        "boards": {
            "count": len(run.boards),
            "requests": requests,
            "held_share": round(held / requests, 3) if requests else None,
            "at_final_version": caught_up,
        },
        "state_get_per_second": round(state_rate, 1),
        "reference_get_per_second": round(ref_rate, 1),
        "state_to_reference": round(state_rate / ref_rate, 2) if ref_rate else None,
        "idle_state_get_per_second": round(idle_state, 1),
        "idle_reference_get_per_second": round(idle_ref, 1),
        "idle_state_to_reference": round(idle_state / idle_ref, 2) if idle_ref else None,
        "postgres": {
            "peak_connections": max(stats.connections, default=0),
            "mean_connections": round(statistics.mean(stats.connections), 1)
            if stats.connections
            else 0,
            "commits_per_second": round(commits, 1),
        },
        "rss_mb": {
            f"{pid} {stats.process_names.get(pid, '')}": round(kb / 1024, 1)
            for pid, kb in sorted(stats.rss_kb.items())
        },
        "memory_per_board_kb": per_board_kb(stats, len(run.boards)),
        "statuses": dict(sorted(stats.statuses.items())),
        "exceptions": dict(stats.exceptions),
        "errors_5xx": errors_5xx,
        "error_pages": dict(sorted(stats.error_pages.items())),
        "failures": errors_5xx + sum(stats.error_pages.values()),
        "reads": stats.reads,
        "board_answers_setting_a_cookie": stats.board_set_cookie,
        "nothing_lost": {
            "acknowledged_turn_actions": acked_total,
            "stored_turn_rows": stored_total,
            "unanswered_turn_actions": sum(stats.unanswered.values()),
            "rooms_that_differ": mismatched,
            "boards_not_at_final_version": len(run.boards) - caught_up,
            "ok": not mismatched and caught_up == len(run.boards),
        },
    }


# The processes that hold the waiting boards (the target: 30 KB a board for both).
HOLDERS = ("uvicorn", "nginx")


def per_board_kb(stats: Stats, boards: int) -> dict[str, float | None]:
    """uvicorn's and nginx's peak RSS over the boards ("whole"), and the part of
    it that came with them: the peak less what they held before the boards opened
    ("above_idle"), for both and for each ("above_idle uvicorn", "above_idle nginx")."""

    def server(pid: int) -> str:
        return stats.process_names.get(pid, "").rpartition(" ")[2]

    def summed(rss: dict[int, int], names: tuple[str, ...]) -> int:
        return sum(kb for pid, kb in rss.items() if server(pid) in names)

    peak = summed(stats.rss_kb, HOLDERS)
    if not boards or not peak:
        return {"whole": None, "above_idle": None}
    found: dict[str, float | None] = {"whole": round(peak / boards, 1)}
    for label, names in (("", HOLDERS), *((f" {name}", (name,)) for name in HOLDERS)):
        high, before = summed(stats.rss_kb, names), summed(stats.rss_before_boards_kb, names)
        found["above_idle" + label] = round((high - before) / boards, 1) if before else None
    return found


def server_cpu(
    marks: list[tuple[str, float, dict[int, tuple[str, float]]]],
) -> dict[str, dict[str, Any]]:
    """Each phase's length and each role's CPU in it as a share of one core, from
    the processes' CPU at the phase's two ends. A process that ended within a phase
    takes its CPU of that phase with it (gunicorn and uvicorn keep their workers,
    the pool its PostgreSQL backends)."""
    found: dict[str, dict[str, Any]] = {}
    for (phase, start, before), (_next, end, after) in zip(marks, marks[1:], strict=False):
        if end <= start:
            continue
        roles: dict[str, float] = defaultdict(float)
        for pid, (role, seconds) in after.items():
            earlier = before.get(pid)
            roles[role] += max(0.0, seconds - (earlier[1] if earlier else 0.0))
        found[phase] = {
            "seconds": round(end - start, 1),
            "cores": {role: round(cpu / (end - start), 3) for role, cpu in sorted(roles.items())},
        }
    return found


def _ratio(value: float | None) -> str:
    """A ratio as printed; none where no window of the reference ran (a run
    shorter than its warm-up)."""
    return f"{value}x" if value is not None else "no window ran"


def _times_1000(value: float | None) -> float | None:
    return value * 1000 if value is not None else None


def rss_by_role(rss_mb: dict[str, float]) -> dict[str, float]:
    """{"123 node0 uvicorn": 25.1, ...} summed by role ("node0 uvicorn")."""
    found: dict[str, float] = defaultdict(float)
    for key, mb in rss_mb.items():
        found[key.partition(" ")[2]] += mb
    return dict(found)


def by_phase(collections: list[tuple[str, float]]) -> dict[str, list[float]]:
    """Each phase's [count, longest ms] of the generator's full collections."""
    found: dict[str, list[float]] = {}
    for phase, took in collections:
        found.setdefault(phase, []).append(took)
    return {phase: [len(took), round(max(took), 1)] for phase, took in found.items()}


def print_report(report: dict[str, Any]) -> None:
    a, s, b, pg = (report[k] for k in ("actions", "seen_by_every_board", "boards", "postgres"))
    o, cores = report["options"], report["cores"]
    load = ", ".join(f"{x:.1f}" for x in cores["load_average"])
    lag, z = report["generator_lag"], report["sizes"]
    m = report.get("memory_per_board_kb") or {"whole": None, "above_idle": None}
    r = report.get("after_reloads") or {}
    reloads = (
        [
            f"after {r['reloads']} reload(s) of nginx, for {RELOAD_SPAN:.0f} s (apart from "
            f"the figures above): actions ({r['actions']}) p50 {r['actions_p50_ms']} ms, "
            f"p95 {r['actions_p95_ms']} ms; a move seen by every board ({r['moves']}): "
            f"p95 {r['seen_p95_ms']} ms, max {r['seen_max_ms']} ms"
        ]
        if r.get("reloads")
        else []
    )
    lines = [
        *([f"VOID: {report['void']}"] if report["void"] else []),
        f"load generator's own lag: p50 {lag['p50_ms']} ms, p99 {lag['p99_ms']} ms, "
        f"max {lag['max_ms']} ms (void above {VOID_LAG_MS:.0f} ms at p99); "
        "its full garbage collections (how many, the longest): "
        + (
            ", ".join(
                f"{phase} {count:.0f}, {longest} ms"
                for phase, (count, longest) in lag.get("full_collections", {}).items()
            )
            or "none"
        )
        + "; its CPU, of its "
        "core: "
        + ", ".join(f"{phase} {share:.0%}" for phase, share in lag.get("cpu_share", {}).items()),
        f"make load: {b['count']} boards, {o['players']} players, {o['readers']} readers, "
        f"{o['duration']:.0f} s; {o['nodes']} node(s), each nginx (deploy/nginx's template) "
        f"in front of gunicorn {z['web_workers']} workers x {z['threads']} threads, pool "
        f"{z['pool']}"
        + (
            f" + uvicorn {z['live_workers']} workers, pool {z['live_pool']}, for ?wait="
            if "live_workers" in z
            else " (no uvicorn: the waits fall back to gunicorn)"
        )
        + (
            f"; nginx {z['nginx_workers']} worker(s) x {z['nginx_connections']} connections"
            if "nginx_workers" in z
            else ""
        )
        + f"; state cache {'on' if o['state_cache'] else 'off'}"
        + ("" if o.get("live_pass", True) else "; boards send no live pass")
        + (
            "; boards long-poll the state (the fallback, --long-poll)"
            if o.get("long_poll")
            else "; boards wait on nginx's channels (nchan)"
        ),
        f"cores: server {cores['server']}, load generator {cores['client']} "
        f"(of {cores['machine']}; load average {load})",
        f"actions: {a['count']} ({a['per_second']}/s); outside the throughput windows "
        f"({a['outside_windows']}): p50 {a['p50_ms']} ms, p95 {a['p95_ms']} ms, "
        f"p99 {a['p99_ms']} ms; in them ({a['in_windows']}): p50 {a['in_windows_p50_ms']} ms, "
        f"p95 {a['in_windows_p95_ms']} ms",
        f"the same actions as Django timed them (Server-Timing; the rest is the wait for a "
        f"thread and the generator's own lag): p50 {a['at_server_p50_ms']} ms, "
        f"p95 {a['at_server_p95_ms']} ms, p99 {a['at_server_p99_ms']} ms; of which its "
        f"thread's CPU p50 {a.get('cpu_p50_ms')} ms, p95 {a.get('cpu_p95_ms')} ms, and its "
        f"queries p50 {a.get('db_p50_ms')} ms, p95 {a.get('db_p95_ms')} ms, and its wait "
        f"for a pooled connection p50 {a.get('pool_p50_ms')} ms, p95 {a.get('pool_p95_ms')} ms "
        "(the rest: waiting for the core or the GIL)",
        (
            "a move made on node B seen by every waiting board of its room on node A"
            if o["nodes"] > 1
            else "a move seen by every waiting board of its room"
        )
        + ", outside the windows: p50 "
        f"{s['p50_ms']} ms, p95 {s['p95_ms']} ms, max {s['max_ms']} ms ({s['moves']} moves, "
        f"{s['never_seen']} never); in them ({s['in_windows']}): p95 {s['in_windows_p95_ms']} ms",
        *reloads,
        f"rooms: {report['rooms']['played']} played, {report['rooms']['idle']} where nobody "
        f"moves; boards' waits: {b['requests']}, held (by nchan or the server): {b['held_share']}",
        f"under load: state GET {report['state_get_per_second']} req/s, bare Django project "
        f"{report['reference_get_per_second']} req/s: {_ratio(report['state_to_reference'])}",
        f"idle server: state GET {report['idle_state_get_per_second']} req/s, bare Django project "
        f"{report['idle_reference_get_per_second']} req/s: "
        f"{_ratio(report['idle_state_to_reference'])}",
        f"PostgreSQL: peak {pg['peak_connections']} connections (mean {pg['mean_connections']}), "
        f"{pg['commits_per_second']} transactions/s",
        "RSS (peak, summed over each server's processes): "
        + ", ".join(f"{role}: {mb:.0f} MB" for role, mb in rss_by_role(report["rss_mb"]).items())
        + f"; uvicorn + nginx a waiting board: {m['whole']} KB ({m['above_idle']} KB above "
        f"what they held before the boards: uvicorn {m.get('above_idle uvicorn')} KB, "
        f"nginx {m.get('above_idle nginx')} KB)",
        f"statuses: {report['statuses']}; exceptions: {report['exceptions']}; "
        f"5xx: {report['errors_5xx']}; answers not JSON (error pages): {report['error_pages']}",
        f"nothing lost: {report['nothing_lost']}",
        "the servers' CPU in each phase, in cores (1.0: one whole core):",
        *(
            f"  {phase} ({spent['seconds']:.0f} s): "
            + ", ".join(f"{role} {share:.2f}" for role, share in spent["cores"].items())
            for phase, spent in report.get("server_cpu", {}).items()
        ),
    ]
    print("\n".join(lines))
