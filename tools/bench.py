"""`make bench`: where the time goes, measured against goals, on this machine (no test asserts a speed).

- synth: wall time of `cdk synth` of the dev environment against an empty app with the same settings and CLI (the
  floor: Node, jsii, aws-cdk-lib and cdk-nag load), their ratio;
- the main suite (what `make test` runs first, two xdist workers) and the training suite, each timed on its own,
  with the synths one session ran;
- llmft: `llmft --help` and a PyTorchJob dry run, each in a fresh process;
- the MLflow tracking server under load (tools/mlflow_load.py: the real server with prod's task settings, req/s,
  p50/p99, server CPU per request and peak memory at 1/8/32 clients; ``BENCH_MLFLOW=0`` skips it, goals of issue
  32: >= 40 req/s at 32 clients, <= 25 ms server CPU per request).

Medians of ``BENCH_RUNS`` runs (default 5; llmft: 2 x that). ``BENCH_SUITES=0`` skips the suites. Exit status 1 when
something measured failed (a suite, a synth, a command); the goals are printed, never enforced.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CDK = ROOT / "node_modules" / ".bin" / "cdk"
TRAIN_PYTHON = ROOT / ".train-venv" / "bin" / "python"
DRY_RUN_SPEC = "examples/jobs/04-sft-medical.yaml"

# Goals (issue 24). Read next to the measurements; nothing fails on them.
GOALS = {
    "ratio": 2.5,
    "llmft_help_s": 0.5,
    "llmft_dry_run_s": 1.5,
    "mlflow_32_clients_req_s": 40.0,
    "mlflow_cpu_ms_per_req": 25.0,
    "mlflow_32_vs_1_client": 1.5,
}
# Before issue 24, on a quiet 2-core machine (the measurement), for comparison.
BEFORE = {"floor_s": 2.89, "dev_s": 9.33, "ratio": 3.22, "main_suite_s": 106.0, "training_suite_s": 22.0}


class Failed(Exception):
    pass


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode:
        raise Failed(
            f"{' '.join(cmd)} failed ({proc.returncode}) after {elapsed:.1f} s:\n"
            f"{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        )
    return elapsed, proc.stdout


def median_of(cmd: list[str], runs: int) -> float:
    return statistics.median(timed(cmd)[0] for _ in range(runs))


def synth_once(app_cmd: str) -> float:
    with tempfile.TemporaryDirectory() as out:
        return timed([str(CDK), "synth", "--quiet", "--app", app_cmd, "-o", out, "-c", "env=dev"])[0]


def synth_times(app_cmds: list[str], runs: int) -> list[float]:
    """Median synth time of each app, the apps taking turns (floor, dev, floor, dev, ...) so that a change in the
    machine's load during the measurement weighs on both sides of the ratio alike."""
    times: list[list[float]] = [[] for _ in app_cmds]
    for _ in range(runs):
        for i, app_cmd in enumerate(app_cmds):
            times[i].append(synth_once(app_cmd))
    return [statistics.median(t) for t in times]


def suite(cmd: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> tuple[float, str]:
    """(wall time, pytest's summary line) of one suite."""
    elapsed, out = timed(cmd, env=env, cwd=cwd)
    summary = next((line for line in reversed(out.splitlines()) if re.search(r"\d+ passed", line)), "?")
    return elapsed, summary.strip("= ")


def goal(value: float, target: float, unit: str = "") -> str:
    return f"goal <= {target:g}{unit}: {'met' if value <= target else 'NOT met'}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tools.bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=int(os.environ.get("BENCH_RUNS", "5")),
        help="runs per measurement, the median is reported (default: $BENCH_RUNS or 5)",
    )
    parser.add_argument(
        "--no-suites",
        action="store_true",
        default=os.environ.get("BENCH_SUITES", "1") == "0",
        help="skip timing the test suites (default: $BENCH_SUITES=0 does the same)",
    )
    parser.add_argument(
        "--no-mlflow",
        action="store_true",
        default=os.environ.get("BENCH_MLFLOW", "1") == "0",
        help="skip the MLflow server load (tools/mlflow_load.py; $BENCH_MLFLOW=0 does the same)",
    )
    return parser.parse_args(argv)


def _synth_rows(rows: list[str], *, python: str, runs: int) -> None:
    """Append the synth times of the empty app (the floor) and the dev environment, and their ratio."""
    floor, dev = synth_times([f"{python} tools/empty_app.py", f"{python} app.py"], runs)
    ratio = dev / floor
    rows += [
        f"empty app synth (floor), median of {runs}: {floor:7.2f} s   (before: {BEFORE['floor_s']:.2f} s)",
        f"dev environment synth,   median of {runs}: {dev:7.2f} s   (before: {BEFORE['dev_s']:.2f} s)",
        f"ratio dev / floor:                    {ratio:7.2f}     (before: {BEFORE['ratio']:.2f}; "
        f"{goal(ratio, GOALS['ratio'])})",
    ]


def _llmft_rows(rows: list[str], *, python: str, runs: int) -> None:
    """Append the times of `llmft --help` and of a PyTorchJob `llmft submit --dry-run`."""
    help_s = median_of([python, "-m", "llmft", "--help"], runs)
    rows.append(
        f"llmft --help, median of {runs}:          {help_s:7.2f} s   ({goal(help_s, GOALS['llmft_help_s'], ' s')})"
    )
    dry_s = median_of([python, "-m", "llmft", "submit", DRY_RUN_SPEC, "--dry-run"], runs)
    rows.append(
        f"llmft submit {Path(DRY_RUN_SPEC).name} --dry-run (PyTorchJob), median of {runs}: "
        f"{dry_s:.2f} s ({goal(dry_s, GOALS['llmft_dry_run_s'], ' s')})"
    )


def _mlflow_rows(rows: list[str], *, python: str) -> None:
    """Append the MLflow tracking server's throughput under load (tools/mlflow_load.py)."""
    _, out = timed([python, "tools/mlflow_load.py", "--seconds", "10", "--json"])
    lines = out.strip().splitlines()
    load = json.loads(lines[-1])
    by_clients = {r["clients"]: r for r in load}
    rows += ["MLflow tracking server under load (tools/mlflow_load.py, log-metric per request):", *lines[:-1]]
    if 32 in by_clients:
        rps, cpu = by_clients[32]["req_per_s"], by_clients[32]["server_cpu_ms_per_req"] or 0.0
        rows.append(
            f"  32 clients: {rps:.1f} req/s (goal >= {GOALS['mlflow_32_clients_req_s']:g}: "
            f"{'met' if rps >= GOALS['mlflow_32_clients_req_s'] else 'NOT met'}), {cpu:.1f} ms "
            f"server CPU per request ({goal(cpu, GOALS['mlflow_cpu_ms_per_req'], ' ms')})"
        )
    if 1 in by_clients and 32 in by_clients and by_clients[1]["req_per_s"]:
        scale = by_clients[32]["req_per_s"] / by_clients[1]["req_per_s"]
        target = GOALS["mlflow_32_vs_1_client"]
        verdict = "met" if scale >= target else "NOT met"
        rows.append(f"  32 clients vs 1: {scale:.2f}x req/s (goal >= {target:g}x: {verdict})")


def _main_suite_rows(rows: list[str], *, python: str) -> None:
    """Append the main suite's time (pytest -n 2) and the synths it ran, repeated ones named."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / "synths"
        main_s, main_summary = suite(
            [python, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q"],
            env={"PLATFORM_SYNTH_STATS": str(prefix)},
        )
        per_worker = [json.loads(f.read_text()) for f in sorted(Path(tmp).glob("synths.*.json"))]
    synths = sum(w["synths"] for w in per_worker)
    keys = [k for w in per_worker for k in w["keys"]]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    rows += [
        f"main suite (pytest -n 2):             {main_s:7.2f} s   (before: "
        f"{BEFORE['main_suite_s']:.0f} s) {main_summary}",
        f"  synths in that session: {synths} (configurations synthesized more than once: {repeated or 'none'})",
    ]


def _training_suite_rows(rows: list[str]) -> None:
    """Append the training package's suite time, run as `make test` runs it (two workers, one per test file)."""
    cmd = [str(TRAIN_PYTHON), "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile"]
    train_s, train_summary = suite(cmd, cwd=ROOT / "training")
    rows.append(
        f"training suite (pytest -n 2):         {train_s:7.2f} s   (before: "
        f"{BEFORE['training_suite_s']:.0f} s) {train_summary}"
    )


def _attempt(failures: list[str], step: Callable[[], None], errors: tuple[type[Exception], ...] = (Failed,)) -> None:
    """Run ``step``; a failure among ``errors`` is recorded in ``failures`` instead of raised."""
    try:
        step()
    except errors as exc:
        failures.append(str(exc))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks, print their table and any failures; 1 when something failed."""
    args = parse_args(argv)
    python = sys.executable
    failures: list[str] = []
    rows: list[str] = []
    _attempt(failures, lambda: _synth_rows(rows, python=python, runs=args.runs))
    _attempt(failures, lambda: _llmft_rows(rows, python=python, runs=2 * args.runs))
    if not args.no_mlflow:
        try:
            _mlflow_rows(rows, python=python)
        except (Failed, ValueError, IndexError) as exc:
            failures.append(f"MLflow load: {exc}")
    if not args.no_suites:
        _attempt(failures, lambda: _main_suite_rows(rows, python=python))
        if TRAIN_PYTHON.exists():
            _attempt(failures, lambda: _training_suite_rows(rows))
        else:
            failures.append(f"{TRAIN_PYTHON} is missing: run `make install`")
    rows.append(f"cores: {os.cpu_count()}; load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("\n".join(rows))
    for failure in failures:
        print(f"\nFAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
