"""`llmft status` / `llmft list`: progress, ETA and cost (llmft/progress.py) from a recorded MLflow run (a local
file store with the metrics the SFT step logs, at known times) and a fake cluster holding the real rendered job
(its step ConfigMap and pods built from its own pod template)."""

from __future__ import annotations

import io
import json
import re
import subprocess
from contextlib import redirect_stdout

import pytest
import yaml

from config.pricing import Pricer
from llmft import progress
from llmft.cli import main
from llmft.cluster import Cluster
from llmft.spec import load_spec

from .conftest import ROOT
from .test_llmft import CONFIGS, run

pytestmark = pytest.mark.unit

START_MS = 1_800_000_000_000
SECONDS_PER_STEP = 3.0
TOTAL = 200


def rendered_job(env: str = "dev") -> tuple[dict, dict]:
    """The (step ConfigMap, PyTorchJob) llmft renders for the SFT example."""
    result = run(load_spec(ROOT / "examples/jobs/04-sft-medical.yaml"), env)
    assert result.ok, result.report()
    return result.plan.manifests[0], result.plan.manifests[-1]


def pods_of(job: dict, node: str) -> list[dict]:
    """The job's pods as the training operator creates them: each replica's template, scheduled on ``node``."""
    out = []
    for role, replica in job["spec"]["pytorchReplicaSpecs"].items():
        for i in range(int(replica.get("replicas", 1))):
            out.append(
                {
                    "metadata": {"name": f"{job['metadata']['name']}-{role.lower()}-{i}"},
                    "spec": {**replica["template"]["spec"], "nodeName": node},
                }
            )
    return out


class FakeCluster:
    """kubectl answers for one job: `nodes` maps the node names the user may read to their instance-type label."""

    def __init__(self, config_map: dict, job: dict, pods: list[dict], nodes: dict[str, str]) -> None:
        self.config_map, self.job, self.pod_items, self.nodes = config_map, job, pods, nodes
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, cluster, *args: str, stdin: str | None = None, check: bool = True):
        self.calls.append(args)
        name = self.job["metadata"]["name"]
        out, rc = "", 0
        if args[:2] == ("get", "configmap") and args[-2:] == ("-o", "json"):
            out = json.dumps({"items": [self.config_map]})
        elif args[:2] == ("get", "pods") and args[-2:] == ("-o", "json"):
            out = json.dumps({"items": self.pod_items})
        elif args[:2] == ("get", "node"):
            known = args[2] in self.nodes
            out = json.dumps({"metadata": {"labels": {progress.INSTANCE_TYPE_LABEL: self.nodes.get(args[2])}}})
            out, rc = (out, 0) if known else ("", 1)  # a team's user may not read nodes: Forbidden
        elif args[0] == "get" and "--ignore-not-found" in args:
            out = f"{args[1]}/{args[2]}" if args[1] == "pytorchjobs.kubeflow.org" and args[2] == name else ""
        elif args[0] == "get":
            out = f"{args[1]} {name} (table)\n"
        return subprocess.CompletedProcess(args, rc, out, "forbidden" if rc else "")


def tracking_store(tmp_path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A local MLflow file store as the team's tracking server (the CLI's mlflow is the skinny client: no SQL
    store; the file store is in maintenance mode in MLflow 3 and needs MLFLOW_ALLOW_FILE_STORE)."""
    uri = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    return uri


def record_run(uri: str, step_file: dict, *, attempts: list[list[int]], gpus: int) -> str:
    """An MLflow run as the SFT step logs it: ``loss``, ``tokens_per_second`` and ``gpu_hours`` at each logged
    step of each attempt (an attempt resumes at an earlier step), ``total_steps`` at train begin."""
    from mlflow import MlflowClient
    from mlflow.entities import Metric

    client = MlflowClient(tracking_uri=uri)
    experiment = client.create_experiment(step_file["mlflow_experiment_name"])
    run_ = client.create_run(experiment, run_name=step_file["mlflow_run_name"])
    run_id = run_.info.run_id
    now, hours = START_MS, 0.0
    metrics = [Metric(progress.TOTAL_STEPS_METRIC, TOTAL, now, 0)]
    for attempt in attempts:
        now += 600_000  # the wait for capacity between attempts
        prev = attempt[0]
        for step in attempt:
            now += int((step - prev) * SECONDS_PER_STEP * 1000)
            hours += gpus * (step - prev) * SECONDS_PER_STEP / 3600
            prev = step
            metrics += [
                Metric(progress.STEP_METRIC, 2.0 / (1 + step), now, step),
                Metric(progress.TOKENS_METRIC, 5000.0 + step, now, step),
                Metric(progress.GPU_HOURS_METRIC, hours, now, step),
            ]
    client.log_batch(run_id, metrics=metrics)
    return run_id


def test_seconds_per_step_is_the_current_attempts() -> None:
    # attempt 1: 10 s/step; attempt 2 (resumed at step 20, after a long wait): 2 s/step
    first = [(s, START_MS + s * 10_000) for s in range(0, 31, 10)]
    second = [(s, START_MS + 10**9 + (s - 20) * 2_000) for s in range(20, 61, 10)]
    assert progress.seconds_per_step(first + second) == pytest.approx(2.0)
    assert progress.seconds_per_step(first[:1]) is None


@pytest.mark.parametrize("node_readable", [True, False])
def test_status_from_a_recorded_run(tmp_path, monkeypatch: pytest.MonkeyPatch, node_readable: bool) -> None:
    config_map, job = rendered_job()
    step_file = yaml.safe_load(config_map["data"]["step.yaml"])
    pods = pods_of(job, node="ip-10-0-1-1")
    candidates = progress._affinity_types(pods[0]["spec"])
    assert candidates, "the rendered job names its instance type(s) in its node affinity"
    pricer = Pricer.of(CONFIGS["dev"].region)
    node_type = sorted(candidates)[-1]
    fake = FakeCluster(config_map, job, pods, {"ip-10-0-1-1": node_type} if node_readable else {})
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", lambda self, *a, **kw: fake(self, *a, **kw))
    uri = tracking_store(tmp_path, monkeypatch)
    gpus = sum(progress._pod_gpus(p["spec"]) for p in pods)
    run_id = record_run(uri, step_file, attempts=[[0, 10, 20, 30], [20, 30, 40, 50, 60]], gpus=gpus)

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["status", job["metadata"]["name"], "--team", job["metadata"]["namespace"], "--env", "dev"]) == 0
    text = out.getvalue()

    assert f"step 60/{TOTAL} (30%)" in text and run_id in text
    assert f"ETA {progress.duration((TOTAL - 60) * SECONDS_PER_STEP)}" in text
    assert "5,060 tokens/s" in text
    used = gpus * (30 + 40) * SECONDS_PER_STEP / 3600  # both attempts' GPU time, not the waits between them
    assert f"{used:.2f} GPU-hours" in text
    types = [node_type] if node_readable else sorted(candidates)
    price = max(p for t in types if (p := pricer.usd_per_gpu_hour(t)) is not None)
    bound = "<= " if len({pricer.usd_per_gpu_hour(t) for t in types}) > 1 or len(types) > 1 else ""
    assert f"{bound}${used * price:,.2f}" in text
    assert ("the pods' nodes" if node_readable else "the pods' node affinity") in text
    assert "(table)" in text  # the kubectl tables still follow


def test_list_shows_a_row_per_tracked_job(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_map, job = rendered_job()
    step_file = yaml.safe_load(config_map["data"]["step.yaml"])
    pods = pods_of(job, node="n1")
    fake = FakeCluster(config_map, job, pods, {})
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", lambda self, *a, **kw: fake(self, *a, **kw))
    uri = tracking_store(tmp_path, monkeypatch)
    record_run(uri, step_file, attempts=[[0, 10, 20]], gpus=1)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["list", "--team", job["metadata"]["namespace"], "--env", "dev"]) == 0
    row = next(line for line in out.getvalue().splitlines() if line.startswith(job["metadata"]["name"] + " "))
    assert f"20/{TOTAL}" in row and progress.duration((TOTAL - 20) * SECONDS_PER_STEP) in row


def test_status_without_mlflow_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    config_map, job = rendered_job()
    fake = FakeCluster(config_map, job, pods_of(job, node="n1"), {})
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", lambda self, *a, **kw: fake(self, *a, **kw))
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["status", job["metadata"]["name"], "--team", job["metadata"]["namespace"]]) == 0
    assert "progress: unavailable: MLFLOW_TRACKING_URI is not set" in out.getvalue()


def test_the_estimate_uses_a_benchmark_of_the_shape_and_card_else_the_planning_figure() -> None:
    from llm_platform import memory
    from llm_platform.mfu import peak_flops

    bench = [json.loads(p.read_text()) for p in sorted(progress.BENCHMARKS.glob("*.json"))]
    measured = [b for b in bench if b.get("shape") in memory.SHAPES and b.get("results")]
    assert measured, "docs/benchmarks has llm_platform.bench results"
    shape, gpu = measured[0]["shape"], measured[0]["gpu"]
    instance_type = measured[0]["instance_type"]
    best = max(
        r["mfu"] for b in measured if (b["shape"], b["gpu"]) == (shape, gpu) for r in b["results"] if not r["error"]
    )
    dims = memory.shape_named(shape)
    step = {"model_id": f"/fsx/models/{shape}", "lora_r": 8, "max_seq_length": 2048}
    flops = memory.resolve_dims(step["model_id"])[0].training_flops_per_token(8, 2048)
    rate = progress.throughput(step, instance_type=instance_type, gpus=8)
    assert rate is not None and "benchmark" in rate.source
    assert rate.tokens_per_second == pytest.approx(best * peak_flops(gpu) * 8 / flops)
    assert dims.num_hidden_layers  # the shape is a known one
    # a card no benchmark ran on: the memory model's planning figure
    other = next(t for t in ("g5.8xlarge", "g6e.12xlarge") if progress._gpu_type(t) not in gpu.lower())
    planned = progress.throughput(step, instance_type=other, gpus=1)
    assert planned is not None and "planning figure" in planned.source
    peak = peak_flops(progress._gpu_type(other))
    assert planned.tokens_per_second == pytest.approx(memory.DESIGN_MFU * peak / flops)


def test_dry_run_prints_hours_and_dollars_of_the_planned_steps(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from contextlib import redirect_stderr

    spec = yaml.safe_load((ROOT / "examples/jobs/04-sft-medical.yaml").read_text())
    spec["settings"]["max_steps"] = 500
    path = tmp_path / "sft.yaml"
    path.write_text(yaml.safe_dump(spec))
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        assert main(["submit", str(path), "--dry-run", "--env", "dev"]) == 0
    line = next(x for x in err.getvalue().splitlines() if x.startswith("estimate:"))
    tokens = 500 * spec["settings"]["tokens_per_optimizer_step"]
    assert f"500 steps x {spec['settings']['tokens_per_optimizer_step']} tokens" in line
    hours, gpu_hours, usd = (
        float(x.replace(",", "")) for x in re.findall(r"([\d.]+) h, ([\d.]+) GPU-hours, \$([\d,.]+)", line)[0]
    )
    tps = float(re.search(r"at ([\d,]+) tokens/s", line).group(1).replace(",", ""))
    price = float(re.search(r"\$([\d.]+)/GPU-hour", line).group(1))
    assert hours == pytest.approx(tokens / tps / 3600, abs=0.006)  # hours printed to 0.01, tokens/s to 1
    assert usd == pytest.approx(gpu_hours * price, abs=0.005 * price + 0.01)  # GPU-hours are printed to 0.01
