"""Queueing (Kueue): the GPU capacities jobs are admitted to, the order each job tier tries them in, and the
Kueue controller settings.

A *capacity* is one thing Kueue can hand GPUs out of, and becomes one Kueue ResourceFlavor of the same name:

- every HyperPod instance group with NVIDIA GPUs (`reserved`: count x GPUs per instance, always there),
- every Karpenter GPU NodePool (`on-demand` or `spot`: up to its `gpu_limit`, launched on demand).

Each tier tries the capacity kinds in a fixed order (:data:`TIER_CAPACITY_ORDER`); within a kind, HyperPod groups
in config order and Karpenter pools by descending weight (the order Karpenter itself tries them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .compute import ComputeConfig
from .instances import gpu_instance_type, is_nvidia_gpu
from .kubernetes import KubernetesConfig
from .kueue import KueueConfig

__all__ = [
    "NODE_TYPE_BY_KIND",
    "TIER_CAPACITY_ORDER",
    "Capacity",
    "CapacityKind",
    "KueueConfig",
    "capacities",
    "check_queueing",
    "tier_capacities",
]

CapacityKind = Literal["reserved", "on-demand", "spot"]

# Flavor order per tier: production on reserved only; development reserved -> on-demand; research
# reserved -> spot; experiment spot only.
TIER_CAPACITY_ORDER: dict[str, tuple[CapacityKind, ...]] = {
    "production": ("reserved",),
    "development": ("reserved", "on-demand"),
    "research": ("reserved", "spot"),
    "experiment": ("spot",),
}

# Value of the `node-type` node label of each capacity kind (HyperPod instance groups and the Karpenter pools set it).
NODE_TYPE_BY_KIND: dict[str, str] = {"reserved": "hyperpod", "on-demand": "eks-on-demand", "spot": "eks-spot"}

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


@dataclass(frozen=True)
class Capacity:
    """One GPU capacity (a Kueue ResourceFlavor): a HyperPod GPU instance group or a Karpenter GPU pool."""

    name: str  # flavor name = instance group / NodePool name
    kind: CapacityKind
    gpus: int  # most GPUs it can hold: group count x GPUs per instance, or the pool's gpu_limit
    gpu_type: str  # value of the `gpu-type` node label

    @property
    def node_type(self) -> str:
        return NODE_TYPE_BY_KIND[self.kind]

    @property
    def source(self) -> str:
        """Where it is configured (for messages)."""
        return "compute.hyperpod.instance_groups" if self.kind == "reserved" else "kubernetes.gpu_node_pools"


def capacities(compute: ComputeConfig, kubernetes: KubernetesConfig) -> tuple[Capacity, ...]:
    """Every GPU capacity, in flavor order within each kind (HyperPod groups as configured, pools by weight)."""
    out = []
    for group in compute.hyperpod.instance_groups:
        if is_nvidia_gpu(group.instance_type):
            info = gpu_instance_type("compute.hyperpod.instance_groups instance_type", group.instance_type)
            out.append(Capacity(group.name, "reserved", group.count * info.gpus, group.node_gpu_type))
    for pool in sorted(kubernetes.gpu_node_pools, key=lambda p: -p.weight):
        out.append(
            Capacity(
                pool.name, "on-demand" if pool.capacity_type == "on-demand" else "spot", pool.gpu_limit, pool.gpu_type
            )
        )
    return tuple(out)


def tier_capacities(tier: str, all_capacities: tuple[Capacity, ...]) -> tuple[Capacity, ...]:
    """The capacities ``tier`` may use, in the order Kueue tries them (the ClusterQueue's flavor order)."""
    return tuple(c for kind in TIER_CAPACITY_ORDER[tier] for c in all_capacities if c.kind == kind)


def check_queueing(compute: ComputeConfig, kubernetes: KubernetesConfig) -> None:
    """Rules that tie teams' GPU shares to the configured capacities (called by EnvironmentConfig)."""
    caps = capacities(compute, kubernetes)
    by_name: dict[str, Capacity] = {}
    for cap in caps:
        if not _DNS1123_LABEL.fullmatch(cap.name):
            raise ValueError(
                f"{cap.source} name {cap.name!r} has GPUs, so it becomes a Kueue ResourceFlavor of that "
                f"name, which must be a DNS-1123 label; use lower-case letters, digits and '-'"
            )
        if cap.name in by_name:
            raise ValueError(
                f"compute.hyperpod.instance_groups and kubernetes.gpu_node_pools both name {cap.name!r}; "
                f"each GPU capacity becomes a Kueue ResourceFlavor of its name, so rename one"
            )
        by_name[cap.name] = cap
    for team in kubernetes.teams:
        field = f"kubernetes.teams[{team.name}].gpu_shares"
        unknown = sorted(set(team.gpu_shares) - set(by_name))
        if unknown:
            raise ValueError(
                f"{field} names unknown capacity {unknown!r}; shares are keyed by a GPU instance group "
                f"(compute.hyperpod.instance_groups) or GPU pool (kubernetes.gpu_node_pools): "
                f"{', '.join(by_name) or 'none configured'}"
            )
        reachable = {c.name for t in team.allowed_tiers for c in tier_capacities(t, caps)}
        unreachable = sorted(n for n, gpus in team.gpu_shares.items() if gpus and n not in reachable)
        if unreachable:
            raise ValueError(
                f"{field} gives GPUs on {unreachable!r}, which none of the team's tiers "
                f"({', '.join(team.allowed_tiers)}) can use; remove them or allow a tier that runs there"
            )
        reachable_caps = [c for c in caps if c.name in reachable]
        room = sum(c.gpus for c in reachable_caps)
        if team.gpu_quota > room:
            raise ValueError(
                f"kubernetes.teams[{team.name}].gpu_quota {team.gpu_quota} is more than the {room} GPUs "
                f"the team's tiers ({', '.join(team.allowed_tiers)}) can ever get "
                f"({', '.join(f'{c.name}: {c.gpus}' for c in reachable_caps) or 'no capacity'}); a quota "
                f"above what the cluster holds lets the team's pods starve everyone else's. Lower "
                f"gpu_quota to at most {room}, or add capacity (instance count, gpu_limit)"
            )
        total = sum(team.gpu_shares.values())
        if total > team.gpu_quota:
            raise ValueError(
                f"{field} add up to {total} GPUs, more than the team's gpu_quota {team.gpu_quota} (the "
                f"hard cap across all its tiers); lower the shares or raise gpu_quota"
            )
        for tier in team.allowed_tiers:
            order = tier_capacities(tier, caps)
            if not order:
                kinds = " or ".join(TIER_CAPACITY_ORDER[tier])
                raise ValueError(
                    f"kubernetes.teams[{team.name}].allowed_tiers has {tier!r}, but no {kinds} GPU "
                    f"capacity is configured for it to run on; add one (reserved: a GPU group in "
                    f"compute.hyperpod.instance_groups; on-demand/spot: a kubernetes.gpu_node_pools "
                    f"entry) or drop the tier"
                )
            if not team.borrowing and not any(team.gpu_shares.get(c.name, 0) for c in order):
                raise ValueError(
                    f"kubernetes.teams[{team.name}] may not borrow (borrowing: false) and has no "
                    f"gpu_shares on any capacity of its {tier!r} tier "
                    f"({', '.join(c.name for c in order)}), "
                    f"so its {tier} jobs could never be admitted; give it a share or allow borrowing"
                )
    for cap in caps:
        shares = {t.name: t.gpu_shares[cap.name] for t in kubernetes.teams if t.gpu_shares.get(cap.name)}
        if sum(shares.values()) > cap.gpus:
            raise ValueError(
                f"kubernetes.teams[].gpu_shares on {cap.name!r} add up to {sum(shares.values())} GPUs "
                f"({', '.join(f'{k}: {v}' for k, v in shares.items())}), more than the {cap.gpus} GPUs "
                f"{cap.name!r} can hold ({cap.source}); lower the shares or raise the "
                f"{'instance count' if cap.kind == 'reserved' else 'gpu_limit'}"
            )
