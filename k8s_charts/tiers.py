"""Job tiers: where a job's pods may run and at which priority. Value objects the job builders take.

| tier        | priority (default / allowed) | Kueue flavor order (TIER_CAPACITY_ORDER) | `node-type`             |
|-------------|------------------------------|------------------------------------------|-------------------------|
| production  | critical                     | reserved (HyperPod)                      | hyperpod                |
| development | high                         | reserved -> on-demand                    | hyperpod, eks-on-demand |
| research    | medium                       | reserved -> spot                         | hyperpod, eks-spot      |
| experiment  | low / preemptible            | spot                                     | eks-spot                |

Placement is decided by Kueue (k8s_charts/queues.py): a job waits in its team's queue for the tier until one
flavor (one HyperPod instance group or one Karpenter pool) has room for all of its GPU pods, in the tier's
order; Kueue then writes that flavor's node labels into the pods' nodeSelector. The pod's own required affinity
(the tier's `node-type`s and the instance's `gpu-type`) is what Kueue matches flavors against, so a job can only be
admitted on a flavor of its tier and GPU type. There is no preferred affinity: the flavor order replaces it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cdk8s_plus_28 import k8s

from config.kubernetes import TIER_PRIORITY_CLASSES, TIERS, gpu_instance_type
from config.queueing import NODE_TYPE_BY_KIND, TIER_CAPACITY_ORDER

NODE_TYPE_LABEL = "node-type"
GPU_TYPE_LABEL = "gpu-type"
HYPERPOD = "hyperpod"
EKS_ON_DEMAND = "eks-on-demand"
EKS_SPOT = "eks-spot"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
GPU_RESOURCE = "nvidia.com/gpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
# Nodes of the Karpenter CPU pool (k8s_charts/karpenter.py CpuCapacityChart): label `llmft.io/node-role: cpu-jobs`
# (the system nodes carry `llmft.io/node-role: system`) and this NoSchedule taint, which only the platform's CPU job
# pods tolerate (:func:`cpu_job_tolerations`), so no other pod ever makes Karpenter launch a CPU node.
NODE_ROLE_LABEL = "llmft.io/node-role"
CPU_JOBS_ROLE = "cpu-jobs"
CPU_JOBS_TAINT = ("llmft.io/cpu-jobs", "true", "NoSchedule")  # (key, value, effect)


@dataclass(frozen=True)
class JobTier:
    """Placement and priority of one tier."""

    name: str
    priority_classes: tuple[str, ...]  # the first is the default
    node_types: tuple[str, ...]  # required `node-type` values, in Kueue's flavor order
    description: str

    @property
    def priority_class(self) -> str:
        return self.priority_classes[0]

    @property
    def uses_hyperpod(self) -> bool:
        return HYPERPOD in self.node_types

    def priority_class_for(self, requested: str | None) -> str:
        """``requested`` if this tier allows it (default: the tier's own class), else a ValueError."""
        if requested is None:
            return self.priority_class
        if requested not in self.priority_classes:
            raise ValueError(
                f"priority class {requested!r} is not allowed in tier {self.name!r}; use one of "
                f"{', '.join(self.priority_classes)}"
            )
        return requested

    def tolerations(self) -> list[k8s.Toleration]:
        tolerations = [k8s.Toleration(key=GPU_RESOURCE, operator="Exists", effect="NoSchedule")]
        if self.uses_hyperpod:
            tolerations.append(k8s.Toleration(key="dedicated", operator="Equal", value=HYPERPOD, effect="NoSchedule"))
        return tolerations

    def affinity(
        self,
        *,
        instance_type: str | None = None,
        zone: str | None = None,
        extra: list[k8s.NodeSelectorRequirement] | None = None,
        node_types: Sequence[str] | None = None,
        instance_types: Sequence[str] = (),
    ) -> k8s.Affinity:
        """Node affinity of the tier, optionally narrowed to one instance type (EC2 or HyperPod `ml.` name; also
        pins its `gpu-type`, which Kueue matches against the flavors' labels), to some of its `node-type`s (in the
        tier's order) and to one availability zone. ``instance_types``: more instance types the pod may use beside
        ``instance_type`` (a job that may fall back from reserved nodes to the tier's pools: each kind's
        instance and GPU type; Kueue's flavor, in the tier's order, then adds its own labels)."""
        types = [t for t in self.node_types if node_types is None or t in node_types]
        if not types:
            raise ValueError(
                f"none of node types {list(node_types or [])} is one of tier {self.name!r} "
                f"({', '.join(self.node_types)})"
            )
        required = [k8s.NodeSelectorRequirement(key=NODE_TYPE_LABEL, operator="In", values=types)]
        ec2s = list(dict.fromkeys(t.removeprefix("ml.") for t in (instance_type, *instance_types) if t))
        if ec2s:
            gpu_types = list(dict.fromkeys(gpu_instance_type("instance_type", e).gpu_type for e in ec2s))
            required.append(k8s.NodeSelectorRequirement(key=GPU_TYPE_LABEL, operator="In", values=gpu_types))
            values = [v for e in ec2s for v in ([e, f"ml.{e}"] if self.uses_hyperpod else [e])]
            required.append(k8s.NodeSelectorRequirement(key=INSTANCE_TYPE_LABEL, operator="In", values=values))
        if zone:
            required.append(k8s.NodeSelectorRequirement(key=ZONE_LABEL, operator="In", values=[zone]))
        required.extend(extra or [])
        return k8s.Affinity(
            node_affinity=k8s.NodeAffinity(
                required_during_scheduling_ignored_during_execution=k8s.NodeSelector(
                    node_selector_terms=[k8s.NodeSelectorTerm(match_expressions=required)]
                ),
            )
        )


CPU_CLASS_SUFFIX = "-cpu"
"""Every PriorityClass ``<c>`` has a CPU twin ``<c>-cpu`` (k8s_charts/priority_classes.py): same value, so Kueue
queues a job whose Ray head or MPI launcher names it at the tier's priority (Kueue takes a RayJob's priority from the
head's class first, kubernetes-sigs/kueue@v0.19.2 pkg/controller/jobs/rayjob ``PriorityClass``; it reads the class's
value only), but ``preemptionPolicy: Never``: a pod of it waits ahead of lower priorities in the scheduling queue and
never evicts a running pod (kubernetes.io "Pod Priority and Preemption", Non-preempting PriorityClass). The
platform's CPU pods (Ray heads and submitters, llmft CPU steps) use it, so no team's CPU pod preempts
another team's CPU pods or the platform's pods on the system nodes; the pod policy refuses a preempting CPU pod in a
team namespace (k8s_charts/team_guardrails.py)."""


def cpu_priority_class(name: str) -> str:
    """The CPU twin of PriorityClass ``name`` (:data:`CPU_CLASS_SUFFIX`)."""
    return f"{name}{CPU_CLASS_SUFFIX}"


def cpu_job_tolerations() -> list[k8s.Toleration]:
    """Tolerations of the CPU job pods (Ray head and submitter, llmft CPU steps): the CPU pool's taint. With
    :func:`cpu_job_node_selector` they run only on the CPU pool's nodes."""
    key, value, effect = CPU_JOBS_TAINT
    return [k8s.Toleration(key=key, operator="Equal", value=value, effect=effect)]


def cpu_job_node_selector() -> dict[str, str]:
    """nodeSelector of every pod without GPUs in a team namespace: the CPU pool's nodes only (the label Karpenter puts
    on them, k8s_charts/karpenter.py). Not the system nodes (``llmft.io/node-role: system``), where a team's CPU pods
    would compete with the platform's own (the metrics scraper the serving autoscalers depend on, the Argo and KEDA
    controllers, CoreDNS); the pod policy refuses a CPU pod without it (k8s_charts/team_guardrails.py)."""
    return {NODE_ROLE_LABEL: CPU_JOBS_ROLE}


def _node_types(tier_name: str) -> tuple[str, ...]:
    return tuple(NODE_TYPE_BY_KIND[kind] for kind in TIER_CAPACITY_ORDER[tier_name])


PRODUCTION = JobTier(
    "production",
    TIER_PRIORITY_CLASSES["production"],
    _node_types("production"),
    "HyperPod reserved nodes only; auto-resumed by HyperPod on node failure.",
)
DEVELOPMENT = JobTier(
    "development",
    TIER_PRIORITY_CLASSES["development"],
    _node_types("development"),
    "HyperPod reserved nodes when they have room, else on-demand EC2 GPU nodes.",
)
RESEARCH = JobTier(
    "research",
    TIER_PRIORITY_CLASSES["research"],
    _node_types("research"),
    "HyperPod reserved nodes when they have room, else spot EC2 GPU nodes.",
)
EXPERIMENT = JobTier(
    "experiment",
    TIER_PRIORITY_CLASSES["experiment"],
    _node_types("experiment"),
    "Spot EC2 GPU nodes only, low or preemptible priority.",
)

JOB_TIERS: dict[str, JobTier] = {t.name: t for t in (PRODUCTION, DEVELOPMENT, RESEARCH, EXPERIMENT)}
assert tuple(JOB_TIERS) == TIERS


def tier(name: str) -> JobTier:
    """The tier called ``name``, or a ValueError listing the tiers."""
    try:
        return JOB_TIERS[name]
    except KeyError:
        raise ValueError(f"unknown job tier {name!r}; use one of {', '.join(JOB_TIERS)}") from None
