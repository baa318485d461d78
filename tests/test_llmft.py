"""The job spec, preflight and `llmft` CLI (llmft/): every example renders, validates against the CRD and core
schemas and passes preflight in dev and prod; bad specs fail with a message that names the field and the fix."""

from __future__ import annotations

import io
import json
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from config import ConfigError, load_config
from k8s_charts.node_shapes import fits, pod_kinds, pod_request_of
from k8s_charts.validation import validate
from k8s_charts.values import PlatformValues
from llmft.build import QUEUE_LABEL, STEP_CONFIG_FILE, image_placeholder
from llmft.cli import main
from llmft.preflight import preflight
from llmft.spec import job_types, load_spec, parse_spec

from .conftest import ENVIRONMENTS, ROOT

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

EXAMPLES = sorted((ROOT / "examples" / "jobs").glob("*.yaml"))
CONFIGS = {env: load_config(env) for env in ENVIRONMENTS}
VALUES = {env: PlatformValues.placeholders(cfg) for env, cfg in CONFIGS.items()}
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/sft:1.0-abc"


def run(spec, env: str = "dev", namespace: str | None = None):
    from llmft.registry import FileRegistry  # serve examples resolve their model in the examples' snapshot

    return preflight(
        spec,
        config=CONFIGS[env],
        values=VALUES[env],
        image=IMAGE,
        context_namespace=namespace,
        registry=FileRegistry.load(ROOT / "examples" / "registry.yaml"),
    )


def test_every_job_type_has_an_example() -> None:
    types = {load_spec(p).type for p in EXAMPLES}
    assert types == set(job_types())


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_renders_validates_and_passes_preflight(path: Path, env: str) -> None:
    spec = load_spec(path)
    assert len(path.read_text().splitlines()) <= 30  # short specs
    result = run(spec, env)
    assert result.ok, result.report()
    plan = result.plan
    version = CONFIGS[env].compute.kubernetes_version
    for doc in plan.manifests:
        assert validate(doc, version) == [], doc["kind"]
    kinds = VALUES[env].node_kinds
    for where, pod in plan.pod_specs():
        allowed = pod_kinds(kinds, pod)
        assert allowed and all(fits(pod_request_of(pod), k) for k in allowed), where
        if spec.type == "serve":  # no step file (tests/test_serve.py checks the rest)
            continue
        for container in pod["containers"]:
            assert container["image"] == (spec.image or IMAGE)
            assert {"name": "step-config", "mountPath": "/etc/llmft", "readOnly": True} in container["volumeMounts"]
    job = plan.manifests[-1]
    assert job["metadata"]["namespace"] == plan.team.namespace
    assert job["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "llmft"
    if spec.type == "serve":
        return
    step = yaml.safe_load(plan.manifests[0]["data"]["step.yaml"])
    assert step == plan.step
    if spec.type != "custom":  # the step's own schema accepts it (the real --check runs in test_examples_chain.py)
        from llm_platform.steps import problems

        assert problems(spec.type, step) == []


def _gpu_node_types(plan) -> list[list[str]]:
    out = []
    for _, pod in plan.pod_specs():
        if any("nvidia.com/gpu" in c["resources"].get("limits", {}) for c in pod["containers"]):
            terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            out += [e["values"] for e in terms["nodeSelectorTerms"][0]["matchExpressions"] if e["key"] == "node-type"]
    return out


def test_multi_node_jobs_keep_every_node_kind_that_can_hold_them() -> None:
    """prod development p5: HyperPod (2 nodes) and the on-demand pool (2 nodes) can each hold the 2-node GRPO job, so
    its GPU pods allow both node types and Kueue picks the flavor in the tier's order (reserved first, else
    on-demand); Kueue keeps all pods of a pod set on one flavor, so the job is never split."""
    plan = run(load_spec(ROOT / "examples/jobs/06-grpo-gsm8k.yaml"), "prod").plan
    tier_types = sorted({k.node_type for k in plan.kinds})
    assert tier_types == ["eks-on-demand", "hyperpod"]
    assert {k.name for k in plan.allowed} == {k.name for k in plan.kinds}
    node_types = _gpu_node_types(plan)
    assert node_types and all(sorted(v) == tier_types for v in node_types), node_types
    for _, pod in plan.pod_specs():  # every kind a pod may land on is one of the kinds that hold the job
        assert {k.name for k in pod_kinds(VALUES["prod"].node_kinds, pod)} <= {
            k.name for k in VALUES["prod"].node_kinds if k.spec.gpus == 0 or k in plan.allowed
        }


def test_a_kind_too_small_for_the_job_is_left_out() -> None:
    """A 2-node research SFT in dev: HyperPod has one g5 node, the A100 spot pool holds 2, so the job runs on spot
    (before, HyperPod was chosen first and the job refused)."""
    sft = {**yaml.safe_load((ROOT / "examples/jobs/04-sft-medical.yaml").read_text()), "tier": "research", "nodes": 2}
    result = run(parse_spec(sft))
    assert result.ok, result.report()
    assert {k.name for k in result.plan.allowed} == {"karpenter/a100-spot/p4d.24xlarge"}
    assert all(v == ["eks-spot"] for v in _gpu_node_types(result.plan))
    one = run(parse_spec({**sft, "nodes": 1})).plan  # one node fits the reserved HyperPod g5: it goes first
    assert one.kinds[0].source == "hyperpod"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_one_gpu_development_job_without_gpu_type_may_fall_back_to_the_tiers_pools(env: str) -> None:
    """docs/jobs.md's tier table: development runs on HyperPod reserved nodes, else on the on-demand GPU pools. A
    one-GPU job naming no gpu_type or instance_type may land on every GPU kind of its tier (the reserved kind
    first); its pods' affinity admits exactly those kinds (node_shapes.pod_kinds, the scheduler's view), each of
    which holds its request. Naming gpu_type pins it to that GPU's kinds."""
    from k8s_charts.node_shapes import kinds_for

    sft = {**yaml.safe_load((ROOT / "examples/jobs/04-sft-medical.yaml").read_text()), "gpus_per_node": 1}
    sft.pop("gpu_type", None)
    sft.pop("instance_type", None)
    tier_kinds = kinds_for(VALUES[env].node_kinds, tier="development")
    plan = run(parse_spec(sft), env).plan
    assert {k.name for k in plan.allowed} == {k.name for k in tier_kinds if k.max_nodes}, plan.allowed
    assert plan.allowed[0].source == min(tier_kinds, key=lambda k: k.source != "hyperpod").source
    for _, pod in plan.pod_specs():
        if "nvidia.com/gpu" in pod["containers"][0]["resources"].get("limits", {}):
            landed = pod_kinds(VALUES[env].node_kinds, pod)
            assert {k.name for k in landed} == {k.name for k in plan.allowed}
            assert all(fits(pod_request_of(pod), k) for k in landed)
    gpu_type = tier_kinds[-1].gpu_type
    pinned = run(parse_spec({**sft, "gpu_type": gpu_type}), env).plan
    assert {k.gpu_type for k in pinned.allowed} == {gpu_type}


def test_step_runs_the_training_package_entry_point() -> None:
    plan = run(load_spec(ROOT / "examples/jobs/04-sft-medical.yaml")).plan
    container = plan.pod_specs()[0][1]["containers"][0]
    assert container["args"][:4] == ["-m", "llm_platform.sft", "--config", STEP_CONFIG_FILE]
    download = run(load_spec(ROOT / "examples/jobs/01-download-model.yaml")).plan
    assert download.pod_specs()[0][1]["containers"][0]["command"] == [
        "python",
        "-m",
        "llm_platform.download_model",
        "--config",
        STEP_CONFIG_FILE,
    ]


@pytest.mark.parametrize("example", ["01-download-model.yaml", "02-prepare-medical.yaml", "06-grpo-gsm8k.yaml"])
def test_cpu_pods_use_the_cpu_pool_only(example: str) -> None:
    """llmft's CPU steps and the Ray head/submitter tolerate the Karpenter CPU pool's taint (and no other) and select
    its nodes, so they never land on (or wait for room on) the fixed system nodes (issue 40); they fit every kind they
    may land on (preflight checks it)."""
    from k8s_charts.node_shapes import CPU_POOL, SYSTEM

    values = PlatformValues.placeholders(load_config("dev"))
    plan = run(load_spec(ROOT / "examples/jobs" / example)).plan
    cpu_pods = [
        (where, pod)
        for where, pod in plan.pod_specs()
        if not any("nvidia.com/gpu" in c["resources"].get("limits", {}) for c in pod["containers"])
    ]
    assert cpu_pods
    for where, pod in cpu_pods:
        kinds = pod_kinds(values.node_kinds, pod)
        assert {k.source for k in kinds} == {CPU_POOL}, where
        assert SYSTEM != CPU_POOL
        assert all(fits(pod_request_of(pod), k) for k in kinds), where


def test_team_defaults_to_the_kube_context_namespace() -> None:
    spec = parse_spec({**yaml.safe_load((ROOT / "examples/jobs/05-evaluate.yaml").read_text()), "team": None})
    assert run(spec, namespace="ml-research").ok
    assert run(spec, namespace=None).failures()[0].message.startswith("no team")


def test_queue_label_when_the_queueing_layer_exists() -> None:
    plan = run(load_spec(ROOT / "examples/jobs/05-evaluate.yaml")).plan
    try:
        from k8s_charts.queues import local_queue_name  # type: ignore[import-not-found]
    except ImportError:
        assert QUEUE_LABEL not in plan.manifests[-1]["metadata"]["labels"]
    else:
        assert plan.manifests[-1]["metadata"]["labels"][QUEUE_LABEL] == local_queue_name("research")


def test_submit_dry_run_needs_no_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")  # no kubectl at all
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["submit", str(ROOT / "examples/jobs/04-sft-medical.yaml"), "--dry-run", "--env", "dev"])
    assert code == 0, err.getvalue()
    docs = list(yaml.safe_load_all(out.getvalue()))
    assert [d["kind"] for d in docs] == ["ConfigMap", "PyTorchJob"]
    # No cluster needed: the platform image's URI is known at synth (k8s_charts/images.py, content-hash tag).
    from config import load_config as _load
    from k8s_charts.images import image_uri

    assert image_uri(_load("dev"), "sft") in out.getvalue()
    assert image_placeholder("sft") not in out.getvalue()
    assert "preflight passed" in err.getvalue() and "nothing created" in err.getvalue()


def test_submit_without_cluster_says_how_to_proceed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["submit", str(ROOT / "examples/jobs/04-sft-medical.yaml"), "--env", "dev"])
    assert code == 2 and "--dry-run" in err.getvalue()


# ---- bad specs -------------------------------------------------------------------------------------------------
BASE = yaml.safe_load((ROOT / "examples/jobs/05-evaluate.yaml").read_text())
GRPO = yaml.safe_load((ROOT / "examples/jobs/06-grpo-gsm8k.yaml").read_text())
SFT = yaml.safe_load((ROOT / "examples/jobs/04-sft-medical.yaml").read_text())
DOWNLOAD = yaml.safe_load((ROOT / "examples/jobs/01-download-model.yaml").read_text())
PREPARE = yaml.safe_load((ROOT / "examples/jobs/02-prepare-medical.yaml").read_text())
CUSTOM_RAY = yaml.safe_load((ROOT / "examples/jobs/custom-ray.yaml").read_text())
BENCH = yaml.safe_load((ROOT / "examples/jobs/04-benchmark-medical.yaml").read_text())


def _bench(**settings: object) -> dict:
    return {**BENCH, "settings": {**BENCH["settings"], **settings}}


def refusal(data: dict, env: str = "dev") -> str:
    """The messages a user sees for ``data``: spec errors, or every failed preflight check."""
    try:
        spec = parse_spec(data, source="job.yaml")
    except ConfigError as exc:
        return str(exc)
    result = run(spec, env)
    assert not result.ok, f"expected a refusal, got:\n{result.report()}"
    return "\n".join(c.message for c in result.failures())


BAD_SPECS = [
    ("unknown tier", {**BASE, "tier": "gold"}, r"tier 'gold' is not a job tier; use one of production, development"),
    ("unknown type", {**BASE, "type": "finetune"}, r"type 'finetune' is not a job type; use one of sft, evaluate"),
    ("unknown key", {**BASE, "gpus": 8}, r"gpus: unknown key; remove it or fix its spelling"),
    ("bad name", {**BASE, "name": "Medical_Eval"}, r"name 'Medical_Eval' is not a valid job name"),
    ("YAML 1.1 number for a string", {**BASE, "gpu_type": 100}, r"gpu_type: .*but a string is expected; quote it"),
    ("boolean for a number", {**BASE, "nodes": True}, r"nodes: .*boolean, but a number is expected"),
    ("nodes and elastic", {**BASE, "type": "sft", "min_nodes": 1}, r"give either nodes .* or min_nodes/max_nodes"),
    (
        "min above max",
        {**{k: v for k, v in BASE.items() if k != "nodes"}, "type": "sft", "min_nodes": 3, "max_nodes": 2},
        r"min_nodes 3 is above max_nodes 2",
    ),
    (
        "custom without image",
        {**{k: v for k, v in BASE.items() if k != "experiment"}, "type": "custom", "custom": {"command": ["python"]}},
        r"type custom with kind pytorch needs image",
    ),
    (
        "custom section on sft",
        {**BASE, "type": "sft", "custom": {"command": ["x"]}},
        r"custom applies to type custom only",
    ),
    ("grpo settings on evaluate", {**BASE, "grpo": {"rollout_n": 4}}, r"grpo settings apply to type grpo only"),
    (
        "GPUs for a CPU job",
        {
            "name": "dl",
            "tier": "development",
            "type": "download-model",
            "model": "Qwen/x",
            "team": "ml-research",
            "gpus_per_node": 1,
        },
        r"type download-model is one CPU pod .*; remove gpus_per_node",
    ),
    ("missing dataset", {k: v for k, v in BASE.items() if k != "dataset"}, r"type evaluate needs dataset"),
    ("unknown team", {**BASE, "team": "vision"}, r"unknown team 'vision'; known teams .*ml-research"),
    (
        "tier not allowed",
        {**BASE, "tier": "production"},
        r"team 'ml-research' may not submit 'production' jobs; its allowed tiers .* are development, research",
    ),
    (
        "priority class of another tier",
        {**BASE, "priority_class": "critical"},
        r"priority class 'critical' is not allowed in tier 'research'; use one of medium",
    ),
    (
        "over quota",
        {**GRPO, "team": "hyperpod-platform"},
        r"needs 16 GPUs at once but team 'hyperpod-platform' may hold at most 8 .*use fewer nodes or GPUs",
    ),
    (
        "no node kind with that GPU",
        {**BASE, "gpu_type": "b200"},
        r"no node kind of tier 'research' matches gpu_type b200.*the tier's GPU nodes in dev are: .*a10g",
    ),
    (
        "no node kind with that many GPUs",
        {**SFT, "tier": "research", "instance_type": "ml.g5.8xlarge", "gpus_per_node": 4},
        r"no node kind of tier 'research' matches instance_type ml.g5.8xlarge gpus_per_node 4",
    ),
    (
        "multi-node job no kind can hold",
        {**GRPO, "nodes": 4},
        r"4 nodes of p5.48xlarge do not fit one node kind of tier 'development'.*never spans HyperPod and EC2",
    ),
    (
        "pod larger than the node",
        {**BASE, "cpu": 500},
        r"a pod of 500 CPU .* does not fit hyperpod/gpu-workers \(ml.g5.8xlarge, allocatable .*\): CPU 500 >",
    ),
    (
        "path outside the team",
        {**BASE, "dataset": "/fsx/../other-team/datasets"},
        r"dataset '/fsx/../other-team/datasets' is outside the team's directory; jobs see only their team's tree",
    ),
    (
        "path on another mount",
        {**BASE, "output": "/data/teams/hyperpod-platform/out"},
        r"output '/data/teams/hyperpod-platform/out' is outside the team's directory",
    ),
    (
        "path in settings",
        {**BASE, "settings": {"base_model_path": "/mnt/shared/llama"}},
        r"settings.base_model_path '/mnt/shared/llama' is outside the team's directory",
    ),
    (
        "hub id for a training job",
        {**BASE, "model": "Qwen/Qwen2.5-1.5B-Instruct"},
        r"model 'Qwen/Qwen2.5-1.5B-Instruct' is not a path; evaluate jobs read from the team's FSx tree, so fetch it "
        r"first with a download-model job",
    ),
    (
        "grpo batch not divisible by GPUs",
        {**GRPO, "grpo": {**GRPO["grpo"], "train_batch_size": 100, "ppo_mini_batch_size": 50}},
        r"train_batch_size 100 x rollout_n 5 .*divisible by the (job's )?16 GPUs",
    ),
    (
        "grpo tensor parallel vs GPUs",
        {**GRPO, "grpo": {**GRPO["grpo"], "tensor_parallel_size": 3}},
        r"tensor_parallel_size 3 must divide gpus_per_node 8",
    ),
    (
        "grpo unknown setting",
        {**GRPO, "grpo": {**GRPO["grpo"], "rollout_engine": "vllm"}},
        r"grpo.rollout_engine: not a setting of the grpo step; did you mean 'rollout_n'\? remove it or use one of: "
        r".*tensor_parallel_size",
    ),
    # what only the step could catch, refused at preflight from its own schema (llm_platform.steps)
    (
        "settings typo",
        {**SFT, "settings": {**SFT["settings"], "lora_rr": 16}},
        r"settings.lora_rr: not a setting of the sft step; did you mean 'lora_r'\? remove it or use one of: .*lora_r",
    ),
    (
        "settings of the wrong type",
        {**SFT, "settings": {**SFT["settings"], "learning_rate": "fast"}},
        r"settings.learning_rate: 'fast' is a str; sft expects float \(e.g. 0.0002\)",
    ),
    (
        "settings overriding the spec",
        {**SFT, "settings": {"model_id": "/fsx/models/other"}},
        r"settings.model_id: set by the spec's model \('/fsx/models/Qwen2.5-1.5B-Instruct'\); remove it from settings",
    ),
    (
        "evaluate without a base model",
        {**BASE, "settings": {}},
        r"settings.base_model_path: required by the evaluate step and missing; add it",
    ),
    (
        "download of a branch",
        {**DOWNLOAD, "settings": {"revision": "main"}},
        r"revision 'main' is not a commit sha; pin the 40-hex commit of Qwen/Qwen2.5-1.5B-Instruct",
    ),
    (
        "download without a revision",
        {**DOWNLOAD, "settings": {}},
        r"settings.revision: required by the download-model step and missing; add it",
    ),
    # issue 20's classes: ids, pins, platform variables, fields of another type, everything at once
    (
        "model id not org/name",
        {**DOWNLOAD, "model": "qwen2.5"},
        r"model 'qwen2.5' is not a Hugging Face model id; use org/name, e.g. Qwen/Qwen2.5-1.5B-Instruct",
    ),
    (
        "a path as the model to download",
        {**DOWNLOAD, "model": "/fsx/models/qwen"},
        r"model '/fsx/models/qwen' is a path; download-model fetches a Hugging Face model id",
    ),
    (
        "image on latest",
        {**SFT, "image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/team/trainer:latest"},
        r"image '.*trainer:latest' is not pinned: latest moves.*give a version tag .* or a digest",
    ),
    (
        "image without a tag",
        {**SFT, "image": "nvcr.io/nvidia/pytorch"},
        r"image 'nvcr.io/nvidia/pytorch' is not pinned: no tag means latest",
    ),
    (
        "env overriding MLflow",
        {**SFT, "env": {"MLFLOW_TRACKING_URI": "http://evil", "MLFLOW_TRACKING_PASSWORD": "x"}},
        r"env: MLFLOW_TRACKING_URI, MLFLOW_TRACKING_PASSWORD are set by the platform .* cannot be overridden",
    ),
    (
        "secret_env overriding the team's identity",
        {**SFT, "secret_env": {"TEAM_DATA_DIR": {"secret": "s", "key": "k"}}},
        r"secret_env: TEAM_DATA_DIR are set by the platform",
    ),
    ("nodes on a CPU step", {**DOWNLOAD, "nodes": 2}, r"type download-model is one CPU pod .*; remove nodes"),
    (
        "experiment on a step without MLflow",
        {**DOWNLOAD, "experiment": "medical"},
        r"experiment applies to sft, evaluate, grpo and benchmark .*remove it \(type is download-model\)",
    ),
    ("settings on grpo", {**GRPO, "settings": {"rollout_n": 4}}, r"type grpo takes its settings under grpo:"),
    (
        "prepare-data of an unknown dataset",
        {**PREPARE, "dataset": "openai/gsm8k"},
        r"dataset 'openai/gsm8k' is neither a built-in dataset \(gsm8k, medical-o1\) nor a file under /fsx",
    ),
    (
        "grpo number as a string",
        {**GRPO, "grpo": {**GRPO["grpo"], "train_batch_size": "64"}},
        r"grpo.train_batch_size: '64' is a str; grpo expects int \(e.g. 8\)",
    ),
    (
        "custom ray image of unknown Ray",
        {**CUSTOM_RAY, "image": "rayproject/ray:2.49.1-gpu"},
        r"custom.ray_version: the Ray version of image rayproject/ray:2.49.1-gpu is unknown",
    ),
    (
        "custom ray image without token auth",
        {
            **CUSTOM_RAY,
            "image": "rayproject/ray:2.49.1-gpu",
            "custom": {**CUSTOM_RAY["custom"], "ray_version": "2.49.1"},
        },
        r"Ray 2.49.1 is older than 2.52.0, the first release with token authentication",
    ),
    (
        "every problem at once",
        {**DOWNLOAD, "nodes": 2, "experiment": "x", "model": "/fsx/m"},
        r"remove nodes.*\n.*experiment applies.*\n.*model '/fsx/m' is a path",
    ),
    # type benchmark (issue 28): the spec's placement, then the step's own schema (llm_platform.bench.BenchConfig)
    ("benchmark on two nodes", {**BENCH, "nodes": 2}, r"type benchmark measures one node \(nodes 2\); remove nodes"),
    (
        "benchmark on every GPU",
        {**BENCH, "gpus_per_node": 4},
        r"gpus_per_node 4: type benchmark measures one GPU .*; remove gpus_per_node",
    ),
    (
        "benchmark of a hub dataset",
        {**BENCH, "dataset": "FreedomIntelligence/medical-o1-reasoning-SFT"},
        r"dataset 'FreedomIntelligence/medical-o1-reasoning-SFT' is not a path; a benchmark reads a prepared dataset "
        r"folder .* under /fsx, or leave dataset out",
    ),
    (
        "benchmark tokenizer without rows",
        {k: v for k, v in BENCH.items() if k != "dataset"},
        r"model applies to a benchmark of real rows .*; add dataset or remove model",
    ),
    (
        "benchmark without a shape",
        {**BENCH, "settings": {"steps": 4}},
        r"settings.shape: required by the benchmark step and missing; add it",
    ),
    (
        "benchmark of an unknown shape",
        _bench(shape="llama-3-70b"),
        r"settings.shape: 'llama-3-70b' is not a known shape; use one of .*qwen2.5-1.5b",
    ),
    (
        "benchmark of too many steps",
        _bench(steps=5000),
        r"settings.steps: 5000 is outside 1-\d+; a benchmark measures a few steps \(an sft job trains\)",
    ),
    ("benchmark steps as a string", _bench(steps="12"), r"settings.steps: '12' is a str; benchmark expects int"),
    (
        "benchmark variant without a value",
        _bench(variants=["a:packing"]),
        r"settings.variants\[0\]: variant 'a:packing': 'packing' is not key=value; write 'name:key=value,key=value'",
    ),
    (
        "benchmark variant typo",
        _bench(variants=["ok:", "b:lora_rr=4"]),
        r"settings.variants\[1\].lora_rr: not a setting of the sft step; did you mean 'lora_r'\?",
    ),
    (
        "benchmark variants of one name",
        _bench(variants=["a:lora_r=4", "a:lora_r=8"]),
        r"settings.variants\[1\]: recipe name 'a' is used twice; give each variant its own name",
    ),
    (
        "benchmark recipe typo",
        _bench(recipe={"lora_alpah": 16}),
        r"settings.recipe.lora_alpah: not a setting of the sft step; did you mean 'lora_alpha'\?",
    ),
    (
        "benchmark recipe choosing the model",
        _bench(recipe={"model_id": "/fsx/models/other"}),
        r"settings.recipe.model_id: set by the benchmark \(the built model, .*\); remove it",
    ),
    (
        "benchmark settings overriding the spec",
        _bench(output_dir="/fsx/outputs/other"),
        r"settings.output_dir: set by the spec's output \('/fsx/outputs/medical-bench'\); remove it from settings",
    ),
]


@pytest.mark.parametrize(("case", "data", "pattern"), BAD_SPECS, ids=[c[0] for c in BAD_SPECS])
def test_bad_spec_is_refused_with_the_fix(case: str, data: dict, pattern: str) -> None:
    message = refusal(data)
    assert re.search(pattern, message, re.S), f"{case}: {pattern!r} not in:\n{message}"


def test_at_least_twenty_bad_specs() -> None:
    assert len(BAD_SPECS) >= 20


def test_duplicate_keys_and_yaml_surprises_in_spec_files(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("name: a\nname: b\ntier: research\ntype: evaluate\n")
    with pytest.raises(ConfigError, match=r"found duplicate key 'name'"):
        load_spec(path)
    path.write_text((ROOT / "examples/jobs/05-evaluate.yaml").read_text().replace("name: medical-eval", "name: 1:30"))
    with pytest.raises(ConfigError, match=r"name: the YAML value 1:30 was read as the integer 90 .*quote it"):
        load_spec(path)


def test_cli_refusal_exit_code_and_message(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump({**BASE, "tier": "production"}))
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["render", str(path), "--env", "dev"])
    assert code == 1
    assert (
        "preflight refused medical-eval (env dev, team ml-research, tier production); nothing was created"
        in err.getvalue()
    )
    assert "[FAIL] tier: team 'ml-research' may not submit 'production' jobs" in err.getvalue()


@pytest.mark.parametrize(
    ("data", "check"),
    [
        ({**GRPO, "grpo": {**GRPO["grpo"], "train_batch_size": 100, "ppo_mini_batch_size": 50}}, "grpo"),
        ({**BASE, "priority_class": "critical"}, "priority"),
        ({**SFT, "settings": {"lora_rr": 1}}, "settings"),
    ],
)
def test_refusals_name_the_rule(data: dict, check: str) -> None:
    """A refusal is filed under the rule that refused it (batch divisibility is `grpo`, not `placement`)."""
    result = run(parse_spec(data))
    assert [c.name for c in result.failures()] == [check], result.report()


def test_non_utf8_and_empty_specs_fail_without_traceback(tmp_path: Path) -> None:
    for name, content, pattern in (
        ("latin1.yaml", "name: caf\xe9\n".encode("latin-1"), r"is not UTF-8 text"),
        ("empty.yaml", b"", r"is empty; a job spec needs at least name, tier and type"),
    ):
        path = tmp_path / name
        path.write_bytes(content)
        err = io.StringIO()
        with redirect_stderr(err):
            code = main(["render", str(path), "--env", "dev"])
        assert code == 1 and re.search(pattern, err.getvalue()) and "Traceback" not in err.getvalue(), err.getvalue()


def test_secret_env_becomes_secret_key_refs() -> None:
    spec = parse_spec({**DOWNLOAD, "secret_env": {"HF_TOKEN": {"secret": "hf-token", "key": "token"}}})
    plan = run(spec).plan
    for _, pod in plan.pod_specs():
        env = {e["name"]: e for e in pod["containers"][0]["env"]}
        assert env["HF_TOKEN"] == {
            "name": "HF_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}},
        }
    version = CONFIGS["dev"].compute.kubernetes_version
    assert validate(plan.manifests[-1], version) == []


def test_protected_variables_cover_what_the_platform_sets() -> None:
    """Every variable the builders put in a job pod (literal or from the MLflow ConfigMap/Secret), other than the
    NCCL/EFA tuning a job may change, is one a spec cannot override."""
    from k8s_charts.mlflow_credentials import PASSWORD_KEY, USERNAME_KEY
    from llmft.spec import protected_env

    platform = {USERNAME_KEY, PASSWORD_KEY, "MLFLOW_TRACKING_URI"}
    for path in EXAMPLES:
        plan = run(load_spec(path)).plan
        for _, pod in plan.pod_specs():
            for c in pod["containers"]:
                platform |= {
                    e["name"] for e in c.get("env", []) if not e["name"].startswith(("NCCL_", "FI_", "OMP_", "TORCH_"))
                }
    spec_env = {n for p in EXAMPLES for n in load_spec(p).env}
    assert all(protected_env(name) for name in platform - spec_env), sorted(n for n in platform if not protected_env(n))


def test_custom_ray_job_is_a_plain_rayjob() -> None:
    """The user's entrypoint, Ray from the platform image's lock, no VeRL batch rules (3 GPUs per node is fine)."""
    from k8s_charts.ray_job import RAY_VERSION

    spec = parse_spec({**CUSTOM_RAY, "gpus_per_node": 3, "instance_type": "p4d.24xlarge"})
    plan = run(spec).plan
    job = plan.manifests[-1]
    assert job["kind"] == "RayJob" and job["spec"]["entrypoint"] == shlex.join(CUSTOM_RAY["custom"]["command"])
    assert job["spec"]["rayClusterSpec"]["rayVersion"] == RAY_VERSION
    assert "verl" not in json.dumps(job["spec"]["entrypoint"])
    own = parse_spec(
        {
            **CUSTOM_RAY,
            "image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/t/ray:2.54.0",
            "custom": {**CUSTOM_RAY["custom"], "ray_version": "2.54.0"},
        }
    )
    assert run(own).plan.manifests[-1]["spec"]["rayClusterSpec"]["rayVersion"] == "2.54.0"


class FakeKubectl:
    """Records the kubectl calls llmft makes; `existing` names objects that are already there."""

    def __init__(self, existing: set[str] = frozenset()) -> None:
        self.calls: list[list[str]] = []
        self.existing = existing

    def __call__(self, cluster, *args: str, stdin: str | None = None, check: bool = True):
        import subprocess

        self.calls.append(list(args))
        out = ""
        if args[0] == "get" and args[-2:] == ("-o", "json"):
            out = json.dumps({"items": [], "data": {}})  # no quota, no platform-images ConfigMap
        elif args[0] == "get" and "--ignore-not-found" in args:
            out = f"{args[1]}/{args[2]}" if f"{args[1]}/{args[2]}" in self.existing else ""
        elif args[0] == "create" and "-o" in args:
            doc = yaml.safe_load(stdin)
            out = json.dumps({**doc, "metadata": {**doc["metadata"], "uid": "uid-1"}})
        return subprocess.CompletedProcess(args, 0, out, "")


def _submit(monkeypatch: pytest.MonkeyPatch, fake: FakeKubectl) -> tuple[int, str]:
    from llmft.cluster import Cluster

    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", lambda self, *args, **kwargs: fake(self, *args, **kwargs))
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["submit", str(ROOT / "examples/jobs/04-sft-medical.yaml"), "--env", "dev"])
    return code, err.getvalue()


def test_submit_creates_and_never_patches(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKubectl()
    code, err = _submit(monkeypatch, fake)
    assert code == 0, err
    verbs = [c[0] for c in fake.calls]
    assert "apply" not in verbs and "patch" not in verbs and "replace" not in verbs
    creates = [c for c in fake.calls if c[0] == "create"]
    assert len(creates) == 2  # the job first (its uid), then the ConfigMap it owns


def test_submit_refuses_a_taken_name(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKubectl(existing={"pytorchjobs.kubeflow.org/medical-sft"})
    code, err = _submit(monkeypatch, fake)
    assert code == 2 and "already exists" in err and "llmft cancel medical-sft" in err and "new name" in err
    assert not [c for c in fake.calls if c[0] in ("create", "apply", "patch")]


def test_the_step_configmap_is_immutable_and_owned_by_its_job(monkeypatch: pytest.MonkeyPatch) -> None:
    from llmft.cluster import Cluster

    fake = FakeKubectl()
    seen = []
    original = fake.__call__

    def record(cluster, *args, stdin=None, check=True):
        if args[0] == "create":
            seen.append(yaml.safe_load(stdin))
        return original(cluster, *args, stdin=stdin, check=check)

    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", record)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["submit", str(ROOT / "examples/jobs/04-sft-medical.yaml"), "--env", "dev"]) == 0
    job, config_map = seen
    assert job["kind"] == "PyTorchJob" and config_map["kind"] == "ConfigMap" and config_map["immutable"] is True
    assert config_map["metadata"]["ownerReferences"] == [
        {
            "apiVersion": job["apiVersion"],
            "kind": "PyTorchJob",
            "name": "medical-sft",
            "uid": "uid-1",
            "blockOwnerDeletion": True,
        }
    ]


def test_help_and_cluster_commands_never_load_cdk8s() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom llmft.cli import main\n"
        "for argv in (['--help'], ['status', 'x'], ['list'], ['logs', 'x'], ['cancel', 'x'], ['port-forward', 'x']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('cdk8s', 'cdk8s_plus_28', 'jsii', "
        "'config', 'k8s_charts', 'pydantic'))\n"
        "print('LOADED', loaded)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PATH": "/nonexistent"},
    )
    assert "LOADED []" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_render_to_a_checkout_writes_what_the_teams_argo_cd_project_accepts(tmp_path: Path) -> None:
    """`llmft render SPEC -o CHECKOUT` puts every example where its team's Application syncs, and every object in it
    is one the team's AppProject whitelists in the team's namespace (the project built from the team Role); a job in
    Git carries no finished-job TTL (Argo CD would recreate and re-run it after the TTL)."""
    from config.gitops import team_job_file
    from k8s_charts.gitops import team_delivery_kinds, team_role_rules

    config = CONFIGS["dev"]
    for path in EXAMPLES:
        spec = load_spec(path)
        if spec.type == "serve":  # tests/test_serve.py (the team Role's serving kinds land on the platform branch)
            continue
        with redirect_stderr(io.StringIO()):
            assert main(["render", str(path), "--env", "dev", "-o", str(tmp_path)]) == 0
        target = tmp_path / team_job_file(config.gitops_path, spec.team, spec.name)
        docs = list(yaml.safe_load_all(target.read_text()))
        team = config.kubernetes.team(spec.team)
        allowed = {(k.group, k.kind) for k in team_delivery_kinds(team_role_rules(team, VALUES["dev"]))}
        for doc in docs:
            group = doc["apiVersion"].rsplit("/", 1)[0] if "/" in doc["apiVersion"] else ""
            assert (group, doc["kind"]) in allowed, (path.name, doc["kind"], sorted(allowed))
            assert doc["metadata"]["namespace"] == team.namespace
            assert "ttlSecondsAfterFinished" not in doc["spec"] if doc["kind"] == "Job" else True
            assert "ttlSecondsAfterFinished" not in doc.get("spec", {}).get("runPolicy", {})


def test_preflight_refuses_an_sft_recipe_whose_model_cannot_fit_the_gpus() -> None:
    """The SFT step's memory model (llm_platform.memory): a 14B LoRA on the dev A10G node kind (24 GB) does not fit
    even with activation checkpointing; preflight names the fix. QLoRA fits everywhere the job may land."""
    data = {
        **yaml.safe_load((ROOT / "examples/jobs/04-sft-medical.yaml").read_text()),
        "model": "/fsx/models/DeepSeek-R1-Distill-Qwen-14B",
    }
    result = run(parse_spec(data))
    # the job names no gpu_type, so it may also land on the tier's on-demand H100s (where it fits): the A10G it may
    # land on first refuses it all the same
    memory = [c for c in result.checks if c.name == "memory" and c.status == "FAIL"]
    assert not result.ok and memory and all("g5." in c.message for c in memory), result.report()
    assert "load_in_4bit: true" in memory[0].message and "qwen2.5-14b" in memory[0].message
    data["settings"] = {**data["settings"], "load_in_4bit": True}
    assert run(parse_spec(data)).ok


# --- type benchmark (issue 28) -------------------------------------------------------------------------------------
SYNTHETIC_BENCH = {
    "name": "bench-synthetic",
    "team": "ml-research",
    "tier": "development",
    "type": "benchmark",
    "experiment": "recipes",
    "settings": {"shape": "tiny", "steps": 2, "warmup": 1},
}


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("data", [BENCH, SYNTHETIC_BENCH], ids=["real-rows", "synthetic"])
def test_benchmark_is_a_one_gpu_pytorchjob_of_the_sft_image(env: str, data: dict) -> None:
    from k8s_charts.tiers import EFA_RESOURCE, GPU_RESOURCE
    from llmft.job_types import get

    spec = parse_spec(data)
    result = run(spec, env)
    assert result.ok, result.report()
    plan = result.plan
    version = CONFIGS[env].compute.kubernetes_version
    for doc in plan.manifests:
        assert validate(doc, version) == [], doc["kind"]
    job = plan.manifests[-1]
    assert job["kind"] == "PyTorchJob" and job["spec"]["nprocPerNode"] == "1"
    assert job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 1
    assert get("benchmark").image == get("sft").image  # the benchmark runs the SFT code
    ((_, pod),) = plan.pod_specs()
    (container,) = pod["containers"]
    assert container["image"] == IMAGE
    assert container["command"] == ["torchrun"]
    assert container["args"] == ["-m", "llm_platform.bench", "--config", STEP_CONFIG_FILE]
    requests = container["resources"]["requests"]
    assert requests[GPU_RESOURCE] == 1 and EFA_RESOURCE not in requests, requests
    assert plan.gpus == 1
    step = yaml.safe_load(plan.manifests[0]["data"]["step.yaml"])
    assert step == plan.step
    assert step["instance_type"] == plan.kinds[0].instance_type  # the epoch is costed where it would run
    assert step["mlflow_experiment_name"] == f"{plan.team.name}/{spec.experiment or spec.name}"
    assert step["output_dir"].startswith("/fsx/") and step["shape"] == data["settings"]["shape"]
    if spec.dataset:
        assert step["data"] == f"{spec.dataset}/train.jsonl" and step["tokenizer"] == spec.model
    else:
        assert "data" not in step and "tokenizer" not in step


def test_benchmark_refusal_through_the_cli_names_the_field_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(_bench(shape="gpt-5", variants=["a:lora_rr=1"])))
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["render", str(path), "--env", "dev"])
    assert code == 1
    assert "settings.shape: 'gpt-5' is not a known shape" in err.getvalue()
    assert "settings.variants[0].lora_rr: not a setting of the sft step" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_benchmark_runs_locally_on_cpu(tmp_path: Path) -> None:
    """`llmft run --local` of a benchmark spec: the job's step file and entry point (under torchrun), on CPU with the
    tiny shape and 2 steps, results under the mapped /fsx and one MLflow run in the team's experiment."""
    import subprocess
    import sys

    train_python = ROOT / ".train-venv" / "bin" / "python"
    if not train_python.exists():
        pytest.fail(f"{train_python} is missing: run `make install`")
    spec = {
        **SYNTHETIC_BENCH,
        "settings": {
            **SYNTHETIC_BENCH["settings"],
            "rows": 24,
            "variants": ["small:"],
            "recipe": {"max_seq_length": 256, "max_tokens_per_step": 512, "tokens_per_optimizer_step": 512},
        },
    }
    path = tmp_path / "bench.yaml"
    path.write_text(yaml.safe_dump(spec))
    fsx = tmp_path / "fsx"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "llmft",
            "run",
            "--local",
            str(path),
            "--env",
            "dev",
            "--fsx",
            str(fsx),
            "--python",
            str(train_python),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": str(ROOT / "training"),
        },
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "tok/s" in proc.stdout and "epoch $" in proc.stdout
    saved = json.loads((fsx / "outputs" / spec["name"] / "results.json").read_text())
    assert [(r["name"], r["steps"], r["error"]) for r in saved["results"]] == [("small", 2, None)]
    experiments = [yaml.safe_load(p.read_text()) for p in (fsx / "mlruns").glob("*/meta.yaml")]
    (experiment,) = [e for e in experiments if e["name"] == f"ml-research/{spec['experiment']}"]
    runs = [yaml.safe_load(p.read_text()) for p in (fsx / "mlruns" / experiment["experiment_id"]).glob("*/meta.yaml")]
    assert [r["run_name"] for r in runs] == [f"{spec['name']}/small"]
