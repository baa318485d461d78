"""Queue names and the queueing model every chart and job builder shares (Kueue v0.19, API kueue.x-k8s.io/v1beta2).

Structure (see docs/queueing.md):

- one ResourceFlavor per GPU capacity (config.queueing.capacities): nodeLabels `node-type`, `gpu-type` and
  :data:`CAPACITY_LABEL` = the capacity's name, so an admitted job's pods are pinned to exactly one capacity;
- a root Cohort :data:`ROOT_COHORT` holding the GPUs no team has a share of;
- one Cohort per team (parent: the root) holding the team's `gpu_shares` and its hard cap (:data:`TEAM_GPUS`,
  `gpu_quota`, never lent), with borrowingLimit 0 when the team may not borrow;
- one ClusterQueue per (team, tier) in the team's Cohort, nominal quota 0 (everything is borrowed from the team's
  Cohort or, through the root, from other teams), flavors in the tier's order;
- one LocalQueue per (team namespace, tier), named :func:`local_queue_name` - the name jobs put in
  :data:`QUEUE_NAME_LABEL`.
"""

from __future__ import annotations

from config import EnvironmentConfig
from config.queueing import Capacity, capacities, tier_capacities

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Label on a job naming the LocalQueue in its namespace (Kueue docs, "Run a PyTorchJob": a. Queue selection)."""

CAPACITY_LABEL = "platform/capacity"
"""Node label naming the capacity (HyperPod instance group or Karpenter NodePool) a node belongs to."""

MANAGED_NAMESPACE_LABEL = "platform/kueue-managed"
"""Namespace label: Kueue manages every job kind there even without a queue name (and the admission policy
refuses such jobs)."""

LOCAL_QUEUE_NAMESPACE_LABEL_PREFIX = "platform/local-queue-"
"""Namespace label ``platform/local-queue-<LocalQueue name>: "true"`` on a team namespace for each LocalQueue it has
(:func:`queue_namespace_label`): what the guard rails read (CEL ``namespaceObject``) to refuse a serving Deployment or
pod naming a queue that does not exist in its namespace. Teams have no verbs on namespaces, so they cannot add one."""

ROOT_COHORT = "all-teams"
TEAM_GPUS = "platform/team-gpus"
"""Virtual resource: Kueue adds one per requested nvidia.com/gpu (resources.transformations, strategy Retain), so
one quota can cap a team's GPUs across every flavor and tier (Kueue docs, "Share Quotas Across Resource Flavors")."""
TEAM_CAP_FLAVOR = "team-gpu-cap"
"""Empty ResourceFlavor (no node labels) that carries :data:`TEAM_GPUS`."""


def local_queue_name(tier: str) -> str:
    """The LocalQueue a job of ``tier`` names in its team namespace (label :data:`QUEUE_NAME_LABEL`)."""
    from k8s_charts.tiers import tier as tier_named

    return tier_named(tier).name


def queue_namespace_label(tier: str) -> str:
    """The namespace label (:data:`LOCAL_QUEUE_NAMESPACE_LABEL_PREFIX`) saying the namespace has ``tier``'s
    LocalQueue."""
    return LOCAL_QUEUE_NAMESPACE_LABEL_PREFIX + local_queue_name(tier)


def queue_labels(tier: str) -> dict[str, str]:
    """Labels a job of ``tier`` carries so that Kueue queues it."""
    return {QUEUE_NAME_LABEL: local_queue_name(tier)}


def cluster_queue_name(team: str, tier: str) -> str:
    return f"{team}-{tier}"


def team_cohort_name(team: str) -> str:
    return team


def flavor_node_labels(capacity: Capacity) -> dict[str, str]:
    """What Kueue writes into the nodeSelector of every pod admitted on ``capacity``."""
    from k8s_charts.tiers import GPU_TYPE_LABEL, NODE_TYPE_LABEL

    return {NODE_TYPE_LABEL: capacity.node_type, GPU_TYPE_LABEL: capacity.gpu_type, CAPACITY_LABEL: capacity.name}


def environment_capacities(config: EnvironmentConfig) -> tuple[Capacity, ...]:
    return capacities(config.compute, config.kubernetes)


def flavor_order(config: EnvironmentConfig, tier: str) -> tuple[str, ...]:
    """Names of the flavors a ``tier`` ClusterQueue lists, in the order Kueue tries them."""
    return tuple(c.name for c in tier_capacities(tier, environment_capacities(config)))
