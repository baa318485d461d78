"""Save on eviction as rendered (issue 44): a training pod's grace period after SIGTERM is derived from the checkpoint
its step writes and the file system's throughput, and torchrun waits that long for its workers to save; a GRPO job's
Ray pods wait in their preStop hook for VeRL's save of the step in progress."""

from __future__ import annotations

import pytest
import yaml
from llm_platform import grpo_stop, memory, mfu, preemption
from llm_platform.grpo_config import GrpoParameters

from config import load_config
from k8s_charts.pytorch_job import AGENT_EXIT_SECONDS, SHUTDOWN_TIMEOUT_ENV
from k8s_charts.values import PlatformValues
from llmft.build import build, grace_for
from llmft.spec import parse_spec

from .conftest import ENVIRONMENTS, ROOT
from .guardrail_eval import admission_refusals
from .test_examples_chain import IMAGE
from .test_team_guardrails import ns_labels, team_manifests

SFT = yaml.safe_load((ROOT / "examples" / "jobs" / "04-sft-medical.yaml").read_text())


def _worker(plan) -> dict:
    job = plan.manifests[-1]
    return job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_the_sft_pods_grace_period_is_the_checkpoints_write_time(env: str) -> None:
    config = load_config(env)
    spec = parse_spec(SFT)
    team = config.kubernetes.team(spec.team)
    plan = build(spec, config=config, team=team, values=PlatformValues.placeholders(config), image=IMAGE)
    pod = _worker(plan)
    fsx = config.storage.fsx
    rate = fsx.throughput_mib_per_tib * fsx.storage_capacity_gib / 1024 * 1.048576
    dims, _ = memory.resolve_dims(plan.step["model_id"])
    expected = preemption.grace_seconds(12 * dims.lora_params(int(plan.step.get("lora_r", 8))), write_mb_s=rate)
    assert pod["terminationGracePeriodSeconds"] == expected >= preemption.MIN_GRACE_SECONDS
    env_vars = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env_vars[SHUTDOWN_TIMEOUT_ENV] == str(expected - AGENT_EXIT_SECONDS)


def test_a_checkpoint_that_outlasts_the_minimum_gets_a_longer_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The figure moves with what it is derived from: a slow file system makes the same checkpoint take longer."""
    config = load_config("dev")
    spec = parse_spec(SFT)
    team = config.kubernetes.team(spec.team)
    step = build(spec, config=config, team=team, values=PlatformValues.placeholders(config), image=IMAGE).step
    fast = grace_for(spec, step, config)
    slow_fsx = config.storage.fsx.model_copy(update={"throughput_mib_per_tib": 125, "storage_capacity_gib": 1})
    slow = config.model_copy(update={"storage": config.storage.model_copy(update={"fsx": slow_fsx})})
    assert grace_for(spec, step, slow) > fast


GRPO = yaml.safe_load((ROOT / "examples" / "jobs" / "06-grpo-gsm8k.yaml").read_text())


def _grpo_plan(env: str, **changes):
    config = load_config(env)
    spec = parse_spec({**GRPO, **changes})
    team = config.kubernetes.team(spec.team)
    return config, build(spec, config=config, team=team, values=PlatformValues.placeholders(config), image=IMAGE)


def _planned_grpo_grace(config, plan) -> int:
    """The grace derived here from its inputs: the step file's batch, the memory model's shape, the slowest GPU the
    job may be placed on (datasheet peaks of llm_platform.mfu) and the FSx throughput of the environment."""
    params = GrpoParameters(**plan.step)
    dims, _ = memory.resolve_dims(params.model_path)
    peaks = [mfu.peak_flops(k.gpu_type) for k in plan.allowed]
    assert peaks and None not in peaks, [k.gpu_type for k in plan.allowed]
    fsx = config.storage.fsx
    return preemption.grpo_grace_seconds(
        dims.params,
        tokens_per_step=params.train_batch_size
        * params.rollout_n
        * (params.max_prompt_length + params.max_response_length),
        gpus=params.nodes * params.gpus_per_node,
        peak_flops_per_gpu=min(peaks),
        write_mb_s=fsx.throughput_mib_per_tib * fsx.storage_capacity_gib / 1024 * 1.048576,
    )


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_grpo_ray_pods_wait_for_a_save_sized_from_a_step_and_the_checkpoint(env: str) -> None:
    """The head and every GPU worker run the preStop hook (Kubernetes runs it before SIGTERM, inside the grace
    period) with the grace less Ray's exit as its budget; the submitter, which only follows the driver's log, keeps
    the minimum; the RayJob passes every admission policy of the team namespace."""
    config, plan = _grpo_plan(env)
    grace = _planned_grpo_grace(config, plan)
    assert preemption.MIN_GRACE_SECONDS <= grace <= preemption.MAX_GRACE_SECONDS
    job = plan.manifests[-1]
    cluster = job["spec"]["rayClusterSpec"]
    hook = grpo_stop.hook_command(plan.step["checkpoint_dir"], grace - grpo_stop.RAY_EXIT_SECONDS)
    for pod in [cluster["headGroupSpec"]["template"]["spec"], cluster["workerGroupSpecs"][0]["template"]["spec"]]:
        assert pod["terminationGracePeriodSeconds"] == grace
        assert pod["containers"][0]["lifecycle"] == {"preStop": {"exec": {"command": hook}}}
    submitter = job["spec"]["submitterPodTemplate"]["spec"]
    assert submitter["terminationGracePeriodSeconds"] == preemption.MIN_GRACE_SECONDS
    assert "lifecycle" not in submitter["containers"][0]
    namespace = job["metadata"]["namespace"]
    assert admission_refusals(team_manifests(env), job, ns_labels(env, namespace)) == []


def test_the_grpo_grace_moves_with_its_inputs_and_stops_at_the_cap() -> None:
    """A slower file system lengthens it; a model whose step and save outlast the cap gets the cap."""
    config, plan = _grpo_plan("dev")
    fast = grace_for(plan.spec, plan.step, config, plan.allowed)
    slow_fsx = config.storage.fsx.model_copy(update={"throughput_mib_per_tib": 125, "storage_capacity_gib": 600})
    slow = config.model_copy(update={"storage": config.storage.model_copy(update={"fsx": slow_fsx})})
    assert grace_for(plan.spec, plan.step, slow, plan.allowed) > fast
    config, large = _grpo_plan("dev", model="/fsx/models/Llama-3.3-70B-Instruct")
    assert grace_for(large.spec, large.step, config, large.allowed) == preemption.MAX_GRACE_SECONDS
