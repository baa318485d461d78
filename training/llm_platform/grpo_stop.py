"""`python3 -m llm_platform.grpo_stop`: the Ray pods' ``preStop`` hook of a GRPO job (issue 44, save on eviction).

VeRL installs no SIGTERM handler and trains inside a Ray actor; on eviction KubeRay deletes the head, the workers
(which hold the FSDP shards) and the submitter together (docs/training.md "GRPO (VeRL) on SIGTERM"), so nothing can
save *after* SIGTERM. Kubernetes runs a container's ``preStop`` hook *before* it sends SIGTERM, and the grace
period's countdown starts with the hook ("The Pod's termination grace period countdown begins before the PreStop
hook is executed. Regardless of the outcome of the handler, the container will eventually terminate within the Pod's
termination grace period": Kubernetes API reference, ``Lifecycle.preStop``; kubernetes.io "Container Lifecycle
Hooks"). KubeRay v1.7.0 leaves this to the user (``rayjob_controller.go``, the ``Suspending`` case: "If users want to
stop the Ray job by SIGTERM, users need to set the Pod's preStop hook by themselves"). While the hooks wait, every Ray
process keeps running, so the run can still save.

The hook and the run talk through three files in the job's checkpoint folder (``trainer.default_local_dir`` on the
team's FSx, which every Ray pod mounts):

* :data:`REQUEST` (hook -> run): "save now". Any pod may write it; every pod's hook waits.
* :data:`SAVED` (run -> hooks): written by :mod:`llm_platform.grpo_save` after VeRL's own save of a step finished
  after the request was seen (after ``latest_checkpointed_iteration.txt``); it names the step.
* :data:`ALIVE` (run -> hooks): a counter the run rewrites every :data:`HEARTBEAT_SECONDS` while it trains and
  removes after its last step. No file: no run to save (the job finished; its cluster is being deleted). A counter
  that stops moving for :data:`STALE_SECONDS`: the run is gone (crashed), nothing will save.

The hook returns when the save is done, when there is no live run, or when its budget (the grace period less the
time Ray needs to exit after SIGTERM) is spent; it always exits 0 (a preStop's outcome changes nothing: SIGTERM
follows either way). Standard library only: it runs in the image's ``python3`` without importing VeRL or torch.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REQUEST = "llmp-save-request"
SAVED = "llmp-saved"
ALIVE = "llmp-run-alive"
HEARTBEAT_SECONDS = 2.0  # how often the run rewrites ALIVE (and looks for a request)
STALE_SECONDS = 15 * HEARTBEAT_SECONDS  # a run whose counter has not moved this long is gone
POLL_SECONDS = 2.0  # how often a hook looks for SAVED
RAY_EXIT_SECONDS = 15
"""What a Ray pod keeps of its grace period after the hook returns: SIGTERM, then ``ray start``'s processes (raylet,
workers, GCS on the head) exit before SIGKILL (as ``k8s_charts.pytorch_job.AGENT_EXIT_SECONDS`` for torchrun)."""
MODULE = "llm_platform.grpo_stop"
LOG_PREFIX = "llmp-grpo-stop"


def write_atomic(path: Path, text: str) -> None:
    """``text`` into ``path``, written aside and renamed: a reader sees the old content or the new, never a part."""
    aside = path.with_name(f".{path.name}.{socket.gethostname()}.{os.getpid()}")
    aside.write_text(text)
    os.replace(aside, path)


def read(path: Path) -> str | None:
    """The content of ``path``, None when it does not exist."""
    try:
        return path.read_text()
    except FileNotFoundError:
        return None


def saved_step(folder: Path) -> int | None:
    """The step :data:`SAVED` names, None without one."""
    text = read(folder / SAVED)
    return int(json.loads(text)["step"]) if text else None


def request_save(folder: Path) -> None:
    """Ask the run in ``folder`` to save at the end of its current step (idempotent: one request is enough)."""
    if not (folder / REQUEST).exists():
        write_atomic(folder / REQUEST, json.dumps({"by": socket.gethostname()}))


def wait_for_save(
    folder: Path,
    budget_seconds: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Request a save of the run in ``folder`` and wait for it; the outcome: ``saved``, ``no-run`` (nothing
    trains), ``run-ended`` (the run finished or stopped its heartbeat while waiting), ``run-stopped`` (its heartbeat
    froze: the run is gone) or ``budget`` (``budget_seconds`` spent without a save)."""
    start = clock()
    beat = read(folder / ALIVE)
    if beat is None:
        return "no-run"
    before = read(folder / SAVED)
    request_save(folder)
    changed = start
    while True:
        now = clock()
        if read(folder / SAVED) not in (None, before):
            return "saved"
        if now - start >= budget_seconds:
            return "budget"
        current = read(folder / ALIVE)
        if current is None:
            return "run-ended"
        if current != beat:
            beat, changed = current, now
        elif now - changed >= STALE_SECONDS:
            return "run-stopped"
        sleep(min(POLL_SECONDS, budget_seconds - (now - start)))


def hook_command(checkpoint_dir: str, budget_seconds: int) -> list[str]:
    """The ``preStop`` exec command of a GRPO job's Ray pods (k8s_charts/ray_job.py)."""
    return ["python3", "-m", MODULE, "--checkpoint-dir", checkpoint_dir, "--budget-seconds", str(budget_seconds)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint-dir", required=True, help="the run's trainer.default_local_dir")
    parser.add_argument("--budget-seconds", type=float, required=True, help="how long to wait for the save")
    args = parser.parse_args(argv)
    folder = Path(args.checkpoint_dir)
    try:
        outcome = wait_for_save(folder, args.budget_seconds)
    except OSError as error:  # an unreachable folder must not keep the pod: SIGTERM follows anyway
        outcome = f"error: {error}"
    step = saved_step(folder) if outcome == "saved" else None
    print(f"{LOG_PREFIX}: {outcome}" + (f" (step {step})" if step is not None else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
