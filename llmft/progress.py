"""Progress, ETA and cost of a running job, for `llmft status` and `llmft list`.

Everything comes from what already exists; nothing here is a guard:

- the step's MLflow run (experiment and run name from the job's own step file, the ConfigMap ``<name>-step``): the
  Trainer's ``loss`` history (one point per ``logging_steps``, with its step and timestamp), ``tokens_per_second``,
  ``total_steps`` (the Trainer's planned total, logged at train begin) and ``gpu_hours`` (this run's GPUs x time,
  over its attempts), all logged by ``llm_platform.sft`` (its MLflow callback, ``GpuClock``);
- the pods: the node each runs on and its GPU requests. The node's ``node.kubernetes.io/instance-type`` label when
  the team may read nodes, else the pod's required node affinity on that label (what the job was rendered with,
  k8s_charts/tiers.py); several candidates with different prices give the dearest, marked ``<=``;
- the price of a GPU-hour: ``config/data/prices.yaml`` (config/pricing.py ``Pricer.usd_per_gpu_hour``; HyperPod's
  ``ml.`` types from its SageMaker table).

The ETA is the remaining steps x the seconds per step of the current attempt's logged points (the trailing run of
points whose step grows: a resume starts a new one), never a guess across an eviction.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"  # = k8s_charts/tiers.py INSTANCE_TYPE_LABEL (well-known)
GPU_RESOURCE = "nvidia.com/gpu"
STEP_METRIC = "loss"  # the Trainer logs it every logging_steps, with the step: the progress points
TOTAL_STEPS_METRIC = "total_steps"  # = llm_platform.sft_tracking.TOTAL_STEPS_METRIC
GPU_HOURS_METRIC = "gpu_hours"  # = llm_platform.sft_tracking.GPU_HOURS_METRIC
TOKENS_METRIC = "tokens_per_second"
RATE_POINTS = 10  # the last points of the current attempt that set the seconds per step


class ProgressUnavailable(RuntimeError):
    """No MLflow to ask (no tracking URI, no client) or no run yet; ``str()`` says which and what to do."""


@dataclass(frozen=True)
class RunProgress:
    """What the step logged: the newest step, the planned total, tokens/s, seconds per step, GPU-hours."""

    run_id: str
    status: str
    step: int | None = None
    total_steps: int | None = None
    tokens_per_second: float | None = None
    seconds_per_step: float | None = None
    gpu_hours: float | None = None

    @property
    def eta_s(self) -> float | None:
        if self.step is None or not self.total_steps or self.seconds_per_step is None:
            return None
        return max(self.total_steps - self.step, 0) * self.seconds_per_step


@dataclass(frozen=True)
class Placement:
    """The instance type the job's pods got (or may get), its GPUs and the price of one GPU-hour."""

    instance_types: tuple[str, ...] = ()
    gpus: int = 0
    usd_per_gpu_hour: float | None = None
    source: str = ""

    @property
    def upper_bound(self) -> bool:
        return len(self.instance_types) > 1


def seconds_per_step(points: Iterable[tuple[int, int]]) -> float | None:
    """Median seconds per step over the current attempt's last :data:`RATE_POINTS` (step, timestamp ms) points."""
    ordered = sorted(points, key=lambda p: p[1])
    attempt: list[tuple[int, int]] = []
    for step, ts in ordered:
        if attempt and step <= attempt[-1][0]:
            attempt = []  # the step went back: a resume from a checkpoint starts a new attempt
        attempt.append((step, ts))
    tail = attempt[-RATE_POINTS:]
    rates = [(t1 - t0) / 1000 / (s1 - s0) for (s0, t0), (s1, t1) in pairwise(tail) if s1 > s0]
    return statistics.median(rates) if rates else None


def _latest(client: Any, run_id: str, key: str) -> float | None:
    history = client.get_metric_history(run_id, key)
    return max(history, key=lambda m: (m.timestamp, m.step)).value if history else None


def run_progress(client: Any, *, experiment: str, run_name: str) -> RunProgress:
    """The newest MLflow run called ``run_name`` in ``experiment`` (an MlflowClient), read into a RunProgress."""
    found = client.get_experiment_by_name(experiment)
    if found is None:
        raise ProgressUnavailable(f"no MLflow experiment {experiment!r} yet (the step has not started its run)")
    runs = client.search_runs(
        [found.experiment_id],
        filter_string=f"attributes.run_name = '{run_name}'",
        order_by=["attributes.start_time DESC"],
        max_results=1,
    )
    if not runs:
        raise ProgressUnavailable(f"no MLflow run {run_name!r} in {experiment!r} yet (the step has not started)")
    run = runs[0]
    run_id = run.info.run_id
    points = [(m.step, m.timestamp) for m in client.get_metric_history(run_id, STEP_METRIC)]
    total = _latest(client, run_id, TOTAL_STEPS_METRIC)
    if total is None:  # a run from before the step logged it: max_steps when the file set one
        max_steps = int(float(run.data.params.get("training.max_steps", "-1")))
        total = max_steps if max_steps > 0 else None
    return RunProgress(
        run_id=run_id,
        status=run.info.status,
        step=max((s for s, _ in points), default=None),
        total_steps=int(total) if total else None,
        tokens_per_second=_latest(client, run_id, TOKENS_METRIC),
        seconds_per_step=seconds_per_step(points),
        gpu_hours=_latest(client, run_id, GPU_HOURS_METRIC),
    )


def _affinity_types(pod_spec: Mapping[str, Any]) -> set[str]:
    terms = (
        ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        or {}
    ).get("nodeSelectorTerms") or []
    return {
        value
        for term in terms
        for expr in term.get("matchExpressions", [])
        if expr.get("key") == INSTANCE_TYPE_LABEL and expr.get("operator") == "In"
        for value in expr.get("values", [])
    }


def _pod_gpus(pod_spec: Mapping[str, Any]) -> int:
    return sum(
        int((c.get("resources") or {}).get("limits", {}).get(GPU_RESOURCE, 0)) for c in pod_spec.get("containers", [])
    )


def placement(pods: list[Mapping[str, Any]], node_types: Mapping[str, str], pricer: Any) -> Placement:
    """The job's instance type(s) from its pods: the nodes' labels (``node_types``: node name -> instance type, for
    the nodes the team could read), else the pods' node affinity; the GPUs they request; the dearest GPU-hour."""
    gpus = sum(_pod_gpus(p.get("spec", {})) for p in pods)
    on_nodes = {node_types[n] for p in pods if (n := p.get("spec", {}).get("nodeName")) in node_types}
    if on_nodes:
        types, source = on_nodes, "the pods' nodes"
    else:
        types = set().union(*(_affinity_types(p.get("spec", {})) for p in pods)) if pods else set()
        source = "the pods' node affinity"
    prices = [price for t in types if (price := pricer.usd_per_gpu_hour(t)) is not None]
    return Placement(
        instance_types=tuple(sorted(types)), gpus=gpus, usd_per_gpu_hour=max(prices) if prices else None, source=source
    )


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    minutes = int(round(seconds / 60))
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def cost_text(progress: RunProgress, where: Placement) -> str:
    if progress.gpu_hours is None:
        return "? (the step logs no gpu_hours yet)"
    if where.usd_per_gpu_hour is None:
        named = ", ".join(where.instance_types) or "unknown"
        return f"? (no GPU price in config/data/prices.yaml for instance type {named})"
    bound = "<= " if where.upper_bound else ""
    return f"{bound}${progress.gpu_hours * where.usd_per_gpu_hour:,.2f}"


def status_lines(progress: RunProgress, where: Placement) -> list[str]:
    """The lines `llmft status` prints above the kubectl tables."""
    step = "?" if progress.step is None else str(progress.step)
    total = "?" if progress.total_steps is None else str(progress.total_steps)
    pct = f" ({100 * progress.step / progress.total_steps:.0f}%)" if progress.step and progress.total_steps else ""
    tps = "?" if progress.tokens_per_second is None else f"{progress.tokens_per_second:,.0f}"
    hours = "?" if progress.gpu_hours is None else f"{progress.gpu_hours:.2f}"
    price = (
        f"${where.usd_per_gpu_hour:.3f}/GPU-hour of {', '.join(where.instance_types)} (from {where.source})"
        if where.usd_per_gpu_hour is not None
        else f"instance type {', '.join(where.instance_types) or 'unknown'} (from {where.source or 'no pods'})"
    )
    return [
        f"progress: step {step}/{total}{pct}, {tps} tokens/s, ETA {duration(progress.eta_s)} "
        f"(MLflow run {progress.run_id}, {progress.status})",
        f"cost so far: {hours} GPU-hours, {cost_text(progress, where)} at {price}",
    ]


def list_row(name: str, progress: RunProgress | None, where: Placement | None, why: str = "") -> str:
    """One row of `llmft list`'s progress table."""
    if progress is None or where is None:
        return f"{name:<32} {'-':>13} {'-':>10} {'-':>8} {'-':>9} {'-':>12}  {why}"
    step = f"{progress.step if progress.step is not None else '?'}/{progress.total_steps or '?'}"
    tps = "?" if progress.tokens_per_second is None else f"{progress.tokens_per_second:,.0f}"
    hours = "?" if progress.gpu_hours is None else f"{progress.gpu_hours:.2f}"
    usd = cost_text(progress, where).split(" (")[0]
    return f"{name:<32} {step:>13} {tps:>10} {duration(progress.eta_s):>8} {hours:>9} {usd:>12}"


LIST_HEADER = f"{'NAME':<32} {'STEP':>13} {'TOKENS/S':>10} {'ETA':>8} {'GPU-H':>9} {'USD':>12}"


def mlflow_client() -> Any:
    """An MlflowClient from the environment (the team's user, as llmft/registry.py), or ProgressUnavailable."""
    import os

    if not os.environ.get("MLFLOW_TRACKING_URI"):
        raise ProgressUnavailable(
            "MLFLOW_TRACKING_URI is not set: no progress, ETA or cost (run llmft where the team's MLflow variables "
            "are set, the Studio terminal)"
        )
    try:
        from mlflow import MlflowClient
    except ImportError:
        raise ProgressUnavailable("the mlflow package is not installed here; install requirements-cli.txt") from None
    return MlflowClient()


def tracked(step: Mapping[str, Any]) -> tuple[str, str] | None:
    """(experiment, run name) of a step file that logs to MLflow (the fields llmft fills, llmft/job_types/sft.py),
    else None (a job type that does not track, or tracking turned off)."""
    if step.get("mlflow_tracking") is False or not step.get("mlflow_run_name"):
        return None
    return str(step.get("mlflow_experiment_name", "")), str(step["mlflow_run_name"])


def job_progress(
    cluster: Any, name: str, namespace: str, step: Mapping[str, Any], *, client: Any, pricer: Any
) -> tuple[RunProgress, Placement]:
    """A job's progress (its MLflow run) and placement (its pods and their nodes' price)."""
    where = tracked(step)
    if where is None:
        raise ProgressUnavailable("the job logs nothing to MLflow (its type does not, or mlflow_tracking: false)")
    progress = run_progress(client, experiment=where[0], run_name=where[1])
    pods = cluster.pods(name, namespace)
    nodes = {n for p in pods if (n := p.get("spec", {}).get("nodeName"))}
    return progress, placement(pods, cluster.node_instance_types(nodes), pricer)


def pricer_for(env: str) -> Any:
    """The price table of the environment's region (config/<env>.yaml)."""
    from config import load_config
    from config.pricing import Pricer

    return Pricer.of(load_config(env).region)


# ---- the pre-submit estimate (`llmft submit --dry-run`) -------------------------------------------------------------
BENCHMARKS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks"  # python -m llm_platform.bench results


@dataclass(frozen=True)
class Throughput:
    """Tokens per second of the whole job and where the figure comes from."""

    tokens_per_second: float
    source: str


def benchmark_mfu(dims: Any, gpu_type: str, directory: Path | None = None) -> tuple[float, str] | None:
    """The best MFU a ``llm_platform.bench`` run measured for this model shape on this card (its JSON files: one
    ``shape`` and ``gpu`` each, rows in ``results``), with the file it comes from; None when there is none."""
    from dataclasses import replace

    from llm_platform.memory import SHAPES, shape_named

    best: tuple[float, str] | None = None
    for path in sorted((directory or BENCHMARKS).glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        shape, gpu = data.get("shape"), str(data.get("gpu", ""))
        if shape not in SHAPES or gpu_type.upper() not in gpu.upper():
            continue
        if replace(shape_named(shape), name=dims.name) != dims:
            continue
        for row in data.get("results") or []:
            if not row.get("error") and (row.get("mfu") or 0) > (best[0] if best else 0):
                best = (float(row["mfu"]), f"benchmark {path.name} row {row.get('name')!r}")
    return best


def throughput(step: Mapping[str, Any], *, instance_type: str, gpus: int) -> Throughput | None:
    """The job's tokens/s: a benchmark's MFU for this shape and card, else the memory model's planning figure
    (llm_platform.memory DESIGN_MFU, less the recomputation when the step checkpoints activations)."""
    from llm_platform import memory
    from llm_platform.mfu import peak_flops

    dims, _ = memory.resolve_dims(str(step.get("model_id", "")))
    gpu_type = _gpu_type(instance_type)
    peak = peak_flops(gpu_type) if gpu_type else None
    if dims is None or peak is None or gpus < 1:
        return None
    flops = dims.training_flops_per_token(int(step.get("lora_r", 8)), float(step.get("max_seq_length", 2048)))
    measured = benchmark_mfu(dims, gpu_type)
    if measured:
        mfu, source = measured
    else:
        checkpointing = bool(step.get("gradient_checkpointing", False))
        mfu = memory.DESIGN_MFU * (4 / 6 if checkpointing else 1.0)
        source = f"the planning figure (llm_platform.memory; no benchmark of this shape on {gpu_type})"
    return Throughput(mfu * peak * gpus / flops, f"MFU {mfu:.3f}, {source}")


def _gpu_type(instance_type: str) -> str | None:
    import yaml
    from llm_platform.memory import find_specs_file

    path = find_specs_file()
    data = yaml.safe_load(path.read_text()) if path else {}
    return ((data.get("gpu") or {}).get(instance_type.removeprefix("ml.")) or {}).get("gpu_type")


def estimate_lines(step: Mapping[str, Any], job: Mapping[str, Any], pricer: Any) -> list[str]:
    """What `llmft submit --dry-run` prints before the manifests: hours and $ of the planned tokens (``max_steps``
    x ``tokens_per_optimizer_step`` when the step file gives both) or of 100M tokens, on the dearest instance type
    the rendered job may get."""
    pods = [r["template"] for r in (job.get("spec", {}).get("pytorchReplicaSpecs") or {}).values()]
    counts = [int(r.get("replicas", 1)) for r in (job.get("spec", {}).get("pytorchReplicaSpecs") or {}).values()]
    where = placement([{"spec": p["spec"]} for p in pods], {}, pricer)
    gpus = sum(_pod_gpus(p["spec"]) * n for p, n in zip(pods, counts, strict=True))
    priced = [t for t in where.instance_types if pricer.usd_per_gpu_hour(t) == where.usd_per_gpu_hour]
    rate = throughput(step, instance_type=priced[0], gpus=gpus) if priced else None
    if rate is None or where.usd_per_gpu_hour is None:
        named = ", ".join(where.instance_types) or "none in its node affinity"
        return [f"estimate: none (no price or no throughput figure for instance type {named})"]
    steps, per_step = step.get("max_steps"), step.get("tokens_per_optimizer_step")
    planned = isinstance(steps, int) and steps > 0 and isinstance(per_step, int)
    tokens = steps * per_step if planned else 100_000_000
    hours = tokens / rate.tokens_per_second / 3600
    what = f"{steps} steps x {per_step} tokens" if planned else "100M tokens (the step file sets no max_steps)"
    return [
        f"estimate: {hours:.2f} h, {gpus * hours:.2f} GPU-hours, ${gpus * hours * where.usd_per_gpu_hour:,.2f} "
        f"for {what} at {rate.tokens_per_second:,.0f} tokens/s on {gpus} x {priced[0]} "
        f"(${where.usd_per_gpu_hour:.3f}/GPU-hour, config/data/prices.yaml; throughput: {rate.source})"
    ]
