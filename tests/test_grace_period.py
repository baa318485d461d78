"""Save on eviction as rendered (issue 44): a training pod's grace period after SIGTERM is derived from the checkpoint
its step writes and the file system's throughput, and torchrun waits that long for its workers to save."""

from __future__ import annotations

import pytest
import yaml
from llm_platform import memory, preemption

from config import load_config
from k8s_charts.pytorch_job import AGENT_EXIT_SECONDS, SHUTDOWN_TIMEOUT_ENV
from k8s_charts.values import PlatformValues
from llmft.build import build, grace_for
from llmft.spec import parse_spec

from .conftest import ROOT
from .test_examples_chain import IMAGE

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


def test_grpo_pods_keep_the_minimum_grace() -> None:
    """VeRL writes nothing after SIGTERM (training/tests/test_grpo_preemption.py), so every pod of a GRPO job gets the
    platform minimum: a longer grace would only hold its GPUs."""
    from k8s_charts.validation import embedded_pod_templates

    config = load_config("dev")
    spec = parse_spec(yaml.safe_load((ROOT / "examples" / "jobs" / "06-grpo-gsm8k.yaml").read_text()))
    team = config.kubernetes.team(spec.team)
    plan = build(spec, config=config, team=team, values=PlatformValues.placeholders(config), image=IMAGE)
    pods = [t["spec"] for _, t in embedded_pod_templates(plan.manifests[-1])]
    assert pods and {p.get("terminationGracePeriodSeconds") for p in pods} == {preemption.MIN_GRACE_SECONDS}
