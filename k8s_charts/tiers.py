"""Job tiers: where a job's pods may run and at which priority. Value objects the job builders take.

| tier        | priority (default / allowed) | required `node-type`        | preferred  |
|-------------|------------------------------|-----------------------------|------------|
| production  | critical                     | hyperpod                    | -          |
| development | high                         | hyperpod, eks-on-demand     | hyperpod   |
| research    | medium                       | hyperpod, eks-spot          | hyperpod   |
| experiment  | low / preemptible            | eks-spot                    | -          |

How bursting behaves (development and research): the pod *requires* `node-type In [hyperpod, <its EC2 pool>]`
and *prefers* (weight 100) `node-type In [hyperpod]`, and tolerates `dedicated=hyperpod:NoSchedule`.

1. kube-scheduler filters the nodes the pod fits on, then scores them; the preference adds 100 points to
   HyperPod nodes, so a pod lands on reserved capacity whenever a HyperPod node has room for it.
2. If no node has room, the pod is pending. Karpenter first treats preferences as requirements; no NodePool can
   make a `node-type: hyperpod` node, so it relaxes the preference and launches a node from the tier's EC2 pool
   (`eks-on-demand` for development, `eks-spot` for research).
3. Production pods (critical, PreemptLowerPriority) that find the HyperPod nodes full preempt the burst pods
   (high/medium); those pods are recreated by their job (restartPolicy OnFailure / elastic rendezvous) and
   are then scheduled on the EC2 pool as in step 2.

Pods never move back from EC2 to HyperPod on their own; the next restart prefers HyperPod again.
"""

from __future__ import annotations

from dataclasses import dataclass

from cdk8s_plus_28 import k8s

from config.kubernetes import TIER_PRIORITY_CLASSES, TIERS

NODE_TYPE_LABEL = "node-type"
GPU_TYPE_LABEL = "gpu-type"
HYPERPOD = "hyperpod"
EKS_ON_DEMAND = "eks-on-demand"
EKS_SPOT = "eks-spot"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
GPU_RESOURCE = "nvidia.com/gpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"


@dataclass(frozen=True)
class JobTier:
    """Placement and priority of one tier."""

    name: str
    priority_classes: tuple[str, ...]   # the first is the default
    node_types: tuple[str, ...]         # required `node-type` values
    preferred_node_type: str | None     # soft preference (reserved capacity first), or None
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
            raise ValueError(f"priority class {requested!r} is not allowed in tier {self.name!r}; use one of "
                             f"{', '.join(self.priority_classes)}")
        return requested

    def tolerations(self) -> list[k8s.Toleration]:
        tolerations = [k8s.Toleration(key=GPU_RESOURCE, operator="Exists", effect="NoSchedule")]
        if self.uses_hyperpod:
            tolerations.append(k8s.Toleration(key="dedicated", operator="Equal", value=HYPERPOD,
                                               effect="NoSchedule"))
        return tolerations

    def affinity(self, *, instance_type: str | None = None, zone: str | None = None,
                 extra: list[k8s.NodeSelectorRequirement] | None = None) -> k8s.Affinity:
        """Node affinity of the tier, optionally narrowed to one instance type (EC2 or HyperPod `ml.` name)
        and one availability zone."""
        required = [k8s.NodeSelectorRequirement(key=NODE_TYPE_LABEL, operator="In", values=list(self.node_types))]
        if instance_type:
            ec2 = instance_type.removeprefix("ml.")
            values = [ec2, f"ml.{ec2}"] if self.uses_hyperpod else [ec2]
            required.append(k8s.NodeSelectorRequirement(key=INSTANCE_TYPE_LABEL, operator="In", values=values))
        if zone:
            required.append(k8s.NodeSelectorRequirement(key=ZONE_LABEL, operator="In", values=[zone]))
        required.extend(extra or [])
        preferred = None
        if self.preferred_node_type:
            preferred = [k8s.PreferredSchedulingTerm(weight=100, preference=k8s.NodeSelectorTerm(
                match_expressions=[k8s.NodeSelectorRequirement(key=NODE_TYPE_LABEL, operator="In",
                                                               values=[self.preferred_node_type])]))]
        return k8s.Affinity(node_affinity=k8s.NodeAffinity(
            required_during_scheduling_ignored_during_execution=k8s.NodeSelector(
                node_selector_terms=[k8s.NodeSelectorTerm(match_expressions=required)]),
            preferred_during_scheduling_ignored_during_execution=preferred,
        ))


PRODUCTION = JobTier("production", TIER_PRIORITY_CLASSES["production"], (HYPERPOD,), None,
                     "HyperPod reserved nodes only; auto-resumed by HyperPod on node failure.")
DEVELOPMENT = JobTier("development", TIER_PRIORITY_CLASSES["development"], (HYPERPOD, EKS_ON_DEMAND), HYPERPOD,
                      "Idle HyperPod nodes first, else on-demand EC2 GPU nodes.")
RESEARCH = JobTier("research", TIER_PRIORITY_CLASSES["research"], (HYPERPOD, EKS_SPOT), HYPERPOD,
                   "Idle HyperPod nodes first, else spot EC2 GPU nodes.")
EXPERIMENT = JobTier("experiment", TIER_PRIORITY_CLASSES["experiment"], (EKS_SPOT,), None,
                     "Spot EC2 GPU nodes only, low or preemptible priority.")

JOB_TIERS: dict[str, JobTier] = {t.name: t for t in (PRODUCTION, DEVELOPMENT, RESEARCH, EXPERIMENT)}
assert tuple(JOB_TIERS) == TIERS


def tier(name: str) -> JobTier:
    """The tier called ``name``, or a ValueError listing the tiers."""
    try:
        return JOB_TIERS[name]
    except KeyError:
        raise ValueError(f"unknown job tier {name!r}; use one of {', '.join(JOB_TIERS)}") from None
