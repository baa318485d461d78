"""The platform charts the compute stack deploys into the cluster (and `make synth` writes to dist/)."""

from __future__ import annotations

import cdk8s
from constructs import Construct

from config import EnvironmentConfig
from k8s_charts.fallback import fallback_settings
from k8s_charts.karpenter import CpuCapacityChart, GpuCapacityChart
from k8s_charts.priority_classes import PriorityClassesChart
from k8s_charts.queueing import QueueingChart
from k8s_charts.team_namespaces import TeamNamespacesChart
from k8s_charts.values import PlatformValues


def platform_charts(scope: Construct, config: EnvironmentConfig, values: PlatformValues) -> dict[str, cdk8s.Chart]:
    """PriorityClasses, Karpenter GPU and CPU-job capacity, team namespaces and Kueue queues, keyed by chart name (the
    dist file name)."""
    k = config.kubernetes
    return {
        "priority-classes": PriorityClassesChart(scope, "priority-classes", priority_classes=k.priority_classes),
        "gpu-capacity": GpuCapacityChart(
            scope, "gpu-capacity", pools=k.gpu_node_pools, node=k.karpenter, values=values
        ),
        "cpu-capacity": CpuCapacityChart(scope, "cpu-capacity", pool=k.cpu_node_pool, node=k.karpenter, values=values),
        "team-namespaces": TeamNamespacesChart(
            scope, "team-namespaces", teams=k.teams, values=values, fallback=fallback_settings(config)
        ),
        "queueing": QueueingChart(scope, "queueing", config=config),
    }
