"""One CloudWatch dashboard per environment: GPUs by capacity kind and team, reserved-capacity utilization, Karpenter,
job queues, FSx, MLflow, burst spend, served models (``type: serve``) and (``pipelines.enabled``) each team's workflow
phase counts. Every metric comes from cdk_constructs/observability/documented_metrics.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cw
from constructs import Construct

from cdk_constructs.observability.documented_metrics import CONTAINER_INSIGHTS, PROMETHEUS, metric, search_expression
from cdk_constructs.observability.gpu_capacity import burst_usd_per_hour, hyperpod_idle_gpus
from cdk_constructs.observability.platform_alarms import fsx_free_bytes
from k8s_charts import serving

_NODE_GPU = ["ClusterName", "GpuDevice", "InstanceId", "InstanceType", "NodeName"]
_NODE_GPU_COUNT = ["ClusterName", "InstanceId", "NodeName"]
_POD = ["ClusterName", "FullPodName", "Namespace", "PodName"]
"""One series per pod: ``PodName`` alone is the pod's owner (all pods of a job share it), ``FullPodName`` the pod."""
HYPERPOD_NODE_TOKEN = "hyperpod"
PIPELINE_PHASES = ("Running", "Succeeded", "Failed", "Error")
"""Workflow phases shown (Argo Workflows v4.0.6 workflow/metrics/counter_workflow_phase.go; Pending is short-lived)."""
"""HyperPod registers its nodes as ``hyperpod-i-<instance id>`` (SageMaker Developer Guide, HyperPod EKS node
names), so a search term ``NodeName=hyperpod`` selects exactly the reserved capacity; Karpenter and system nodes are
named after their private DNS name (``ip-...``)."""
_PERIOD = 300
"""Seconds per data point of most widgets."""


@dataclass(frozen=True)
class CapacityKinds:
    """Instance types per capacity kind, from the config (Karpenter pools by capacity type). ``reserved`` is selected
    by node name (:data:`HYPERPOD_NODE_TOKEN`)."""

    on_demand: tuple[str, ...]
    spot: tuple[str, ...]
    burst_prices: tuple[tuple[str, str, float], ...] = field(default_factory=tuple)
    """(Karpenter instance type, capacity type, on-demand USD per GPU-hour) (config/data/prices.yaml)."""


def _kind_searches(cluster_name: str, capacity: CapacityKinds, name: str, stat: str) -> dict[str, str]:
    """Capacity kind -> SEARCH over its GPU nodes: HyperPod by node name, Karpenter pools by instance type."""
    kinds: dict[str, Mapping[str, str | Sequence[str]]] = {"reserved (HyperPod)": {"NodeName": HYPERPOD_NODE_TOKEN}}
    if capacity.on_demand:
        kinds["on-demand (Karpenter)"] = {"InstanceType": capacity.on_demand}
    if capacity.spot:
        kinds["spot (Karpenter)"] = {"InstanceType": capacity.spot}
    return {
        k: search_expression(
            CONTAINER_INSIGHTS,
            name,
            _NODE_GPU,
            {"ClusterName": cluster_name, **v},
            statistic=stat,
            period_seconds=_PERIOD,
        )
        for k, v in kinds.items()
    }


class PlatformDashboard(Construct):
    """``<prefix>-platform`` dashboard. Attributes: ``dashboard``, ``widget_titles`` (in order).

    :param prefix: resource prefix (dashboard name ``<prefix>-platform``). Required.
    :param cluster_name: EKS cluster. Required.
    :param teams: team namespaces (per-team GPU widgets). Required.
    :param capacity: instance types per capacity kind and their prices. Required.
    :param reserved_usd_per_hour: what the HyperPod groups cost per hour (a constant line on the spend widget).
    :param hyperpod_gpu_instance_types: HyperPod GPU instance types (``ml.*``); ``reserved_gpus``: their GPUs.
    :param burst_budget_usd_per_hour: budget line on the spend widget (None: none).
    :param pipeline_namespaces: team namespaces whose Argo Workflows are counted (``pipelines.enabled``; one widget
        each: workflows entering Running/Succeeded/Failed/Error). Default: none, no pipeline row.
    :param serving_namespaces: team namespaces where served models run (one row: requests running/queued, replicas,
        tokens/s, finished/aborted requests, each a SEARCH over the ``serve`` dimension). Default: none, no row.
    :param file_system_id, load_balancer_full_name, target_group_full_name, database_cluster_identifier,
        spot_interruption_rule_name: the resources whose AWS metrics are shown. Required.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        prefix: str,
        cluster_name: str,
        teams: Sequence[str],
        capacity: CapacityKinds,
        reserved_usd_per_hour: float,
        burst_budget_usd_per_hour: float | None,
        hyperpod_gpu_instance_types: Sequence[str],
        reserved_gpus: int,
        file_system_id: str,
        load_balancer_full_name: str,
        target_group_full_name: str,
        database_cluster_identifier: str,
        spot_interruption_rule_name: str,
        pipeline_namespaces: Sequence[str] = (),
        serving_namespaces: Sequence[str] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self.dashboard = cw.Dashboard(
            self, "Dashboard", dashboard_name=f"{prefix}-platform", default_interval=Duration.hours(12)
        )
        self.widget_titles: list[str] = []
        # widgets are built in this order (``widget_titles``): pipelines before served models, which come first on
        # the dashboard
        gpu_row = self._gpu_row(cluster_name, teams, capacity)
        alloc_row = [
            *self._allocation_widgets(cluster_name, teams),
            self._reserved_capacity_widget(cluster_name, capacity, hyperpod_gpu_instance_types, reserved_gpus),
        ]
        karpenter_row = self._karpenter_row(cluster_name, spot_interruption_rule_name)
        storage_row = [
            *self._fsx_widgets(file_system_id),
            *self._mlflow_widgets(load_balancer_full_name, target_group_full_name, database_cluster_identifier),
        ]
        spend_row = self._spend_row(cluster_name, capacity, reserved_usd_per_hour, burst_budget_usd_per_hour)
        pipeline_rows = self._pipeline_rows(cluster_name, pipeline_namespaces)
        serving_rows = [self._serving_row(cluster_name, serving_namespaces)] if serving_namespaces else []
        for row in (gpu_row, alloc_row, karpenter_row, storage_row, spend_row, *serving_rows, *pipeline_rows):
            self.dashboard.add_widgets(*row)

    # --- GPUs --------------------------------------------------------------------------------------------------------
    def _by_kind(
        self, title: str, name: str, unit_label: str, cluster_name: str, capacity: CapacityKinds
    ) -> cw.GraphWidget:
        """The average of Container Insights' per-GPU metric ``name``, one line per capacity kind."""
        lines = [
            cw.MathExpression(expression=f"AVG({e})", label=k, period=Duration.seconds(_PERIOD))
            for k, e in _kind_searches(cluster_name, capacity, name, "Average").items()
        ]
        return self._graph(title, lines, left_label=unit_label, left_max=100)

    def _gpu_row(self, cluster_name: str, teams: Sequence[str], capacity: CapacityKinds) -> list[cw.GraphWidget]:
        """GPU and GPU memory utilization by capacity kind and by team."""
        c = {"ClusterName": cluster_name}
        gpu_row = [
            self._by_kind("GPU utilization by capacity kind", "node_gpu_utilization", "%", cluster_name, capacity),
            self._by_kind(
                "GPU memory utilization by capacity kind", "node_gpu_memory_utilization", "%", cluster_name, capacity
            ),
        ]
        team_util = [metric(CONTAINER_INSIGHTS, "pod_gpu_utilization", {**c, "Namespace": t}, label=t) for t in teams]
        team_mem = [
            metric(CONTAINER_INSIGHTS, "pod_gpu_memory_utilization", {**c, "Namespace": t}, label=t) for t in teams
        ]
        return [
            *gpu_row,
            self._graph("GPU utilization by team", team_util, left_label="%", left_max=100),
            self._graph("GPU memory utilization by team", team_mem, left_label="%", left_max=100),
        ]

    def _allocation_widgets(self, cluster_name: str, teams: Sequence[str]) -> list[cw.GraphWidget]:
        """GPUs allocated vs used per team, and GPUs admitted per queue and Kueue flavor."""
        c = {"ClusterName": cluster_name}
        allocated = []
        for i, team in enumerate(teams):
            # GPUs requested by the team's pods: one series per pod (FullPodName), its maximum over the period, summed
            req = cw.MathExpression(
                expression="SUM("
                + search_expression(
                    CONTAINER_INSIGHTS,
                    "pod_gpu_request",
                    _POD,
                    {"ClusterName": cluster_name, "Namespace": team},
                    statistic="Maximum",
                    period_seconds=60,
                )
                + ")",
                label=f"{team} allocated",
                period=Duration.minutes(1),
            )
            util = metric(
                CONTAINER_INSIGHTS, "pod_gpu_utilization", {**c, "Namespace": team}, period=Duration.minutes(1)
            )
            allocated.append(req)
            allocated.append(
                cw.MathExpression(
                    expression=f"FILL(req{i}, 0) * FILL(util{i}, 0) / 100",
                    label=f"{team} used (GPU-equivalents)",
                    using_metrics={f"req{i}": req, f"util{i}": util},
                    period=Duration.minutes(1),
                )
            )
        flavors = cw.MathExpression(
            expression=search_expression(
                PROMETHEUS,
                "kueue_cluster_queue_resource_usage",
                ["ClusterName", "ClusterQueue", "Flavor", "Resource"],
                {"ClusterName": cluster_name, "Resource": "nvidia.com/gpu"},
                statistic="Maximum",
                period_seconds=_PERIOD,
            ),
            label="",
            period=Duration.seconds(_PERIOD),
        )
        return [
            self._graph("GPUs allocated vs used per team", allocated, left_label="GPUs"),
            self._graph("GPUs admitted per queue and capacity kind (Kueue flavor)", [flavors], left_label="GPUs"),
        ]

    def _reserved_capacity_widget(
        self, cluster_name: str, capacity: CapacityKinds, hyperpod_gpu_instance_types: Sequence[str], reserved_gpus: int
    ) -> cw.GraphWidget:
        """HyperPod GPUs busy and allocated (%, left), their number and the idle ones (right)."""
        busy = _kind_searches(cluster_name, capacity, "node_gpu_utilization", "Average")["reserved (HyperPod)"]
        hp = {"ClusterName": cluster_name, "NodeName": HYPERPOD_NODE_TOKEN}
        reserved_pct = search_expression(
            CONTAINER_INSIGHTS,
            "node_gpu_reserved_capacity",
            _NODE_GPU_COUNT,
            hp,
            statistic="Average",
            period_seconds=_PERIOD,
        )
        hp_gpus = search_expression(
            CONTAINER_INSIGHTS, "node_gpu_limit", _NODE_GPU_COUNT, hp, statistic="Maximum", period_seconds=_PERIOD
        )
        reserved = [
            cw.MathExpression(
                expression=f"AVG({busy})", label="HyperPod GPUs busy (utilization %)", period=Duration.seconds(_PERIOD)
            ),
            cw.MathExpression(
                expression=f"AVG({reserved_pct})",
                label="HyperPod GPUs allocated to pods (%, node_gpu_reserved_capacity)",
                period=Duration.seconds(_PERIOD),
            ),
        ]
        reserved_counts = [
            cw.MathExpression(
                expression=f"SUM({hp_gpus})", label="HyperPod GPUs (node_gpu_limit)", period=Duration.seconds(_PERIOD)
            )
        ]
        if reserved_gpus > 0 and hyperpod_gpu_instance_types:
            reserved_counts.append(
                hyperpod_idle_gpus(cluster_name, hyperpod_gpu_instance_types, reserved_gpus, Duration.seconds(_PERIOD))
            )
        return self._graph(
            "Reserved capacity utilization (does the reservation pay?)",
            reserved,
            right=reserved_counts,
            left_label="%",
            left_max=100,
            right_label="GPUs",
        )

    # --- Karpenter and jobs ------------------------------------------------------------------------------------------
    def _karpenter_row(self, cluster_name: str, spot_interruption_rule_name: str) -> list[cw.GraphWidget]:
        """Karpenter nodes launched/terminated, Spot interruptions, Kueue workloads, pending jobs per queue."""
        c = {"ClusterName": cluster_name}
        return [
            self._karpenter_nodes_widget(c),
            self._spot_widget(c, spot_interruption_rule_name),
            self._kueue_jobs_widget(c),
            self._graph(
                "Pending jobs per queue (time pending = how long a line stays up)",
                [_search("kueue_pending_workloads", ["ClusterName", "ClusterQueue"], c, statistic="Maximum", label="")],
                left_label="workloads",
            ),
        ]

    def _karpenter_nodes_widget(self, c: dict[str, str]) -> cw.GraphWidget:
        """Karpenter nodes launched and terminated, per nodepool."""
        dims = ["ClusterName", "nodepool"]
        created = _search("karpenter_nodeclaims_created_total", dims, c, statistic="Sum", label="launched")
        terminated = _search("karpenter_nodeclaims_terminated_total", dims, c, statistic="Sum", label="terminated")
        return self._graph(
            "Karpenter nodes launched / terminated (per nodepool)", [created, terminated], left_label="nodes"
        )

    def _spot_widget(self, c: dict[str, str], spot_interruption_rule_name: str) -> cw.GraphWidget:
        """Spot interruption warnings (EventBridge) and the interruption messages Karpenter received."""
        spot = metric(
            "AWS/Events",
            "MatchedEvents",
            {"RuleName": spot_interruption_rule_name},
            statistic="Sum",
            label="spot interruption warnings",
        )
        messages = _search(
            "karpenter_interruption_received_messages_total",
            ["ClusterName", "message_type"],
            c,
            statistic="Sum",
            label="",
        )
        return self._graph("Spot interruptions", [spot, messages], left_label="events")

    def _kueue_jobs_widget(self, c: dict[str, str]) -> cw.GraphWidget:
        """Kueue workloads pending, admitted and preempted."""
        pending = [
            metric(
                PROMETHEUS, "kueue_pending_workloads", {**c, "Status": s}, statistic="Maximum", label=f"pending ({s})"
            )
            for s in ("active", "inadmissible")
        ]
        running = metric(
            PROMETHEUS, "kueue_admitted_active_workloads", c, statistic="Maximum", label="admitted (running)"
        )
        preempted = metric(
            PROMETHEUS,
            "kueue_evicted_workloads_total",
            {**c, "Reason": "Preempted"},
            statistic="Sum",
            label="preempted",
        )
        return self._graph(
            "Jobs: pending, running, preempted (Kueue)", [*pending, running, preempted], left_label="workloads"
        )

    # --- FSx, MLflow, Aurora -----------------------------------------------------------------------------------------
    def _fsx_widgets(self, file_system_id: str) -> list[cw.GraphWidget]:
        """FSx throughput and IOPS, free capacity."""
        fs = {"FileSystemId": file_system_id}
        fsx_tput = cw.MathExpression(
            expression="(FILL(r, 0) + FILL(w, 0)) / PERIOD(r) / 1048576",
            label="throughput (MiB/s)",
            using_metrics={
                "r": metric("AWS/FSx", "DataReadBytes", fs, statistic="Sum"),
                "w": metric("AWS/FSx", "DataWriteBytes", fs, statistic="Sum"),
            },
        )
        fsx_iops = cw.MathExpression(
            expression="(FILL(ro, 0) + FILL(wo, 0) + FILL(mo, 0)) / PERIOD(ro)",
            label="IOPS (data + metadata)",
            using_metrics={
                "ro": metric("AWS/FSx", "DataReadOperations", fs, statistic="Sum"),
                "wo": metric("AWS/FSx", "DataWriteOperations", fs, statistic="Sum"),
                "mo": metric("AWS/FSx", "MetadataOperations", fs, statistic="Sum"),
            },
        )
        fsx_free = cw.MathExpression(
            expression="bytes / 1073741824",
            label="free capacity (GiB, all storage targets)",
            using_metrics={"bytes": fsx_free_bytes(file_system_id, Duration.seconds(_PERIOD))},
        )
        return [
            self._graph(
                "FSx throughput and IOPS", [fsx_tput], right=[fsx_iops], left_label="MiB/s", right_label="IOPS"
            ),
            self._graph("FSx free capacity", [fsx_free], left_label="GiB"),
        ]

    def _mlflow_widgets(
        self, load_balancer_full_name: str, target_group_full_name: str, database_cluster_identifier: str
    ) -> list[cw.GraphWidget]:
        """MLflow's load balancer (requests, 5xx, unhealthy tasks, latency) and Aurora ACUs."""
        lb = {"LoadBalancer": load_balancer_full_name}
        tg = {**lb, "TargetGroup": target_group_full_name}
        db = {"DBClusterIdentifier": database_cluster_identifier}
        return [
            self._graph(
                "MLflow ALB requests and 5xx",
                [metric("AWS/ApplicationELB", "RequestCount", lb, statistic="Sum", label="requests")],
                right=[
                    metric("AWS/ApplicationELB", "HTTPCode_ELB_5XX_Count", lb, statistic="Sum", label="ELB 5xx"),
                    metric("AWS/ApplicationELB", "HTTPCode_Target_5XX_Count", lb, statistic="Sum", label="MLflow 5xx"),
                    metric(
                        "AWS/ApplicationELB", "UnHealthyHostCount", tg, statistic="Maximum", label="unhealthy tasks"
                    ),
                ],
                left_label="requests",
                right_label="errors / tasks",
            ),
            self._graph(
                "MLflow latency and Aurora ACUs",
                [
                    metric("AWS/ApplicationELB", "TargetResponseTime", lb, statistic="p50", label="latency p50 (s)"),
                    metric("AWS/ApplicationELB", "TargetResponseTime", lb, statistic="p99", label="latency p99 (s)"),
                ],
                right=[
                    metric("AWS/RDS", "ServerlessDatabaseCapacity", db, statistic="Maximum", label="Aurora ACUs"),
                    metric("AWS/RDS", "ACUUtilization", db, statistic="Maximum", label="Aurora % of max ACU"),
                ],
                left_label="seconds",
                right_label="ACU / %",
            ),
        ]

    # --- burst spend -------------------------------------------------------------------------------------------------
    def _spend_row(
        self,
        cluster_name: str,
        capacity: CapacityKinds,
        reserved_usd_per_hour: float,
        burst_budget_usd_per_hour: float | None,
    ) -> list[cw.GraphWidget | cw.TextWidget]:
        """Burst spend per hour (with the HyperPod groups' cost and the burst budget as lines), and the Ray dashboard
        and job wait note."""
        spend = (
            [burst_usd_per_hour(cluster_name, capacity.burst_prices, Duration.seconds(_PERIOD))]
            if capacity.burst_prices
            else []
        )
        annotations = [
            cw.HorizontalAnnotation(value=round(reserved_usd_per_hour, 2), label="HyperPod groups, USD/hour (reserved)")
        ]
        if burst_budget_usd_per_hour is not None:
            annotations.append(
                cw.HorizontalAnnotation(value=burst_budget_usd_per_hour, label="burst budget", color=cw.Color.RED)
            )
        return [
            self._graph(
                "Burst spend per hour (running GPU instances x prices.yaml)",
                spend,
                left_label="USD/hour",
                annotations=annotations,
                width=12,
            ),
            self._text("Ray dashboard and job wait times", _RAY_AND_WAIT_NOTE, width=12),
        ]

    # --- pipelines (Argo Workflows): workflows entering each phase, per team namespace -------------------------------
    def _pipeline_rows(self, cluster_name: str, pipeline_namespaces: Sequence[str]) -> list[list[cw.GraphWidget]]:
        """One widget per team namespace, four to a row. argo_workflows_total_count is a counter; the agent publishes
        per-scrape deltas, so Sum = workflows that entered the phase in the period."""
        c = {"ClusterName": cluster_name}
        return [
            [
                self._graph(
                    f"Pipelines of {ns}: workflows entering each phase",
                    [
                        metric(
                            PROMETHEUS,
                            "argo_workflows_total_count",
                            {**c, "Namespace": ns, "Phase": phase},
                            statistic="Sum",
                            period=Duration.seconds(_PERIOD),
                            label=phase,
                        )
                        for phase in PIPELINE_PHASES
                    ],
                    left_label="workflows / 5 min",
                )
                for ns in pipeline_namespaces[i : i + 4]
            ]
            for i in range(0, len(pipeline_namespaces), 4)
        ]

    def _serving_row(self, cluster_name: str, namespaces: Sequence[str]) -> list[cw.GraphWidget]:
        """Served models (k8s_charts/serving.py), one line per endpoint: SEARCH over the ``serve`` dimension (serve
        names are not known at synth time). Gauges: a one-minute ``Sum`` is the endpoint's total at that scrape
        (every replica and data-parallel engine, one sample each); counters: per-scrape deltas, so a ``Sum`` is the
        count in the period. Replicas: enhanced Container Insights' Deployment metrics (``PodName`` = the Deployment,
        i.e. the serve name) of the team namespaces. Latency: the queue (the engines' latency histograms never reach
        CloudWatch)."""
        terms = {"ClusterName": cluster_name, "Namespace": list(namespaces)}

        def per_serve(name: str, label: str, *, statistic: str = "Sum", period: int = 60) -> cw.MathExpression:
            return cw.MathExpression(
                expression=search_expression(
                    PROMETHEUS, name, serving.METRIC_DIMENSIONS, terms, statistic=statistic, period_seconds=period
                ),
                label=label,
                period=Duration.seconds(period),
            )

        def replicas(name: str, label: str) -> cw.MathExpression:
            return cw.MathExpression(
                expression=search_expression(
                    CONTAINER_INSIGHTS,
                    name,
                    ["ClusterName", "Namespace", "PodName"],
                    terms,
                    statistic="Maximum",
                    period_seconds=300,
                ),
                label=label,
                period=Duration.minutes(5),
            )

        running, queued = (per_serve(m, "") for m in serving.DEMAND_METRICS)
        return [
            self._graph(
                "Served models: requests running (left) and queued (right; queue = latency)",
                [running],
                right=[queued],
                left_label="requests",
                right_label="requests waiting",
            ),
            self._graph(
                "Served models: replicas ready / desired (Deployments of team namespaces)",
                [replicas("replicas_ready", "ready: "), replicas("replicas_desired", "desired: ")],
                left_label="replicas",
            ),
            self._graph(
                "Served models: generated tokens per second",
                [per_serve(serving.THROUGHPUT_METRIC, "")],
                left_label="tokens/s",
            ),
            self._graph(
                "Served models: requests finished (left) and aborted (right) per 5 minutes",
                [per_serve(serving.FINISHED_REQUESTS_METRIC, "", period=300)],
                right=[per_serve(serving.ABORTED_REQUESTS_METRIC, "", period=300)],
                left_label="requests / 5 min",
                right_label="aborted / 5 min",
            ),
        ]

    def _graph(
        self,
        title: str,
        left: Sequence[cw.IMetric],
        *,
        right: Sequence[cw.IMetric] = (),
        left_label: str = "",
        right_label: str = "",
        left_max: float | None = None,
        annotations: Sequence[cw.HorizontalAnnotation] = (),
        width: int = 6,
    ) -> cw.GraphWidget:
        self.widget_titles.append(title)
        return cw.GraphWidget(
            title=title,
            left=list(left),
            right=list(right),
            width=width,
            height=6,
            left_y_axis=cw.YAxisProps(label=left_label, min=0, max=left_max, show_units=False),
            right_y_axis=cw.YAxisProps(label=right_label, min=0, show_units=False),
            left_annotations=list(annotations) or None,
        )

    def _text(self, title: str, markdown: str, *, width: int) -> cw.TextWidget:
        self.widget_titles.append(title)
        return cw.TextWidget(markdown=f"### {title}\n{markdown}", width=width, height=6)


_RAY_AND_WAIT_NOTE = (
    "**Ray dashboard** (the team that owns the RayJob, never exposed outside the cluster):\n"
    "`kubectl -n <team> port-forward svc/<rayjob>-head-svc 8265:8265` then open http://localhost:8265.\n\n"
    "**Job wait**: Kueue's `kueue_admission_wait_time_seconds` is a Prometheus histogram, which the CloudWatch agent "
    "drops; the widget *Pending jobs per queue* shows how long workloads stay pending, and "
    "`kubectl -n <team> get workloads` lists each one with its age."
)


def _search(
    metric_name: str, dimensions: list[str], match: dict[str, str], *, statistic: str, label: str
) -> cw.MathExpression:
    """A SEARCH over the Prometheus namespace for ``metric_name`` at the dashboard's period."""
    return cw.MathExpression(
        expression=search_expression(
            PROMETHEUS, metric_name, dimensions, match, statistic=statistic, period_seconds=_PERIOD
        ),
        label=label,
        period=Duration.seconds(_PERIOD),
    )
