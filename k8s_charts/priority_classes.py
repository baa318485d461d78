"""PriorityClasses of the job tiers (cluster-scoped)."""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config.kubernetes import PriorityClassConfig
from k8s_charts.tiers import cpu_priority_class


class PriorityClassesChart(cdk8s.Chart):
    """One PriorityClass per configured class and its CPU twin (:func:`~k8s_charts.tiers.cpu_priority_class`:
    same value, ``preemptionPolicy: Never``; the class every CPU pod of a team uses). None is the global default: a
    pod that names no class gets priority 0, below every tier, and team namespaces refuse such pods anyway (their
    ResourceQuota admits only the team's allowed classes), so a default would only hide a missing
    `priorityClassName`."""

    def __init__(self, scope: Construct, construct_id: str, *, priority_classes: Sequence[PriorityClassConfig]) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.priority_classes: dict[str, k8s.KubePriorityClass] = {}
        names = {pc.name for pc in priority_classes}
        for pc in priority_classes:
            twin = cpu_priority_class(pc.name)
            if twin in names:
                raise ValueError(
                    f"kubernetes.priority_classes: {twin!r} is the name of {pc.name!r}'s CPU class (the platform "
                    f"creates it); rename the class {twin!r}"
                )
            self._add(pc.name, pc.value, pc.preemption_policy, pc.description)
            self._add(
                twin,
                pc.value,
                "Never",
                f"CPU pods of {pc.name} jobs (Ray heads and submitters, CPU steps): the same value, never preempts.",
            )

    def _add(self, name: str, value: int, preemption_policy: str, description: str) -> None:
        self.priority_classes[name] = k8s.KubePriorityClass(
            self,
            name,
            metadata=k8s.ObjectMeta(name=name, labels={"app.kubernetes.io/part-of": "llm-platform"}),
            value=value,
            global_default=False,
            preemption_policy=preemption_policy,
            description=description,
        )


CONTROLLER_PRIORITY_CLASS = "system-cluster-critical"
"""PriorityClass of the platform's job controllers (Kueue, KubeRay, the training and MPI operators): Kubernetes'
built-in class (2,000,000,000; usable in any namespace since Kubernetes 1.17), above every tier class a team may
use, so team pods never preempt them on the system nodes (tests/test_redteam_classes.py)."""
