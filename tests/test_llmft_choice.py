"""Which instance type `llmft` picks for a job's GPU pods when several Karpenter pools fit it equally: the pool with
the highest NodePool weight, the one Karpenter itself tries first (karpenter.sh_nodepools.yaml, `spec.weight`: "A
higher numerical weight indicates that this nodepool will be ordered ahead of other nodepools with lower weights"),
not the alphabetically first instance type."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from config.instances import find_spec
from k8s_charts.node_shapes import kinds_for, node_kinds
from k8s_charts.validation import CRD_DIR
from llmft.build import choose_instance

from .conftest import config_with, raw_config, yaml_documents


def _weight_order_in_crd() -> str:
    (crd,) = yaml_documents(CRD_DIR / "karpenter.sh_nodepools.yaml")
    (version,) = [v for v in crd["spec"]["versions"] if v.get("storage")]
    return version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["weight"]["description"]


def test_the_crd_says_higher_weight_goes_first() -> None:
    assert "higher numerical weight indicates that this nodepool will be ordered ahead" in " ".join(
        _weight_order_in_crd().split()
    )


def _with_twin_pool(weight_delta: int):
    """dev plus a spot pool whose nodes have as many GPUs as dev's first spot pool's (an equal fit for any job that
    fits one), its weight ``weight_delta`` above that pool's, and an instance type named the other way round."""
    pools = raw_config("dev")["kubernetes"]["gpu_node_pools"]
    spot = next(p for p in pools if p["capacity_type"] == "spot")
    gpus = find_spec(spot["instance_types"][0]).gpus
    twin_type = next(
        t
        for t in ("g6e.48xlarge", "p4de.24xlarge", "g5.48xlarge")
        if find_spec(t) and find_spec(t).gpus == gpus and t != spot["instance_types"][0]
    )
    twin = {
        "name": "twin-spot",
        "instance_types": [twin_type],
        "capacity_type": "spot",
        "gpu_limit": spot["gpu_limit"],
        "weight": spot["weight"] + weight_delta,
    }
    cfg = config_with(
        "dev", {"kubernetes": {"gpu_node_pools": [*pools, twin]}, "cost": {"max_burst_usd_per_hour": None}}
    )
    return cfg, spot["instance_types"][0], twin_type


@pytest.mark.parametrize("delta", [1, -1])
def test_pool_weight_decides_between_equal_fits(delta: int) -> None:
    cfg, spot_type, twin_type = _with_twin_pool(delta)
    tier = next(t for t in ("research", "experiment") if any(t in k.tiers for k in node_kinds(cfg)))
    kinds = tuple(
        k
        for k in kinds_for(node_kinds(cfg), tier=tier)
        if k.source == "karpenter" and k.ec2_type in (spot_type, twin_type)
    )
    assert {k.spec.gpus for k in kinds} == {find_spec(spot_type).gpus}  # an equal fit
    heaviest = max(kinds, key=lambda k: k.weight)
    assert heaviest.ec2_type == (twin_type if delta > 0 else spot_type)
    assert choose_instance(SimpleNamespace(node_range=(1, 1)), kinds) == heaviest.instance_type
