"""GPU counts an alarm can evaluate: metric math over metrics with fixed dimensions (alarms cannot use SEARCH), shared
by cdk_constructs/observability/platform_alarms.py and the dashboard so both show the same numbers.

Why Karpenter's node gauges and not Container Insights: the Container Insights GPU counts (``node_gpu_limit``,
``node_gpu_reserved_capacity``) exist per node (``NodeName``/``InstanceId``, names unknown at synth) or for the whole
cluster (``ClusterName``, HyperPod and Karpenter GPUs mixed), so an alarm on HyperPod GPUs alone would need a Metrics
Insights query, and a Metrics Insights alarm may only evaluate the latest 3 hours of data (CloudWatch User Guide,
"Limits that apply to alarms based on Metrics Insights queries",
https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-limits.html) while ``reserved_idle_hours``
goes up to 72. Karpenter's ``karpenter_nodes_allocatable`` / ``karpenter_nodes_total_pod_requests`` cover every node,
HyperPod included, and the scraper publishes them per instance type (container_insights.PROMETHEUS_DECLARATIONS):
fixed dimensions known from the config. Several nodes' samples share one metric, so ``Sum`` over a period is GPUs x
scrapes: a share is a ratio of two Sums from the same scrapes, a count is ``Sum x scrape interval / PERIOD``.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cw

from cdk_constructs.observability.container_insights import GPU_RESOURCE, SCRAPE_INTERVAL_SECONDS
from cdk_constructs.observability.documented_metrics import BURST_GPU_SET, HYPERPOD_GPU_SET, PROMETHEUS, metric

MAX_ALARM_METRICS = 10
"""CloudWatch User Guide, alarm limits: "Alarms based on metric math expressions can reference a maximum of 10
metrics" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-limits.html)."""
MAX_BURST_TYPES = 9
"""An alarm's metric math may use 10 MetricStat and 10 expressions (PutMetricAlarm ``Metrics``): one MetricStat and
one expression per (instance type, capacity type) plus the total."""


def _hyperpod_gauges(
    cluster_name: str, instance_types: Sequence[str], period: Duration, *, requests: bool = True
) -> dict[str, cw.IMetric]:
    using: dict[str, cw.IMetric] = {}
    for i, itype in enumerate(instance_types):
        dims = {"ClusterName": cluster_name, "instance_type": itype, "resource_type": GPU_RESOURCE}
        assert tuple(sorted(dims)) == tuple(sorted(HYPERPOD_GPU_SET))
        using[f"alloc{i}"] = metric(PROMETHEUS, "karpenter_nodes_allocatable", dims, statistic="Sum", period=period)
        if requests:
            using[f"req{i}"] = metric(
                PROMETHEUS, "karpenter_nodes_total_pod_requests", dims, statistic="Sum", period=period
            )
    return using


def hyperpod_idle_gpus(
    cluster_name: str, instance_types: Sequence[str], reserved_gpus: int, period: Duration
) -> cw.MathExpression:
    """HyperPod GPUs requested by no pod, averaged over ``period``: ``reserved_gpus x (1 - requested / allocatable)``
    summed over the HyperPod GPU instance types. A node whose pods request no GPU has no requests sample
    (Karpenter's metric carries only the resources requested), so a period without any GPU request has no
    requested series at all; the requested sum therefore includes ``0 x allocatable`` (``SUM([...])`` adds the
    series that have a value), which makes it 0 - all GPUs idle - whenever the HyperPod GPUs exist, and leaves the
    expression without data only when there is no allocatable series either (scraper, Karpenter or the HyperPod
    nodes missing: :func:`hyperpod_gpu_samples` watches that case)."""
    if not instance_types:
        raise ValueError("hyperpod_idle_gpus needs the HyperPod GPU instance types")
    if 2 * len(instance_types) > MAX_ALARM_METRICS:
        raise ValueError(
            f"{len(instance_types)} HyperPod GPU instance types: the idle-GPU alarm reads 2 metrics per "
            f"type and an alarm's metric math may reference at most {MAX_ALARM_METRICS}; use at most "
            f"{MAX_ALARM_METRICS // 2} GPU instance types in compute.hyperpod.instance_groups"
        )
    using = _hyperpod_gauges(cluster_name, instance_types, period)
    req = ", ".join(k for k in using if k.startswith("req"))
    alloc = ", ".join(k for k in using if k.startswith("alloc"))
    allocs = {k: m for k, m in using.items() if k.startswith("alloc")}
    total = cw.MathExpression(
        expression=f"SUM([{alloc}])", label="HyperPod GPU samples", using_metrics=allocs, period=period
    )
    none_requested = cw.MathExpression(
        expression="0 * allocated", label="no request", using_metrics={"allocated": total}, period=period
    )
    return cw.MathExpression(
        expression=f"{reserved_gpus} * (1 - SUM([{req}, zero]) / allocated)",
        label="HyperPod GPUs requested by no pod",
        using_metrics={**using, "allocated": total, "zero": none_requested},
        period=period,
    )


def hyperpod_gpu_samples(cluster_name: str, instance_types: Sequence[str], period: Duration) -> cw.MathExpression:
    """How many HyperPod GPU samples the scraper published in ``period`` (``karpenter_nodes_allocatable`` of the
    HyperPod GPU types, summed): no data means no GPU metrics at all - the Prometheus scraper or Karpenter is down,
    or no HyperPod GPU node has joined - which :func:`hyperpod_idle_gpus` cannot tell from "nothing to measure"."""
    if not instance_types:
        raise ValueError("hyperpod_gpu_samples needs the HyperPod GPU instance types")
    using = _hyperpod_gauges(cluster_name, instance_types, period, requests=False)
    return cw.MathExpression(
        expression=f"SUM([{', '.join(using)}])",
        label="HyperPod GPU samples (allocatable)",
        using_metrics=using,
        period=period,
    )


def burst_usd_per_hour(
    cluster_name: str, prices: Sequence[tuple[str, str, float]], period: Duration
) -> cw.MathExpression:
    """USD per hour of the running Karpenter GPU nodes: for each (instance type, capacity type, USD per GPU-hour),
    the GPUs of that kind (``Sum x scrape interval / PERIOD``) x the price, summed with ``SUM([...])``, which skips
    kinds with no node (no data) instead of blanking the total."""
    if not prices:
        raise ValueError("burst_usd_per_hour needs at least one Karpenter GPU instance type")
    if len(prices) > MAX_BURST_TYPES:
        raise ValueError(
            f"{len(prices)} Karpenter GPU (instance type, capacity type) pairs: an alarm's metric math "
            f"holds at most {MAX_BURST_TYPES}; trim kubernetes.gpu_node_pools[].instance_types"
        )
    terms: dict[str, cw.IMetric] = {}
    for i, (itype, capacity_type, usd_per_gpu) in enumerate(prices):
        dims = {
            "ClusterName": cluster_name,
            "capacity_type": capacity_type,
            "instance_type": itype,
            "resource_type": GPU_RESOURCE,
        }
        assert tuple(sorted(dims)) == tuple(sorted(BURST_GPU_SET))
        gpus = metric(PROMETHEUS, "karpenter_nodes_allocatable", dims, statistic="Sum", period=period)
        terms[f"usd{i}"] = cw.MathExpression(
            expression=f"gpus{i} * {SCRAPE_INTERVAL_SECONDS} / PERIOD(gpus{i}) * {usd_per_gpu:.4f}",
            label=f"{itype} {capacity_type}, USD/hour",
            using_metrics={f"gpus{i}": gpus},
            period=period,
        )
    return cw.MathExpression(
        expression=f"SUM([{', '.join(terms)}])",
        label="Karpenter GPU nodes, USD/hour",
        using_metrics=terms,
        period=period,
    )
