"""Observability layer (<Env>-Observability): Container Insights, the dashboard, alarms and the metrics they read."""

from __future__ import annotations

from cdk_constructs.observability.container_insights import ContainerInsights
from cdk_constructs.observability.documented_metrics import DocumentedMetric
from cdk_constructs.observability.platform_alarms import AlarmedResources, AlarmSpec, GpuAlarmProps, PlatformAlarms
from cdk_constructs.observability.platform_dashboard import CapacityKinds, PlatformDashboard

__all__ = [
    "AlarmSpec",
    "AlarmedResources",
    "CapacityKinds",
    "ContainerInsights",
    "DocumentedMetric",
    "GpuAlarmProps",
    "PlatformAlarms",
    "PlatformDashboard",
]
