"""The metrics the platform's collectors actually emit: namespace, name, the dimension sets they are published with,
and where that is documented. The dashboard and the alarms build every metric through :func:`metric` or
:func:`search`, which refuse anything not in this table; `tests/test_observability.py` re-reads the synthesized
dashboard and alarms and checks them against it independently.

Sources (checked 2026-11-22):

- ContainerInsights, GPU: the CloudWatch agent's EMF declarations for enhanced Container Insights (repository
  aws/amazon-cloudwatch-agent, translator/translate/otel/exporter/awsemf, the ``container_/pod_/node_gpu_*`` and
  ``*_gpu_total/_request/_limit`` declarations) and the CloudWatch User Guide, "Enhanced Container Insights (Classic)
  metric reference" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/container-insights-eks-classic-metrics.html).
- ContainerInsights, Kueue: CloudWatch User Guide, "Kueue metrics" (Container-Insights-metrics-EKS.html#Container-
  Insights-metrics-Kueue), enabled by ``kueue_container_insights`` (add-on >= v2.4.0-eksbuild.1); dimension sets from
  the agent's awsemf kueue declarations (getKueueMetricDeclarations).
- ContainerInsights/Prometheus: Karpenter's Prometheus metrics (aws/karpenter-provider-aws v1.14.1,
  website/content/en/docs/reference/metrics.md), scraped by the add-on's extra agent with the EMF declarations in
  cdk_constructs/container_insights.py (PROMETHEUS_DECLARATIONS) - those declarations are the dimensions.
- AWS/FSx: https://docs.aws.amazon.com/fsx/latest/LustreGuide/fs-metrics.html (FileSystemId).
- AWS/ApplicationELB: https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-cloudwatch-metrics.html
- AWS/RDS: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2.viewing.monitoring.html
  (ServerlessDatabaseCapacity, ACUUtilization by DBClusterIdentifier).
- AWS/Events: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-monitoring.html (MatchedEvents by RuleName).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aws_cdk import Duration, aws_cloudwatch as cw

CONTAINER_INSIGHTS = "ContainerInsights"
PROMETHEUS = "ContainerInsights/Prometheus"

_CI_URL = "https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/container-insights-eks-classic-metrics.html"
_KUEUE_URL = ("https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Container-Insights-metrics-EKS.html"
              "#Container-Insights-metrics-Kueue")
_KARPENTER_URL = ("https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/website/content/en/docs/reference/"
                  "metrics.md")


@dataclass(frozen=True)
class DocumentedMetric:
    namespace: str
    name: str
    dimension_sets: tuple[frozenset[str], ...]
    source: str


def _sets(*sets: Sequence[str]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(s) for s in sets)


_GPU_NODE = _sets(["ClusterName"], ["ClusterName", "NodeName", "InstanceId"],
                  ["ClusterName", "NodeName", "InstanceId", "InstanceType", "GpuDevice"])
_GPU_POD = _sets(["ClusterName"], ["ClusterName", "Namespace"], ["ClusterName", "Namespace", "Service"],
                 ["ClusterName", "Namespace", "PodName"], ["ClusterName", "Namespace", "PodName", "FullPodName"],
                 ["ClusterName", "Namespace", "PodName", "FullPodName", "GpuDevice"])
_GPU_COUNT_NODE = _sets(["ClusterName"], ["ClusterName", "NodeName", "InstanceId", "InstanceType"])
_GPU_COUNT_POD = _sets(["ClusterName"], ["ClusterName", "Namespace"], ["ClusterName", "Namespace", "Service"],
                       ["ClusterName", "Namespace", "PodName"], ["ClusterName", "Namespace", "PodName", "FullPodName"])
_KUEUE_QUEUE = _sets(["ClusterName"], ["ClusterName", "ClusterQueue"])
_KUEUE_RESOURCE = _sets(["ClusterName"], ["ClusterName", "ClusterQueue"], ["ClusterName", "ClusterQueue", "Resource"],
                        ["ClusterName", "ClusterQueue", "Resource", "Flavor"], ["ClusterName", "ClusterQueue", "Flavor"])

_TABLE: list[DocumentedMetric] = [
    *(DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_NODE, _CI_URL)
      for n in ("node_gpu_utilization", "node_gpu_memory_utilization")),
    *(DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_POD, _CI_URL)
      for n in ("pod_gpu_utilization", "pod_gpu_memory_utilization")),
    *(DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_COUNT_NODE, _CI_URL)
      for n in ("node_gpu_limit", "node_gpu_request", "node_gpu_total")),
    *(DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_COUNT_POD, _CI_URL) for n in ("pod_gpu_request", "pod_gpu_limit")),
    *(DocumentedMetric(CONTAINER_INSIGHTS, n, _sets(["ClusterName"]), _CI_URL)
      for n in ("cluster_gpu_total", "cluster_gpu_request", "cluster_failed_node_count", "cluster_node_count")),
    DocumentedMetric(CONTAINER_INSIGHTS, "kueue_pending_workloads",
                     _sets(["ClusterName"], ["ClusterName", "ClusterQueue"], ["ClusterName", "ClusterQueue", "Status"],
                           ["ClusterName", "Status"]), _KUEUE_URL),
    DocumentedMetric(CONTAINER_INSIGHTS, "kueue_evicted_workloads_total",
                     _sets(["ClusterName"], ["ClusterName", "ClusterQueue"], ["ClusterName", "ClusterQueue", "Reason"],
                           ["ClusterName", "Reason"]), _KUEUE_URL),
    DocumentedMetric(CONTAINER_INSIGHTS, "kueue_admitted_active_workloads", _KUEUE_QUEUE, _KUEUE_URL),
    *(DocumentedMetric(CONTAINER_INSIGHTS, n, _KUEUE_RESOURCE, _KUEUE_URL)
      for n in ("kueue_cluster_queue_resource_usage", "kueue_cluster_queue_nominal_quota")),
    *(DocumentedMetric(PROMETHEUS, n, _sets(["ClusterName", "nodepool"]), _KARPENTER_URL)
      for n in ("karpenter_nodeclaims_created_total", "karpenter_nodeclaims_terminated_total")),
    DocumentedMetric(PROMETHEUS, "karpenter_interruption_received_messages_total",
                     _sets(["ClusterName", "message_type"]), _KARPENTER_URL),
    DocumentedMetric(PROMETHEUS, "controller_runtime_reconcile_errors_total", _sets(["ClusterName"]), _KARPENTER_URL),
    *(DocumentedMetric("AWS/FSx", n, _sets(["FileSystemId"]), "https://docs.aws.amazon.com/fsx/latest/LustreGuide/"
                                                                "fs-metrics.html")
      for n in ("DataReadBytes", "DataWriteBytes", "DataReadOperations", "DataWriteOperations", "MetadataOperations",
                "FreeDataStorageCapacity")),
    *(DocumentedMetric("AWS/ApplicationELB", n, _sets(["LoadBalancer"]),
                       "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/"
                       "load-balancer-cloudwatch-metrics.html")
      for n in ("RequestCount", "HTTPCode_ELB_5XX_Count", "HTTPCode_Target_5XX_Count", "TargetResponseTime")),
    *(DocumentedMetric("AWS/ApplicationELB", n, _sets(["LoadBalancer", "TargetGroup"]),
                       "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/"
                       "load-balancer-cloudwatch-metrics.html")
      for n in ("HealthyHostCount", "UnHealthyHostCount")),
    *(DocumentedMetric("AWS/RDS", n, _sets(["DBClusterIdentifier"]),
                       "https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/"
                       "aurora-serverless-v2.viewing.monitoring.html")
      for n in ("ServerlessDatabaseCapacity", "ACUUtilization")),
    *(DocumentedMetric("AWS/Events", n, _sets(["RuleName"]),
                       "https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-monitoring.html")
      for n in ("MatchedEvents", "TriggeredRules")),
]

DOCUMENTED_METRICS: dict[tuple[str, str], DocumentedMetric] = {(m.namespace, m.name): m for m in _TABLE}


def check(namespace: str, name: str, dimensions: Sequence[str]) -> DocumentedMetric:
    """The table entry of (namespace, name) if it is published with exactly ``dimensions``; else ValueError."""
    entry = DOCUMENTED_METRICS.get((namespace, name))
    if entry is None:
        raise ValueError(f"{namespace}/{name} is not a metric the platform's collectors emit (documented_metrics.py)")
    if frozenset(dimensions) not in entry.dimension_sets:
        raise ValueError(f"{namespace}/{name} is not published with dimensions {sorted(dimensions)}; documented sets: "
                         f"{[sorted(s) for s in entry.dimension_sets]} ({entry.source})")
    return entry


def metric(namespace: str, name: str, dimensions: Mapping[str, str], *, statistic: str = "Average",
           period: Duration = Duration.minutes(5), label: str | None = None) -> cw.Metric:
    """A ``cw.Metric`` of a documented metric (checked against the table)."""
    check(namespace, name, list(dimensions))
    return cw.Metric(namespace=namespace, metric_name=name, dimensions_map=dict(dimensions), statistic=statistic,
                     period=period, label=label)


def _term(key: str, value: str) -> str:
    return f"{key}={value}" if value.isalnum() else f'{key}="{value}"'


def search_expression(namespace: str, name: str, dimensions: Sequence[str],
                      terms: Mapping[str, str | Sequence[str]] | None = None,
                      *, statistic: str = "Average", period_seconds: int = 300) -> str:
    """``SEARCH('{ns,dims} MetricName="name" Dim=value ...', 'stat', period)`` for a documented metric: the schema
    pins the exact dimension set; ``terms`` filter on dimension values. CloudWatch search syntax
    (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/search-expression-syntax.html): an unquoted
    alphanumeric term matches a token of the value (``NodeName=hyperpod`` matches ``hyperpod-i-0abc``), a quoted one
    the whole value; a sequence of values becomes ``(K="a" OR K="b")``."""
    check(namespace, name, dimensions)
    schema = ",".join([f'"{namespace}"' if "/" in namespace else namespace, *sorted(dimensions)])
    filters = "".join(
        f" {_term(k, v)}" if isinstance(v, str) else " (" + " OR ".join(_term(k, x) for x in v) + ")"
        for k, v in (terms or {}).items())
    return f"SEARCH('{{{schema}}} MetricName=\"{name}\"{filters}', '{statistic}', {period_seconds})"
