"""The metrics the platform's collectors actually emit: namespace, name, the dimension sets they are published with,
and where that is declared. The dashboard and the alarms build every metric through :func:`metric` or
:func:`search_expression`, which refuse anything not in this table; `tests/test_observability.py` re-reads the
synthesized dashboard and alarms and checks them against it, and checks the table itself against the agent's own
translated configuration (vendored in tests/upstream/, see its SOURCES.md).

Sources (checked 2026-11-23). A CloudWatch metric exists only for a (name, dimension set) that an EMF metric
declaration of the agent names; anything else stays in the performance log events.

- ContainerInsights: the CloudWatch agent the add-on ships (chart amazon-cloudwatch-observability-6.4.0 values.yaml
  ``agent.image.tag: 1.300070.0b1586`` = aws/amazon-cloudwatch-agent tag v1.300070.0, commit 355cbf2),
  translator/translate/otel/exporter/awsemf/kubernetes.go:

  - ``getPodMetricDeclarations`` l.89-150: ``pod_gpu_request`` / ``pod_gpu_limit`` (selectors l.114-115, only with
    ``accelerated_compute_metrics``) are published with the sets of l.91 and l.105 only: {PodName, Namespace,
    ClusterName}, {ClusterName}, {FullPodName, PodName, Namespace, ClusterName}, {Service, Namespace, ClusterName}.
    There is no {ClusterName, Namespace} set for them (that set, l.95, belongs to ``pod_cpu_utilization`` & co.).
    ``PodName`` is the pod's *owner* name, so the pods of one job share it: per-pod series need ``FullPodName``.
  - ``getNodeMetricDeclarations`` l.153-204: ``node_gpu_limit``, ``node_gpu_usage_total``,
    ``node_gpu_reserved_capacity`` (l.163-164) with {NodeName, InstanceId, ClusterName} and {ClusterName} (l.171).
    No ``InstanceType`` set, and no ``node_gpu_request`` / ``node_gpu_total`` at all.
  - ``getClusterMetricDeclarations`` l.282-296: ``cluster_node_count``, ``cluster_failed_node_count`` with
    {ClusterName}. There is no ``cluster_gpu_*`` metric.
  - ``getGPUMetricDeclarations`` l.494-538: ``pod_gpu_utilization``/``_memory_utilization`` (l.512-521) and
    ``node_gpu_utilization``/``_memory_utilization`` (l.524-533), the only GPU metrics with ``InstanceType``.
  - What the numbers mean (receiver awscontainerinsightreceiver, amazon-contributing/opentelemetry-collector-contrib,
    internal/stores/podstore.go ``decorateNode``/``decorateGPU``): ``node_gpu_limit`` = the node's
    ``nvidia.com/gpu`` capacity, ``node_gpu_reserved_capacity`` = GPUs requested by the node's non-terminated pods /
    capacity x 100 (percent), both only on nodes with GPUs; ``pod_gpu_request`` = the pod's GPU request.
- ContainerInsights/Prometheus, Kueue: scraped by the add-on's extra agent (job ``kueue``) with the EMF declarations
  in cdk_constructs/observability/container_insights.py (KUEUE_DECLARATIONS): the namespace and dimension sets of the
  agent's own Kueue pipeline at the same tag (awsemf_default_kubernetes_kueue.yaml l.1
  ``namespace: ContainerInsights/Prometheus``, kueue.go ``getKueueMetricDeclarations``), which the tests compare with
  the vendored golden translation.
- ContainerInsights/Prometheus, Karpenter: scraped by the add-on's extra agent with the EMF declarations in
  cdk_constructs/observability/container_insights.py (PROMETHEUS_DECLARATIONS) - those declarations are the dimensions.
  Metric names from aws/karpenter-provider-aws v1.14.1 website/content/en/docs/reference/metrics.md; the labels of the
  node gauges from the core it builds (sigs.k8s.io/karpenter 6e7eab7a0f48, pinned in its go.mod):
  pkg/controllers/metrics/node/controller.go l.65-74 and l.147-163 (``karpenter_nodes_allocatable`` and
  ``karpenter_nodes_total_pod_requests`` carry ``node_name``, ``resource_type`` and the well-known node labels),
  l.277-302 (well-known ``a/b-c`` becomes ``b_c``: ``instance_type``, ``capacity_type``, ``nodepool``, ...; a node
  without the label has no value), pkg/apis/v1/labels.go l.75-84 (the well-known labels), and
  pkg/controllers/state/cluster.go l.393-418 (every Node is in cluster state, HyperPod nodes included).
- ContainerInsights/Prometheus, Argo Workflows (``pipelines.enabled`` only): ``argo_workflows_total_count`` scraped
  by the same agent (job ``argo-workflows``) with the EMF declaration ARGO_WORKFLOWS_DECLARATIONS of
  cdk_constructs/observability/container_insights.py: {ClusterName, Namespace, Phase}; name and labels from
  argoproj/argo-workflows v4.0.6 docs/metrics.md ``total_count``.
- ContainerInsights/Prometheus, served models (llmft ``type: serve``): the SGLang engines' gauges and counters
  scraped by the same agent (job ``llmft-serve``) with SERVING_DECLARATIONS of
  cdk_constructs/observability/container_insights.py: {ClusterName, Namespace, serve} and, for the demand gauges and
  request counters, {ClusterName, Namespace}; names from the sglang 0.5.21 wheel,
  sglang/srt/observability/metrics_collector.py (k8s_charts/serving.py has each).
- ContainerInsights, Deployments (enhanced Container Insights): ``replicas_desired``/``replicas_ready`` with
  {PodName, Namespace, ClusterName} and {ClusterName} (kubernetes.go ``getDeploymentMetricDeclarations``
  l.234-247); ``PodName`` is the Deployment's name (amazon-contributing/opentelemetry-collector-contrib 8e059f1
  receiver/awscontainerinsightreceiver/internal/k8sapiserver/k8sapiserver.go ``getDeploymentMetrics``), so a served
  model's replicas are ``PodName=<serve name>`` in its team namespace.
- AWS/FSx: https://docs.aws.amazon.com/fsx/latest/LustreGuide/fs-metrics.html (FileSystemId).
- AWS/ApplicationELB: https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-cloudwatch-metrics.html
- AWS/RDS: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2.viewing.monitoring.html
  (ServerlessDatabaseCapacity, ACUUtilization by DBClusterIdentifier).
- AWS/Events: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-monitoring.html (MatchedEvents by RuleName).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cw

CONTAINER_INSIGHTS = "ContainerInsights"
PROMETHEUS = "ContainerInsights/Prometheus"

_AGENT = "https://github.com/aws/amazon-cloudwatch-agent/blob/v1.300070.0/translator/translate/otel/exporter/awsemf/"
_K8S_GO = _AGENT + "kubernetes.go"
_KUEUE_URL = (
    "container_insights.py KUEUE_DECLARATIONS (the sets of "
    + _AGENT
    + "kueue.go); labels: kubernetes-sigs/kueue v0.19.2 pkg/metrics/metrics.go"
)
_KARPENTER_URL = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/website/content/en/docs/reference/"
    "metrics.md; dimensions: container_insights.py PROMETHEUS_DECLARATIONS"
)
_KARPENTER_NODE_URL = (
    "https://github.com/kubernetes-sigs/karpenter/blob/6e7eab7a0f48/pkg/controllers/metrics/node/"
    "controller.go l.65-163, 271-302; dimensions: container_insights.py PROMETHEUS_DECLARATIONS"
)


@dataclass(frozen=True)
class DocumentedMetric:
    namespace: str
    name: str
    dimension_sets: tuple[frozenset[str], ...]
    source: str


def _sets(*sets: Sequence[str]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(s) for s in sets)


# kubernetes.go getGPUMetricDeclarations l.524 (node) and l.512 (pod)
_GPU_NODE = _sets(
    ["ClusterName"],
    ["ClusterName", "NodeName", "InstanceId"],
    ["ClusterName", "NodeName", "InstanceId", "InstanceType", "GpuDevice"],
)
_GPU_POD = _sets(
    ["ClusterName"],
    ["ClusterName", "Namespace"],
    ["ClusterName", "Namespace", "Service"],
    ["ClusterName", "Namespace", "PodName"],
    ["ClusterName", "Namespace", "PodName", "FullPodName"],
    ["ClusterName", "Namespace", "PodName", "FullPodName", "GpuDevice"],
)
# kubernetes.go getNodeMetricDeclarations l.171 (enhanced Container Insights)
_GPU_COUNT_NODE = _sets(["ClusterName"], ["ClusterName", "InstanceId", "NodeName"])
# kubernetes.go getPodMetricDeclarations l.91 + l.105 (enhanced Container Insights)
_GPU_COUNT_POD = _sets(
    ["ClusterName"],
    ["ClusterName", "Namespace", "PodName"],
    ["ClusterName", "FullPodName", "Namespace", "PodName"],
    ["ClusterName", "Namespace", "Service"],
)
# kueue.go getKueueMetricDeclarations
_KUEUE_QUEUE = _sets(["ClusterName"], ["ClusterName", "ClusterQueue"])
_KUEUE_RESOURCE = _sets(
    ["ClusterName"],
    ["ClusterName", "ClusterQueue"],
    ["ClusterName", "ClusterQueue", "Resource"],
    ["ClusterName", "ClusterQueue", "Resource", "Flavor"],
    ["ClusterName", "ClusterQueue", "Flavor"],
)
# container_insights.py PROMETHEUS_DECLARATIONS: HyperPod GPU nodes by instance type, Karpenter GPU nodes by instance
# type and capacity type
HYPERPOD_GPU_SET = ("ClusterName", "instance_type", "resource_type")
BURST_GPU_SET = ("ClusterName", "capacity_type", "instance_type", "resource_type")
ARGO_WORKFLOWS_SET = ("ClusterName", "Namespace", "Phase")
"""container_insights.py ARGO_WORKFLOWS_DECLARATIONS (the tests compare the two)."""
_ARGO_URL = (
    "https://github.com/argoproj/argo-workflows/blob/v4.0.6/docs/metrics.md (total_count); dimensions: "
    "container_insights.py ARGO_WORKFLOWS_DECLARATIONS"
)

_SERVING_URL = (
    "sglang 0.5.21 sglang/srt/observability/metrics_collector.py; dimensions: container_insights.py "
    "SERVING_DECLARATIONS"
)
SERVING_SET = ("ClusterName", "Namespace", "serve")
SERVING_NAMESPACE_SET = ("ClusterName", "Namespace")
"""k8s_charts/serving.py METRIC_DIMENSIONS and NAMESPACE_DIMENSIONS (the tests compare them)."""
DEPLOYMENT_SET = ("ClusterName", "Namespace", "PodName")

JOB_LOGS = "llmft/JobLogs"
"""Namespace prefix of the metrics the platform's own CloudWatch Logs metric filters publish from the container logs
(cdk_constructs/observability/training_hangs.py): ``llmft/JobLogs/<cluster name>``. A metric filter's dimension
values must be fields of the log event (CloudWatch Logs ``MetricTransformation.Dimensions``), so the cluster, which the
Fluent Bit record does not carry, is in the namespace: two environments in one account never share a series."""
TRAINING_HANGS = "TrainingHangs"
_TRAINING_HANGS_URL = (
    "metric filters of cdk_constructs/observability/training_hangs.py on the application log group that Fluent Bit "
    "writes (tests/upstream/amazon-cloudwatch-observability-6.4.0/values.yaml, application-log.conf)"
)


def job_logs_namespace(cluster_name: str) -> str:
    """The CloudWatch namespace of the cluster's job-log metrics."""
    return f"{JOB_LOGS}/{cluster_name}"


_TABLE: list[DocumentedMetric] = [
    *(
        DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_NODE, _K8S_GO + " l.524-533")
        for n in ("node_gpu_utilization", "node_gpu_memory_utilization")
    ),
    *(
        DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_POD, _K8S_GO + " l.512-521")
        for n in ("pod_gpu_utilization", "pod_gpu_memory_utilization")
    ),
    *(
        DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_COUNT_NODE, _K8S_GO + " l.163-172")
        for n in ("node_gpu_limit", "node_gpu_usage_total", "node_gpu_reserved_capacity")
    ),
    *(
        DocumentedMetric(CONTAINER_INSIGHTS, n, _GPU_COUNT_POD, _K8S_GO + " l.91, 105, 114-115, 121-124")
        for n in ("pod_gpu_request", "pod_gpu_limit")
    ),
    *(
        DocumentedMetric(CONTAINER_INSIGHTS, n, _sets(["ClusterName"]), _K8S_GO + " l.282-296")
        for n in ("cluster_failed_node_count", "cluster_node_count")
    ),
    DocumentedMetric(
        PROMETHEUS,
        "kueue_pending_workloads",
        _sets(
            ["ClusterName"],
            ["ClusterName", "ClusterQueue"],
            ["ClusterName", "ClusterQueue", "Status"],
            ["ClusterName", "Status"],
        ),
        _KUEUE_URL,
    ),
    DocumentedMetric(
        PROMETHEUS,
        "kueue_evicted_workloads_total",
        _sets(
            ["ClusterName"],
            ["ClusterName", "ClusterQueue"],
            ["ClusterName", "ClusterQueue", "Reason"],
            ["ClusterName", "Reason"],
        ),
        _KUEUE_URL,
    ),
    DocumentedMetric(PROMETHEUS, "kueue_admitted_active_workloads", _KUEUE_QUEUE, _KUEUE_URL),
    *(
        DocumentedMetric(PROMETHEUS, n, _KUEUE_RESOURCE, _KUEUE_URL)
        for n in ("kueue_cluster_queue_resource_usage", "kueue_cluster_queue_nominal_quota")
    ),
    *(
        DocumentedMetric(PROMETHEUS, n, _sets(["ClusterName", "nodepool"]), _KARPENTER_URL)
        for n in ("karpenter_nodeclaims_created_total", "karpenter_nodeclaims_terminated_total")
    ),
    DocumentedMetric(
        PROMETHEUS,
        "karpenter_interruption_received_messages_total",
        _sets(["ClusterName", "message_type"]),
        _KARPENTER_URL,
    ),
    DocumentedMetric(PROMETHEUS, "controller_runtime_reconcile_errors_total", _sets(["ClusterName"]), _KARPENTER_URL),
    DocumentedMetric(
        PROMETHEUS, "karpenter_nodes_allocatable", _sets(HYPERPOD_GPU_SET, BURST_GPU_SET), _KARPENTER_NODE_URL
    ),
    DocumentedMetric(PROMETHEUS, "karpenter_nodes_total_pod_requests", _sets(HYPERPOD_GPU_SET), _KARPENTER_NODE_URL),
    DocumentedMetric(PROMETHEUS, "argo_workflows_total_count", _sets(ARGO_WORKFLOWS_SET), _ARGO_URL),
    *(
        DocumentedMetric(PROMETHEUS, n, _sets(SERVING_SET, SERVING_NAMESPACE_SET), _SERVING_URL)
        for n in (
            "sglang:num_running_reqs",
            "sglang:num_queue_reqs",
            "sglang:num_requests_total",
            "sglang:num_aborted_requests_total",
        )
    ),
    DocumentedMetric(PROMETHEUS, "sglang:gen_throughput", _sets(SERVING_SET), _SERVING_URL),
    *(
        DocumentedMetric(CONTAINER_INSIGHTS, n, _sets(DEPLOYMENT_SET, ["ClusterName"]), _K8S_GO + " l.234-247")
        for n in ("replicas_desired", "replicas_ready")
    ),
    DocumentedMetric(JOB_LOGS, TRAINING_HANGS, _sets(["Namespace"]), _TRAINING_HANGS_URL),
    *(
        DocumentedMetric(
            "AWS/FSx", n, _sets(["FileSystemId"]), "https://docs.aws.amazon.com/fsx/latest/LustreGuide/fs-metrics.html"
        )
        for n in (
            "DataReadBytes",
            "DataWriteBytes",
            "DataReadOperations",
            "DataWriteOperations",
            "MetadataOperations",
            "FreeDataStorageCapacity",
        )
    ),
    *(
        DocumentedMetric(
            "AWS/ApplicationELB",
            n,
            _sets(["LoadBalancer"]),
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-cloudwatch-metrics.html",
        )
        for n in ("RequestCount", "HTTPCode_ELB_5XX_Count", "HTTPCode_Target_5XX_Count", "TargetResponseTime")
    ),
    *(
        DocumentedMetric(
            "AWS/ApplicationELB",
            n,
            _sets(["LoadBalancer", "TargetGroup"]),
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-cloudwatch-metrics.html",
        )
        for n in ("HealthyHostCount", "UnHealthyHostCount")
    ),
    *(
        DocumentedMetric(
            "AWS/RDS",
            n,
            _sets(["DBClusterIdentifier"]),
            "https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2.viewing.monitoring.html",
        )
        for n in ("ServerlessDatabaseCapacity", "ACUUtilization")
    ),
    *(
        DocumentedMetric(
            "AWS/Events",
            n,
            _sets(["RuleName"]),
            "https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-monitoring.html",
        )
        for n in ("MatchedEvents", "TriggeredRules")
    ),
]

DOCUMENTED_METRICS: dict[tuple[str, str], DocumentedMetric] = {(m.namespace, m.name): m for m in _TABLE}


def lookup(namespace: str, name: str) -> DocumentedMetric | None:
    """The table entry of (namespace, name); a cluster's ``llmft/JobLogs/<cluster>`` is the :data:`JOB_LOGS` row."""
    if namespace.startswith(f"{JOB_LOGS}/"):
        namespace = JOB_LOGS
    return DOCUMENTED_METRICS.get((namespace, name))


def check(namespace: str, name: str, dimensions: Sequence[str]) -> DocumentedMetric:
    """The table entry of (namespace, name) if it is published with exactly ``dimensions``; else ValueError."""
    entry = lookup(namespace, name)
    if entry is None:
        raise ValueError(f"{namespace}/{name} is not a metric the platform's collectors emit (documented_metrics.py)")
    if frozenset(dimensions) not in entry.dimension_sets:
        raise ValueError(
            f"{namespace}/{name} is not published with dimensions {sorted(dimensions)}; documented sets: "
            f"{[sorted(s) for s in entry.dimension_sets]} ({entry.source})"
        )
    return entry


def metric(
    namespace: str,
    name: str,
    dimensions: Mapping[str, str],
    *,
    statistic: str = "Average",
    period: Duration = Duration.minutes(5),
    label: str | None = None,
) -> cw.Metric:
    """A ``cw.Metric`` of a documented metric (checked against the table)."""
    check(namespace, name, list(dimensions))
    return cw.Metric(
        namespace=namespace,
        metric_name=name,
        dimensions_map=dict(dimensions),
        statistic=statistic,
        period=period,
        label=label,
    )


def _term(key: str, value: str) -> str:
    return f"{key}={value}" if value.isalnum() else f'{key}="{value}"'


def search_expression(
    namespace: str,
    name: str,
    dimensions: Sequence[str],
    terms: Mapping[str, str | Sequence[str]] | None = None,
    *,
    statistic: str = "Average",
    period_seconds: int = 300,
) -> str:
    """``SEARCH('{ns,dims} MetricName="name" Dim=value ...', 'stat', period)`` for a documented metric: the schema
    pins the exact dimension set; ``terms`` filter on dimension values. CloudWatch search syntax
    (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/search-expression-syntax.html): an unquoted
    alphanumeric term matches a token of the value (``NodeName=hyperpod`` matches ``hyperpod-i-0abc``), a quoted one
    the whole value; a sequence of values becomes ``(K="a" OR K="b")``."""
    check(namespace, name, dimensions)
    schema = ",".join([f'"{namespace}"' if "/" in namespace else namespace, *sorted(dimensions)])
    filters = "".join(
        f" {_term(k, v)}" if isinstance(v, str) else " (" + " OR ".join(_term(k, x) for x in v) + ")"
        for k, v in (terms or {}).items()
    )
    return f"SEARCH('{{{schema}}} MetricName=\"{name}\"{filters}', '{statistic}', {period_seconds})"
