"""Cost logged to the MLflow run (issue 44): the step file llmft renders for an SFT job carries the on-demand price
of a GPU-hour of where the job may run, from config/data/prices.yaml, so the step logs ``cost_usd`` beside
``gpu_hours`` (llm_platform.sft ``GpuClock``; the logging itself is tested on the tiny CPU run,
training/tests/test_sft.py). The expected price is derived here from the rendered pods' node affinity and the price
file read as YAML, not from llmft's own lookup."""

from __future__ import annotations

import pytest
import yaml

from config import load_config
from config.pricing import PRICES_FILE
from k8s_charts.validation import embedded_pod_templates
from k8s_charts.values import PlatformValues
from llmft.build import StepProblems, build
from llmft.spec import parse_spec

from .conftest import ENVIRONMENTS, ROOT
from .test_examples_chain import IMAGE
from .test_kueue import gpus, matches

pytestmark = pytest.mark.synth  # renders the job through cdk8s

SFT = yaml.safe_load((ROOT / "examples" / "jobs" / "04-sft-medical.yaml").read_text())
PRICES = yaml.safe_load(PRICES_FILE.read_text())
PRICE_FIELD = "gpu_usd_per_hour"  # llm_platform.sft.ScriptArguments


def _plan(env: str, data: dict):
    config = load_config(env)
    spec = parse_spec(data)
    return build(
        spec,
        config=config,
        team=config.kubernetes.team(spec.team),
        values=PlatformValues.placeholders(config),
        image=IMAGE,
    ), config


def _schedulable(pod_spec: dict, labels: dict[str, str]) -> bool:
    """The scheduler's rule for a node's labels: the pod's nodeSelector, and one of its required terms."""
    if any(labels.get(k) != v for k, v in (pod_spec.get("nodeSelector") or {}).items()):
        return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    return not required or any(matches(t.get("matchExpressions", []), labels) for t in required["nodeSelectorTerms"])


def _placement_types(plan, config) -> set[str]:
    """Instance types of the environment's node kinds (k8s_charts.node_shapes, from the configuration) that the
    rendered job's GPU pods can be scheduled on."""
    kinds = PlatformValues.placeholders(config).node_kinds
    pods = [t["spec"] for _, t in embedded_pod_templates(plan.manifests[-1]) if gpus(t["spec"])]
    assert pods, "the job has no GPU pod"
    return {k.instance_type for pod in pods for k in kinds if k.spec.gpus >= gpus(pod) and _schedulable(pod, k.labels)}


def _price_file_gpu_hour(region: str, instance_type: str) -> float | None:
    tables = PRICES["regions"].get(region, {})
    table = tables.get("sagemaker_instance_hour" if instance_type.startswith("ml.") else "ec2_instance_hour", {})
    entry = table.get(instance_type)
    return entry["usd"] / entry["gpus"] if entry and entry.get("gpus") else None


def _rendered_step(plan) -> dict:
    (config_map,) = [m for m in plan.manifests if m["kind"] == "ConfigMap" and m["metadata"]["name"].endswith("-step")]
    return yaml.safe_load(config_map["data"]["step.yaml"])


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_rendered_sft_step_file_carries_the_dearest_gpu_hour_of_its_placement(env: str) -> None:
    plan, config = _plan(env, SFT)
    types = _placement_types(plan, config)
    assert types, f"{env}: the GPU pods name no instance type"
    prices = [p for t in types if (p := _price_file_gpu_hour(config.region, t)) is not None]
    step = _rendered_step(plan)
    if not prices:  # an unpriced region (or types): no price rather than a made-up one
        assert PRICE_FIELD not in step
        return
    assert step[PRICE_FIELD] == pytest.approx(max(prices))
    assert plan.step[PRICE_FIELD] == step[PRICE_FIELD]


def test_a_spec_placed_on_one_priced_type_gets_exactly_its_price() -> None:
    """With instance_type in the spec the job may use that type alone: its GPU-hour, not an upper bound."""
    plan, config = _plan("dev", SFT)
    priced = sorted(t for t in _placement_types(plan, config) if _price_file_gpu_hour(config.region, t) is not None)
    assert priced, "dev: the example may land on no priced GPU type"
    for instance in priced:
        one, _ = _plan("dev", {**SFT, "instance_type": instance})
        assert _placement_types(one, config) == {instance}
        assert _rendered_step(one)[PRICE_FIELD] == pytest.approx(_price_file_gpu_hour(config.region, instance))


def test_a_team_cannot_set_its_own_price() -> None:
    with pytest.raises(StepProblems) as raised:
        _plan("dev", {**SFT, "settings": {**(SFT.get("settings") or {}), PRICE_FIELD: 0.01}})
    (problem,) = [p for p in raised.value.problems if PRICE_FIELD in p]
    assert f"settings.{PRICE_FIELD}: set by the spec's placement" in problem and "remove it from settings" in problem
