"""Load on the real MLflow tracking server: what a training job's metric logging costs at 1, 8 and 32 clients.

    .venv/bin/python tools/mlflow_load.py [--seconds 10] [--clients 1,8,32] [--entrypoint PATH] [--server-cpus 1]

Starts what tests/test_mlflow_server_e2e.py starts (PostgreSQL requiring TLS, moto for S3, the image's entry point
with prod's task settings, 2 workers, as an unprivileged user) and runs clients that each log a metric per request
(``runs/log-metric``, as a training step does) with their team's user, round-robin over the teams. Prints, per
client count: requests per second, p50/p99 latency, errors, server CPU per request (user + system time of every
process of the server's process group, from /proc) and the server's peak memory (RSS summed over its processes).
``--entrypoint`` measures another version of the entry point (e.g. ``git show main:mlflow_image/entrypoint.py``).
``--server-cpus N`` pins the server's processes to N CPUs (prod's task has 1 vCPU; the clients get the others).

:func:`measure` is what the e2e test's load check calls; ``tools/bench.py`` runs this file (``BENCH_MLFLOW=0``
skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def group_usage(pgid: int) -> tuple[float, int]:
    """(CPU seconds, RSS bytes) of every live process in process group ``pgid``."""
    cpu, rss = 0.0, 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after the command: state, ppid, pgrp, ...
            cpu += (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
            rss += int(fields[21]) * PAGE
    return cpu, rss


def pin(pgid: int, cpus: int) -> set[int]:
    """Restrict every process of group ``pgid`` to the first ``cpus`` CPUs this process may use."""
    chosen = set(sorted(os.sched_getaffinity(0))[:cpus])
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    if int(fh.read().rsplit(b")", 1)[1].split()[2]) == pgid:
                        os.sched_setaffinity(int(entry.name), chosen)
            except OSError:
                continue
    return chosen


def prepare_runs(base: str, host: str, users: dict[str, tuple[str, str]]) -> dict[str, str]:
    """One experiment and run per team (with its own user); team -> run id."""
    runs = {}
    for team, auth in users.items():
        headers = {"Host": host}
        name = f"{team}/load-{os.getpid()}-{time.monotonic_ns()}"
        exp = requests.post(
            f"{base}/api/2.0/mlflow/experiments/create", json={"name": name}, auth=auth, headers=headers, timeout=60
        )
        exp.raise_for_status()
        run = requests.post(
            f"{base}/api/2.0/mlflow/runs/create",
            auth=auth,
            headers=headers,
            timeout=60,
            json={"experiment_id": exp.json()["experiment_id"], "start_time": int(time.time() * 1000)},
        )
        run.raise_for_status()
        runs[team] = run.json()["run"]["info"]["run_id"]
    return runs


def measure(
    base: str,
    host: str,
    users: dict[str, tuple[str, str]],
    runs: dict[str, str],
    clients: int,
    seconds: float,
    pgid: int | None = None,
) -> dict[str, Any]:
    """``clients`` threads logging metrics for ``seconds``; see the module docstring for what is reported."""
    teams = sorted(users)
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[list[str]] = [[] for _ in range(clients)]
    start_gate = threading.Barrier(clients + 1)
    stop = threading.Event()
    peak_rss = [0]

    def client(i: int) -> None:
        team = teams[i % len(teams)]
        session = requests.Session()
        session.auth = users[team]
        session.headers["Host"] = host
        url = f"{base}/api/2.0/mlflow/runs/log-metric"
        step = 0
        start_gate.wait()
        while not stop.is_set():
            body = {
                "run_id": runs[team],
                "key": f"load_{i}",
                "value": step * 0.5,
                "timestamp": int(time.time() * 1000),
                "step": step,
            }
            t0 = time.perf_counter()
            try:
                r = session.post(url, json=body, timeout=30)
                if r.status_code != 200:
                    errors[i].append(f"HTTP {r.status_code}: {r.text[:200]}")
            except requests.RequestException as exc:
                errors[i].append(f"{exc.__class__.__name__}: {exc}"[:200])
            if not stop.is_set():
                latencies[i].append(time.perf_counter() - t0)
            step += 1

    def sample_memory() -> None:
        while not stop.wait(0.25):
            peak_rss[0] = max(peak_rss[0], group_usage(pgid)[1])

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    sampler = threading.Thread(target=sample_memory, daemon=True) if pgid else None
    cpu0 = group_usage(pgid)[0] if pgid else 0.0
    start_gate.wait()
    t0 = time.perf_counter()
    if sampler:
        sampler.start()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - t0
    cpu1 = group_usage(pgid)[0] if pgid else 0.0
    for t in threads:
        t.join(60)
    done = sorted(x for lat in latencies for x in lat)
    errs = [e for err in errors for e in err]
    n = len(done)
    return {
        "clients": clients,
        "requests": n,
        "errors": len(errs),
        "first_errors": errs[:3],
        "req_per_s": n / elapsed,
        "p50_ms": 1000 * statistics.median(done) if done else None,
        "p99_ms": 1000 * done[min(n - 1, int(0.99 * n))] if done else None,
        "server_cpu_ms_per_req": 1000 * (cpu1 - cpu0) / n if (pgid and n) else None,
        "server_peak_rss_mib": peak_rss[0] / 2**20 if pgid else None,
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'clients':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'CPU ms/req':>10} {'peak RSS MiB':>12}"
    )
    lines = [head]
    for r in rows:

        def f(v, fmt="{:.1f}"):
            return fmt.format(v) if v is not None else "-"

        lines.append(
            f"{r['clients']:>7} {f(r['req_per_s']):>8} {f(r['p50_ms'], '{:.0f}'):>8} "
            f"{f(r['p99_ms'], '{:.0f}'):>8} {r['errors']:>6} {f(r['server_cpu_ms_per_req']):>10} "
            f"{f(r['server_peak_rss_mib'], '{:.0f}'):>12}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--entrypoint", type=Path, help="another entrypoint.py to measure (default: this tree's)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument("--server-cpus", type=int, default=0, help="pin the server to this many CPUs (0: all)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import shutil
    import tempfile

    from tests import test_mlflow_server_e2e as e2e

    if args.entrypoint:
        e2e.ENTRYPOINT = args.entrypoint.resolve()
    work = Path(tempfile.mkdtemp(prefix="mlflow-load-"))
    work.chmod(0o755)
    procs = e2e.Processes(work)
    try:
        stack = e2e._start_environment(work, procs)
        ports = e2e._start_tasks(stack, ["load"])
        plain, _ = stack["task"].environment()
        host = plain["MLFLOW_SERVER_ALLOWED_HOSTS"].split(",")[0]
        users = e2e._team_users(stack)
        base = f"http://127.0.0.1:{ports['load']}"
        runs = prepare_runs(base, host, users)
        pgid = procs.running["load"].pid
        pinned = f", server pinned to CPUs {sorted(pin(pgid, args.server_cpus))}" if args.server_cpus else ""
        measure(base, host, users, runs, 2, 1.0, pgid)  # warm-up: connections, caches
        rows = [measure(base, host, users, runs, int(c), args.seconds, pgid) for c in args.clients.split(",")]
        print(
            f"MLflow server, {plain.get('MLFLOW_WORKERS', '2')} workers, entry point "
            f"{e2e.ENTRYPOINT}, {args.seconds:g} s per row, {os.cpu_count()} cores (load generator on the same "
            f"machine{pinned}), load average {os.getloadavg()[0]:.1f}"
        )
        print(table(rows))
        for r in rows:
            for e in r["first_errors"]:
                print(f"  {r['clients']} clients: {e}")
        if args.json:
            print(json.dumps(rows))
        return 1 if any(r["errors"] for r in rows) else 0
    finally:
        procs.stop_all()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
