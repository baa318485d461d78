"""`make bench`: wall time of synthesizing the dev environment against an empty app with the same settings (the
floor), their ratio, the number of synths in one test session, and the wall time of `make test`.

Goals (not asserted anywhere; read the output): ratio <= 2.5, `make test` <= 60 s on 2 cores after install.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CDK = ROOT / "node_modules" / ".bin" / "cdk"
RATIO_GOAL, TEST_GOAL_S = 2.5, 60.0


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          check=False)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return time.perf_counter() - start


def synth_time(app_cmd: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as out:
            times.append(timed([str(CDK), "synth", "--quiet", "--app", app_cmd, "-o", out, "-c", "env=dev"]))
    return statistics.median(times)


def main() -> int:
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    python = sys.executable
    floor = synth_time(f"{python} tools/empty_app.py", runs)
    dev = synth_time(f"{python} app.py", runs)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / "synths"
        test = timed(["make", "test"], env={"PLATFORM_SYNTH_STATS": str(prefix)})
        per_worker = [json.loads(f.read_text()) for f in sorted(Path(tmp).glob("synths.*.json"))]
    synths = sum(w["synths"] for w in per_worker)
    keys = [k for w in per_worker for k in w["keys"]]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    ratio = dev / floor
    print(f"empty app synth (floor), median of {runs}: {floor:6.2f} s")
    print(f"dev environment synth,   median of {runs}: {dev:6.2f} s")
    print(f"ratio dev / floor:                   {ratio:6.2f}   (goal <= {RATIO_GOAL})")
    print(f"synths in one test session:          {synths} ({len(per_worker)} process(es) synthesized; "
          f"configurations synthesized more than once: {repeated or 'none'})")
    print(f"make test wall time:                 {test:6.2f} s (goal <= {TEST_GOAL_S:.0f} s)")
    print(f"cores: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
