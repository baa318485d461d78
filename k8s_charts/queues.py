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
  :data:`QUEUE_NAME_LABEL`;
- for a team with a production tier, one LocalQueue per tier of the team in the platform namespace
  (:func:`platform_local_queue_name`), where the platform's gated evaluation of the team's model runs (issue 40,
  llmft/promote_evaluate.py): the team's ClusterQueues of those tiers admit that namespace too
  (:func:`cluster_queue_namespaces`), so the evaluation is charged to the team's quota.
"""

from __future__ import annotations

from config import EnvironmentConfig
from config.kubernetes import TeamConfig
from config.queueing import Capacity, capacities, tier_capacities

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Label on a job naming the LocalQueue in its namespace (Kueue docs, "Run a PyTorchJob": a. Queue selection)."""

CAPACITY_LABEL = "platform/capacity"
"""Node label naming the capacity (HyperPod instance group or Karpenter NodePool) a node belongs to."""

MANAGED_NAMESPACE_LABEL = "platform/kueue-managed"
"""Namespace label: Kueue manages every job kind there even without a queue name (and the admission policy
refuses such jobs). Team namespaces carry the value ``"true"`` (what the guard rails and the queue-name policy
bind to); the platform namespace carries :data:`PLATFORM_MANAGED_VALUE`."""

PLATFORM_MANAGED_VALUE = "platform"
"""The value of :data:`MANAGED_NAMESPACE_LABEL` on the platform namespace (``llmft-platform``): Kueue manages the
platform's own GPU jobs there (the gated evaluation), while the team guard rails, bound to ``"true"``, stay off it.
Kueue v0.19 reconciles a job only in a namespace its ``managedJobsNamespaceSelector`` selects, queue name or not
(feature gate ``ManagedJobsNamespaceSelectorAlwaysRespected``, GA and locked on in v0.19: kubernetes-sigs/kueue
v0.19.2 pkg/features/kube_features.go; pkg/controller/jobframework/reconciler.go ``ReconcileGenericJob``: "Namespace
not opted in for Kueue management"), so the platform namespace must be selected for its job to be admitted at all."""

KUEUE_MANAGED_VALUES = ("true", PLATFORM_MANAGED_VALUE)
"""The values of :data:`MANAGED_NAMESPACE_LABEL` Kueue's ``managedJobsNamespaceSelector`` selects
(:func:`kueue_managed_selector`)."""

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


def kueue_managed_selector() -> dict[str, list[dict[str, object]]]:
    """Kueue's ``managedJobsNamespaceSelector``: team namespaces and the platform namespace
    (:data:`KUEUE_MANAGED_VALUES`)."""
    return {
        "matchExpressions": [{"key": MANAGED_NAMESPACE_LABEL, "operator": "In", "values": list(KUEUE_MANAGED_VALUES)}]
    }


def evaluates_in_platform(team: TeamConfig) -> bool:
    """Whether the platform evaluates ``team``'s models in its own namespace: the team may serve in production
    (k8s_charts/serving.py ``PRODUCTION_TIERS``), the only tier that needs the evaluator's verdict."""
    from k8s_charts.serving import PRODUCTION_TIERS

    return bool(set(team.allowed_tiers) & set(PRODUCTION_TIERS))


def platform_local_queue_name(team: str, tier: str) -> str:
    """The LocalQueue of ``team``'s ``tier`` in the platform namespace (the platform's evaluation Jobs name it)."""
    return f"{team}-{tier}"


def cluster_queue_namespaces(team: TeamConfig) -> tuple[str, ...]:
    """The namespaces whose LocalQueues ``team``'s ClusterQueues admit: the team's own, and the platform namespace
    when the platform evaluates the team's models there (:func:`evaluates_in_platform`). Never another namespace a
    team controls."""
    from k8s_charts.serving import PROMOTION_NAMESPACE

    return (team.namespace, *((PROMOTION_NAMESPACE,) if evaluates_in_platform(team) else ()))


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
