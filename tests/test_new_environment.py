"""The extension path: a new ``config/<name>.yaml`` in a region the price table lacks synthesizes (cdk-nag
included) and gets cost output that names what it cannot price, without editing a test or the price table.

The environment is a copy of dev in another region, written to a temporary config folder (so no other test sees
it); its name is one no shipped file has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import load_config
from config.instances import is_nvidia_gpu
from config.pricing import PRICES_WHERE, priced_regions
from k8s_charts.__main__ import write_dist
from tools.cost.report import build_report, render

from .conftest import Synth, absent_environment, raw_config, synthesize_config

pytestmark = pytest.mark.scenario  # docs/testing.md "Tiers"

REGION = "us-west-2"


def _moved(data: Any, old: str, new: str) -> Any:
    """``data`` with every string naming region ``old`` renamed to ``new`` (AZs, certificate ARN, ...)."""
    if isinstance(data, dict):
        return {k: _moved(v, old, new) for k, v in data.items()}
    if isinstance(data, list):
        return [_moved(v, old, new) for v in data]
    return data.replace(old, new) if isinstance(data, str) else data


@pytest.fixture(scope="module")
def new_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Synth, Path]:
    assert REGION not in priced_regions(), f"pick a region {PRICES_WHERE} has no prices for"
    dev = raw_config("dev")
    folder = tmp_path_factory.mktemp("config")
    name = absent_environment()
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(_moved(dev, dev["region"], REGION)))
    config = load_config(name, config_dir=folder)
    assert config.region == REGION and config.cost.max_burst_usd_per_hour is not None  # the budget stays set
    synth = synthesize_config(config)
    files = write_dist(name, tmp_path_factory.mktemp("dist"), config=config)
    return synth, files[0].parent


def _warnings(synth: Synth) -> list[str]:
    """The synth's warnings, as the CLI prints them: from the cloud assembly (the manifest, or the per-stack
    ``*.metadata.json`` files it points to)."""
    manifest = json.loads((synth.outdir / "manifest.json").read_text())
    tables = [a.get("metadata", {}) for a in manifest["artifacts"].values()]
    tables += [json.loads(f.read_text()) for f in sorted(synth.outdir.glob("*.metadata.json"))]
    return [
        entry["data"]
        for table in tables
        for entries in table.values()
        for entry in entries
        if entry["type"] == "aws:cdk:warning"
    ]


def _gpu_types(synth: Synth) -> set[str]:
    cfg = synth.config
    return {t for p in cfg.kubernetes.gpu_node_pools for t in p.instance_types} | {
        g.instance_type for g in cfg.compute.hyperpod.instance_groups if is_nvidia_gpu(g.instance_type)
    }


def test_it_synthesizes_and_passes_cdk_nag(new_env) -> None:
    synth, _ = new_env
    assert synth.error is None, synth.error
    assert set(synth.templates) == set(synth.stacks)


def test_synth_warns_about_every_unpriced_gpu_type(new_env) -> None:
    synth, _ = new_env
    unpriced = [w for w in _warnings(synth) if "GPU instance types" in w]
    assert len(unpriced) == 1, _warnings(synth)
    assert all(t in unpriced[0] for t in _gpu_types(synth)), unpriced[0]
    assert f"no prices for region {REGION!r}" in unpriced[0] and PRICES_WHERE in unpriced[0]


def test_the_burst_alarm_says_what_it_cannot_count(new_env) -> None:
    """The budget alarm sums running GPUs x price; with nothing priced there is nothing to sum, so there is no
    alarm (and the warning above says why). With some types priced, its description names the others (below)."""
    synth, _ = new_env
    alarms = {
        r["Properties"]["AlarmName"]: r["Properties"]
        for r in synth.resources("observability", "AWS::CloudWatch::Alarm").values()
    }
    assert not [n for n in alarms if n.endswith("BurstSpendOverBudget")]


def test_cost_report_names_what_it_cannot_price(new_env) -> None:
    synth, dist = new_env
    templates = {s.stack_name: synth.templates[k] for k, s in synth.stacks.items()}
    report = build_report(synth.config.name, synth.config.region, templates, dist)
    text = render(report)
    assert not report.max_burst_complete
    assert "INCOMPLETE" in text.split("MAXIMUM GPU SPEND", 1)[1].splitlines()[1]
    pools = {p.name for p in synth.config.kubernetes.gpu_node_pools}
    assert {u.resource for u in report.unpriced if u.type == "NodePool"} >= pools
    assert all(any(p in g for g in report.gpu_unpriced) for p in pools)
    # every unpriced line names what is missing; nothing is an unreviewed resource type
    assert report.unpriced and not [u for u in report.unpriced if u.item == "no price rule"]
    assert any(f"region {REGION!r}" in u.item + u.detail for u in report.unpriced)
    assert f"has no prices for region {REGION!r}" in text
    data = report.to_json()
    assert data["max_burst_complete"] is False and data["gpu_unpriced"]


def test_a_partly_priced_burst_alarm_names_the_unpriced_types() -> None:
    """One pool priced, one not (a type the table lacks in a priced region): the alarm exists and its description
    names the type it does not count."""
    from aws_cdk import App, Stack

    from cdk_constructs.observability.platform_alarms import AlarmedResources, GpuAlarmProps, PlatformAlarms
    from config.pricing import Pricer
    from stacks.observability_stack import burst_prices, gpu_prices, hyperpod_gpu_instance_types, unpriced_gpu_types

    from .conftest import config_with

    pools = raw_config("dev")["kubernetes"]["gpu_node_pools"]
    unpriced_type = "g6e.xlarge"  # in config/data/instance_specs.yaml, not in the price table
    assert Pricer.of("us-east-1").instance(unpriced_type) is None
    extra = {
        **pools[-1],
        "name": "extra-spot",
        "instance_types": [unpriced_type],
        "gpu_limit": 1,
        "weight": min(p.get("weight", 10) for p in pools) - 1,
    }
    cfg = config_with("dev", {"kubernetes": {"gpu_node_pools": [*pools, extra]}})
    assert unpriced_gpu_types(cfg) == (unpriced_type,)
    per_gpu, reserved_gpus, _ = gpu_prices(cfg)
    stack = Stack(App(), "Probe")
    alarms = PlatformAlarms(
        stack,
        "Alarms",
        prefix="p",
        thresholds=cfg.observability.thresholds,
        resources=AlarmedResources(
            cluster_name="c",
            file_system_id="fs",
            file_system_capacity_gib=1200,
            load_balancer_full_name="lb",
            target_group_full_name="tg",
            database_cluster_identifier="db",
            hyperpod_cluster_arn="arn:aws:sagemaker:us-east-1:123456789012:cluster/x",
            spot_interruption_rule_name="r",
        ),
        gpus=GpuAlarmProps(
            reserved_gpus=reserved_gpus,
            hyperpod_gpu_instance_types=hyperpod_gpu_instance_types(cfg),
            burst_prices=burst_prices(cfg, per_gpu),
            unpriced_instance_types=unpriced_gpu_types(cfg),
            burst_usd_per_hour=cfg.burst_alarm_usd_per_hour,
        ),
    )
    description = stack.resolve(alarms.alarms["BurstSpendOverBudget"].node.default_child.alarm_description)
    assert f"does NOT count {unpriced_type}" in description
