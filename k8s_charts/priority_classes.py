"""PriorityClasses of the job tiers (cluster-scoped)."""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config.kubernetes import PriorityClassConfig


class PriorityClassesChart(cdk8s.Chart):
    """One PriorityClass per configured class. None is the global default: a pod that names no class gets
    priority 0, below every tier, and team namespaces refuse such pods anyway (their ResourceQuota admits only
    the team's allowed classes), so a default would only hide a missing `priorityClassName`."""

    def __init__(self, scope: Construct, construct_id: str, *, priority_classes: Sequence[PriorityClassConfig]) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.priority_classes: dict[str, k8s.KubePriorityClass] = {}
        for pc in priority_classes:
            self.priority_classes[pc.name] = k8s.KubePriorityClass(
                self,
                pc.name,
                metadata=k8s.ObjectMeta(name=pc.name, labels={"app.kubernetes.io/part-of": "llm-platform"}),
                value=pc.value,
                global_default=False,
                preemption_policy=pc.preemption_policy,
                description=pc.description,
            )


CONTROLLER_PRIORITY_CLASS = "system-cluster-critical"
"""PriorityClass of the platform's job controllers (Kueue, KubeRay, the training and MPI operators): Kubernetes'
built-in class (2,000,000,000; usable in any namespace since Kubernetes 1.17), above every tier class a team may
use, so team pods never preempt them on the system nodes (tests/test_redteam_classes.py)."""
