"""The platform's alarms and the SNS topic they notify (docs/observability.md "Alarms and runbooks" has one runbook line
each)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import (
    ArnFormat,
    Duration,
    RemovalPolicy,
    Stack,
)
from aws_cdk import (
    aws_cloudwatch as cw,
)
from aws_cdk import (
    aws_cloudwatch_actions as cw_actions,
)
from aws_cdk import (
    aws_events as events,
)
from aws_cdk import (
    aws_events_targets as targets,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_logs as logs,
)
from aws_cdk import (
    aws_sns as sns,
)
from aws_cdk import (
    aws_sns_subscriptions as subscriptions,
)
from constructs import Construct

from cdk_constructs.observability.container_insights import SCRAPE_INTERVAL_SECONDS
from cdk_constructs.observability.documented_metrics import PROMETHEUS, TRAINING_HANGS, job_logs_namespace, metric
from cdk_constructs.observability.gpu_capacity import (
    burst_usd_per_hour as burst_usd_per_hour_metric,
)
from cdk_constructs.observability.gpu_capacity import (
    hyperpod_gpu_samples,
    hyperpod_idle_gpus,
)
from cdk_constructs.observability.training_hangs import hang_metric_filter
from config.observability import AlarmThresholds
from k8s_charts import serving

HYPERPOD_EVENT_DETAIL_TYPE = "SageMaker HyperPod Cluster Event"
"""EventBridge detail-type of HyperPod cluster events (clusters with NodeProvisioningMode Continuous): SageMaker
Developer Guide, "SageMaker HyperPod cluster events reference" (sagemaker-hyperpod-cluster-events-reference.html)."""


@dataclass(frozen=True)
class AlarmSpec:
    """What an alarm watches, for the table in docs/observability.md and the tests: the alarm's construct id, the
    metric(s) behind it and the config field its threshold comes from."""

    construct_id: str
    metric: str
    threshold_field: str


def fsx_free_bytes(file_system_id: str, period: Duration) -> cw.MathExpression:
    """Free bytes of the whole file system: FreeDataStorageCapacity's ``Sum`` (every storage target's one-minute
    points) x 60 s / PERIOD - the per-minute total, averaged over ``period`` (shared by the alarm and the dashboard)."""
    return cw.MathExpression(
        expression="free * 60 / PERIOD(free)",
        label="FSx free capacity (bytes, all storage targets)",
        using_metrics={
            "free": metric(
                "AWS/FSx", "FreeDataStorageCapacity", {"FileSystemId": file_system_id}, statistic="Sum", period=period
            )
        },
        period=period,
    )


@dataclass(frozen=True, kw_only=True)
class AlarmedResources:
    """The resources whose AWS metrics and events :class:`PlatformAlarms` watches. Every field is required."""

    cluster_name: str
    """EKS cluster name (``ClusterName`` of Container Insights)."""
    file_system_id: str
    """The FSx for Lustre file system."""
    file_system_capacity_gib: int
    """Its size (the free-capacity alarm's threshold is a percentage of it)."""
    load_balancer_full_name: str
    """MLflow's ALB (``LoadBalancer`` dimension)."""
    target_group_full_name: str
    """MLflow's target group (``TargetGroup`` dimension)."""
    database_cluster_identifier: str
    """MLflow's Aurora cluster."""
    hyperpod_cluster_arn: str
    """HyperPod cluster whose instance Warning/Error events are counted."""
    spot_interruption_rule_name: str
    """The EventBridge rule matching EC2 Spot interruption warnings."""


@dataclass(frozen=True, kw_only=True)
class GpuAlarmProps:
    """Reserved (HyperPod) and burst (Karpenter) GPU capacity, for the idle-reservation and burst-spend alarms. The
    defaults make neither alarm."""

    reserved_gpus: int = 0
    """GPUs of the HyperPod instance groups. Default 0: no ReservedGpusIdle / HyperPodGpuMetricsMissing alarms."""
    hyperpod_gpu_instance_types: Sequence[str] = ()
    """Instance types (``ml.*``) of the HyperPod groups with GPUs. Default: none."""
    burst_prices: Sequence[tuple[str, str, float]] = ()
    """(instance type, capacity type, on-demand USD per GPU-hour) of every Karpenter GPU pool member
    (config/data/prices.yaml). Default: none, no burst alarm."""
    unpriced_instance_types: Sequence[str] = ()
    """GPU instance types of the pools and groups without a price: the burst alarm cannot count them, so its
    description names them (the stack also warns at synth). Default: none."""
    burst_usd_per_hour: float | None = None
    """The burst-spend threshold. Default None: no burst alarm."""


class PlatformAlarms(Construct):
    """An SNS topic encrypted with its own KMS key (CloudWatch alarms and EventBridge may use it), e-mail
    subscriptions, and one alarm per failure mode, each notifying the topic.

    Attributes: ``topic``, ``key``, ``alarms`` (construct id -> ``cw.Alarm``), ``specs`` (construct id ->
    :class:`AlarmSpec`), ``hyperpod_events_rule``, ``alarm_arn_pattern`` (the alarm ARNs the topic policy lets
    CloudWatch publish for: ``arn:<partition>:cloudwatch:<region>:<account>:alarm:<prefix>-*``).

    :param prefix: resource prefix for names (``llmft-dev``). Required.
    :param resources: the watched resources (:class:`AlarmedResources`). Required.
    :param thresholds: ``config.observability.thresholds``. Required.
    :param gpus: reserved and burst GPU capacity (:class:`GpuAlarmProps`). Default: ``GpuAlarmProps()``, no
        reserved-GPU and no burst-spend alarms.
    :param emails: subscribed addresses. Default: none.
    :param cluster_queues: Kueue ClusterQueue names (one pending-too-long and one PodsReadyTimeout alarm each).
        Default: none.
    :param pipeline_namespaces: team namespaces whose Argo Workflows are watched (``pipelines.enabled``): one
        FailedPipelines alarm each. Default: none.
    :param serving_namespaces: team namespaces whose served models are watched: one ServingQueueBacklog and one
        ServingAbortedRequests alarm each (:meth:`_serving_alarms`). Default: none.
    :param training_namespaces: team namespaces whose training pods' hang watchdog is counted: one metric filter on
        ``application_log_group`` and one TrainingHangs alarm each (:meth:`_hang_alarm`). Default: none.
    :param application_log_group: the cluster's Container Insights application log group, which the hang metric
        filters read. Required with ``training_namespaces``. Default: None.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        prefix: str,
        resources: AlarmedResources,
        thresholds: AlarmThresholds,
        gpus: GpuAlarmProps | None = None,
        emails: Sequence[str] = (),
        cluster_queues: Sequence[str] = (),
        pipeline_namespaces: Sequence[str] = (),
        serving_namespaces: Sequence[str] = (),
        training_namespaces: Sequence[str] = (),
        application_log_group: logs.ILogGroup | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        if training_namespaces and application_log_group is None:
            raise ValueError("training_namespaces need application_log_group: the hang metric filters read it")
        r, g, t = resources, gpus or GpuAlarmProps(), thresholds
        self._prefix = prefix
        self._topic_and_key(prefix, emails)
        self.alarms: dict[str, cw.Alarm] = {}
        self.specs: dict[str, AlarmSpec] = {}
        self._action = cw_actions.SnsAction(self.topic)
        # the creation order below is the synthesized order of the alarms: keep it
        self._fsx_alarm(r.file_system_id, r.file_system_capacity_gib, t)
        self._mlflow_alarms(r.load_balancer_full_name, r.target_group_full_name, t)
        self._aurora_alarm(r.database_cluster_identifier, t)
        self._hyperpod_event_alarm(prefix, r.hyperpod_cluster_arn, t)
        if g.reserved_gpus > 0:
            self._reserved_gpu_alarms(r.cluster_name, g.hyperpod_gpu_instance_types, g.reserved_gpus, t)
        self._kueue_alarms(r.cluster_name, cluster_queues, t)
        self._pipeline_alarms(r.cluster_name, pipeline_namespaces, t)
        for ns in serving_namespaces:
            self._serving_alarms(r.cluster_name, ns, t)
        for ns in training_namespaces:
            self._hang_alarm(r.cluster_name, application_log_group, ns, t)
        if g.burst_usd_per_hour is not None and g.burst_prices:
            self._burst_alarm(r.cluster_name, g.burst_prices, g.unpriced_instance_types, g.burst_usd_per_hour)
        self._karpenter_alarms(r.cluster_name, r.spot_interruption_rule_name, t)

    def _topic_and_key(self, prefix: str, emails: Sequence[str]) -> None:
        """``key``, ``topic`` (with its policy for this environment's alarms), ``alarm_arn_pattern`` and the e-mail
        subscriptions."""
        self.key = kms.Key(
            self,
            "TopicKey",
            alias=f"alias/{prefix}-alarms",
            enable_key_rotation=True,
            description=f"{prefix}: alarm topic (SNS)",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        # CloudWatch alarms and EventBridge publish to an encrypted topic only if the key lets them (SNS Developer
        # Guide, "Enable compatibility between event sources from AWS services and encrypted topics").
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AlarmAndEventPublishers",
                principals=[
                    iam.ServicePrincipal("cloudwatch.amazonaws.com"),
                    iam.ServicePrincipal("events.amazonaws.com"),
                ],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
            )
        )
        self.topic = sns.Topic(
            self,
            "Topic",
            topic_name=f"{prefix}-alarms",
            display_name=f"{prefix} platform alarms",
            master_key=self.key,
            enforce_ssl=True,
        )
        # enforce_ssl (and the EventBridge target below, through grant_publish) give the topic an
        # AWS::SNS::TopicPolicy, and a topic policy *replaces* the default one that lets same-account CloudWatch
        # alarms publish (aws-cdk-lib 2.275.0 aws-sns/lib/topic-base.js createTopicPolicy/addSSLPolicy; symptom and
        # fix: AWS Knowledge Center "cloudwatch-receive-sns-for-alarm-trigger", "...:alarm:X is not authorized to
        # perform: SNS:Publish"; aws-solutions/automated-security-response-on-aws#43, fixed by #44). So CloudWatch
        # may publish, but only for this account's alarms named like this environment's (ArnLike aws:SourceArn,
        # StringEquals aws:SourceAccount: the confused-deputy keys of the SNS Developer Guide's access-policy
        # examples). tests/test_alarm_delivery.py evaluates the synthesized statements for every alarm.
        self.alarm_arn_pattern = Stack.of(self).format_arn(
            service="cloudwatch",
            resource="alarm",
            resource_name=f"{prefix}-*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsOfThisEnvironment",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={
                    "StringEquals": {"aws:SourceAccount": Stack.of(self).account},
                    "ArnLike": {"aws:SourceArn": self.alarm_arn_pattern},
                },
            )
        )
        for address in emails:
            self.topic.add_subscription(subscriptions.EmailSubscription(address))

    def _add(
        self,
        construct_id: str,
        metric_: cw.IMetric,
        threshold: float,
        comparison: cw.ComparisonOperator,
        description: str,
        field: str,
        metric_name: str,
        *,
        periods: int = 1,
        missing: cw.TreatMissingData = cw.TreatMissingData.NOT_BREACHING,
        spec_id: str | None = None,
    ) -> None:
        """One alarm ``<prefix>-<construct_id>`` notifying the topic, recorded in ``alarms`` and ``specs``
        (``spec_id``: the spec's id where ``construct_id`` carries a per-queue or per-namespace suffix)."""
        alarm = cw.Alarm(
            self,
            construct_id,
            metric=metric_,
            threshold=threshold,
            comparison_operator=comparison,
            evaluation_periods=periods,
            datapoints_to_alarm=periods,
            treat_missing_data=missing,
            alarm_name=f"{self._prefix}-{construct_id}",
            alarm_description=description,
        )
        alarm.add_alarm_action(self._action)
        self.alarms[construct_id] = alarm
        self.specs[construct_id] = AlarmSpec(spec_id or construct_id, metric_name, field)

    def _fsx_alarm(self, file_system_id: str, file_system_capacity_gib: int, t: AlarmThresholds) -> None:
        """FSx free capacity low: the file system's total free bytes. FreeDataStorageCapacity has one data point per
        storage target (OST) and minute; Minimum is the fullest target's free space (right only while there is one
        target), Sum adds every target's points (FSx for Lustre User Guide, "Amazon FSx for Lustre metrics and
        dimensions", fs-metrics.html), so Sum x 60 s / PERIOD is the total per minute, averaged over the period."""
        free_bytes = t.fsx_free_capacity_percent / 100 * file_system_capacity_gib * 2**30
        self._add(
            "FsxFreeCapacityLow",
            fsx_free_bytes(file_system_id, Duration.minutes(5)),
            round(free_bytes),
            cw.ComparisonOperator.LESS_THAN_THRESHOLD,
            f"FSx for Lustre free capacity under {t.fsx_free_capacity_percent:g} % of {file_system_capacity_gib} GiB",
            "fsx_free_capacity_percent",
            "AWS/FSx FreeDataStorageCapacity",
        )

    def _mlflow_alarms(self, load_balancer_full_name: str, target_group_full_name: str, t: AlarmThresholds) -> None:
        """MLflow: unhealthy targets, 5xx (load balancer + tasks)."""
        self._add(
            "MlflowUnhealthyTargets",
            metric(
                "AWS/ApplicationELB",
                "UnHealthyHostCount",
                {"LoadBalancer": load_balancer_full_name, "TargetGroup": target_group_full_name},
                statistic="Maximum",
                period=Duration.minutes(1),
            ),
            t.mlflow_unhealthy_targets,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            "MLflow tasks failing the load balancer health check for 5 minutes",
            "mlflow_unhealthy_targets",
            "AWS/ApplicationELB UnHealthyHostCount",
            periods=5,
        )
        lb = {"LoadBalancer": load_balancer_full_name}
        self._add(
            "Mlflow5xx",
            cw.MathExpression(
                expression="FILL(elb, 0) + FILL(target, 0)",
                label="MLflow 5xx",
                period=Duration.minutes(5),
                using_metrics={
                    "elb": metric("AWS/ApplicationELB", "HTTPCode_ELB_5XX_Count", lb, statistic="Sum"),
                    "target": metric("AWS/ApplicationELB", "HTTPCode_Target_5XX_Count", lb, statistic="Sum"),
                },
            ),
            t.mlflow_5xx_per_5_minutes,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            "MLflow answered HTTP 5xx (load balancer + tasks) in 5 minutes",
            "mlflow_5xx_per_5_minutes",
            "AWS/ApplicationELB HTTPCode_ELB_5XX_Count + HTTPCode_Target_5XX_Count",
        )

    def _aurora_alarm(self, database_cluster_identifier: str, t: AlarmThresholds) -> None:
        """MLflow's Aurora at max ACU."""
        self._add(
            "AuroraAtMaxAcu",
            metric("AWS/RDS", "ACUUtilization", {"DBClusterIdentifier": database_cluster_identifier}),
            t.aurora_acu_percent,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            "MLflow's Aurora Serverless v2 runs at its ACU ceiling (mlflow.database.max_capacity_acu)",
            "aurora_acu_percent",
            "AWS/RDS ACUUtilization",
            periods=3,
        )

    def _hyperpod_event_alarm(self, prefix: str, hyperpod_cluster_arn: str, t: AlarmThresholds) -> None:
        """HyperPod node replaced or unhealthy: ``hyperpod_events_rule`` sends the cluster's instance Warning/Error
        events to the topic as they come, and the alarm counts them (the rule's MatchedEvents)."""
        self.hyperpod_events_rule = events.Rule(
            self,
            "HyperPodNodeEventsRule",
            description=f"{prefix}: HyperPod instance Warning/Error events",
            event_pattern=events.EventPattern(
                source=["aws.sagemaker"],
                detail_type=[HYPERPOD_EVENT_DETAIL_TYPE],
                resources=[hyperpod_cluster_arn],
                detail={"EventDetails": {"ResourceType": ["Instance"], "EventLevel": ["Warning", "Error"]}},
            ),
        )
        self.hyperpod_events_rule.add_target(targets.SnsTopic(self.topic))
        self._add(
            "HyperPodNodeEvents",
            metric(
                "AWS/Events",
                "MatchedEvents",
                {"RuleName": self.hyperpod_events_rule.rule_name},
                statistic="Sum",
                period=Duration.hours(1),
            ),
            t.hyperpod_node_events_per_hour,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            "HyperPod replaced, rebooted or failed a node (instance Warning/Error cluster events)",
            "hyperpod_node_events_per_hour",
            "AWS/Events MatchedEvents (HyperPod instance events rule)",
        )

    def _reserved_gpu_alarms(
        self, cluster_name: str, hyperpod_gpu_instance_types: Sequence[str], reserved_gpus: int, t: AlarmThresholds
    ) -> None:
        """GPUs idle on reserved capacity: HyperPod GPUs no pod requests, every hour for N hours. An hour without
        any GPU request has no requests series; the expression counts it as 0 requested as long as the allocatable
        series exists (cdk_constructs/observability/gpu_capacity.py), so missing data means no GPU metrics at all -
        not breaching here (a scraper outage or HyperPod nodes still joining is not an idle reservation) and watched
        by HyperPodGpuMetricsMissing instead."""
        self._add(
            "ReservedGpusIdle",
            hyperpod_idle_gpus(cluster_name, hyperpod_gpu_instance_types, reserved_gpus, Duration.hours(1)),
            t.reserved_idle_gpus,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            f"At least {t.reserved_idle_gpus} of the {reserved_gpus} HyperPod GPUs requested by no pod for "
            f"{t.reserved_idle_hours} h: the reservation is paid for nothing",
            "reserved_idle_gpus",
            "ContainerInsights/Prometheus karpenter_nodes_total_pod_requests / karpenter_nodes_allocatable "
            "(HyperPod instance types)",
            periods=t.reserved_idle_hours,
        )
        self._add(
            "HyperPodGpuMetricsMissing",
            hyperpod_gpu_samples(cluster_name, hyperpod_gpu_instance_types, Duration.hours(1)),
            1,
            cw.ComparisonOperator.LESS_THAN_THRESHOLD,
            f"No HyperPod GPU metrics for {t.gpu_metrics_missing_hours} h: the Prometheus scraper or Karpenter "
            f"is down, or no HyperPod GPU node has joined (ReservedGpusIdle is blind meanwhile)",
            "gpu_metrics_missing_hours",
            "ContainerInsights/Prometheus karpenter_nodes_allocatable (HyperPod instance types), samples",
            periods=t.gpu_metrics_missing_hours,
            missing=cw.TreatMissingData.BREACHING,
        )

    def _kueue_alarms(self, cluster_name: str, cluster_queues: Sequence[str], t: AlarmThresholds) -> None:
        """Kueue, per ClusterQueue: workloads pending for the whole window (no capacity, quota exhausted), and
        workloads evicted because their pods were not all ready by waitForPodsReady.timeout. Kueue sets both pending
        gauges (active, inadmissible) for every ClusterQueue, 0 included, so no data = no scrape."""
        pending_periods = max(1, -(-t.pending_minutes // 5))
        for cq in cluster_queues:
            queue = {"ClusterName": cluster_name, "ClusterQueue": cq}
            self._add(
                f"JobsPendingTooLong-{cq}",
                cw.MathExpression(
                    expression="active + inadmissible",
                    label=f"{cq}: fewest workloads pending",
                    period=Duration.minutes(5),
                    using_metrics={
                        s: metric(
                            PROMETHEUS,
                            "kueue_pending_workloads",
                            {**queue, "Status": s},
                            statistic="Minimum",
                            period=Duration.minutes(5),
                        )
                        for s in ("active", "inadmissible")
                    },
                ),
                1,
                cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                f"ClusterQueue {cq} has had a workload pending for {pending_periods * 5} minutes",
                "pending_minutes",
                "ContainerInsights/Prometheus kueue_pending_workloads (active + inadmissible, minimum per 5 minutes)",
                periods=pending_periods,
                spec_id="JobsPendingTooLong",
            )
            self._add(
                f"PodsReadyTimeoutEvictions-{cq}",
                metric(
                    PROMETHEUS,
                    "kueue_evicted_workloads_total",
                    {**queue, "Reason": "PodsReadyTimeout"},
                    statistic="Sum",
                    period=Duration.hours(1),
                ),
                t.pods_ready_timeout_evictions_per_hour,
                cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                f"Kueue evicted workloads of ClusterQueue {cq} whose pods were not all ready in time "
                f"(waitForPodsReady)",
                "pods_ready_timeout_evictions_per_hour",
                "ContainerInsights/Prometheus kueue_evicted_workloads_total{Reason=PodsReadyTimeout} (sum, 1 h)",
                spec_id="PodsReadyTimeoutEvictions",
            )

    def _pipeline_alarms(self, cluster_name: str, pipeline_namespaces: Sequence[str], t: AlarmThresholds) -> None:
        """Pipelines, per team namespace: Argo Workflows that ended Failed or Error in an hour.
        argo_workflows_total_count counts workflows entering each phase; the agent publishes per-scrape deltas, so
        the Sum over the hour is the number that entered the phase then. No failure: no data point (the series of a
        phase exists only once a workflow entered it), not breaching."""
        for ns in pipeline_namespaces:
            self._add(
                f"FailedPipelines-{ns}",
                cw.MathExpression(
                    expression="FILL(failed, 0) + FILL(error, 0)",
                    label=f"{ns}: workflows Failed or Error",
                    period=Duration.hours(1),
                    using_metrics={
                        phase.lower(): metric(
                            PROMETHEUS,
                            "argo_workflows_total_count",
                            {"ClusterName": cluster_name, "Namespace": ns, "Phase": phase},
                            statistic="Sum",
                            period=Duration.hours(1),
                        )
                        for phase in ("Failed", "Error")
                    },
                ),
                t.failed_pipelines_per_hour,
                cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                f"Argo Workflows of team namespace {ns} ended Failed or Error",
                "failed_pipelines_per_hour",
                "ContainerInsights/Prometheus argo_workflows_total_count{Phase=Failed|Error} (sum, 1 h)",
                spec_id="FailedPipelines",
            )

    def _hang_alarm(self, cluster_name: str, log_group: logs.ILogGroup, ns: str, t: AlarmThresholds) -> None:
        """Training hangs of team namespace ``ns``: the metric filter counting its hung ranks' lines
        (cdk_constructs/observability/training_hangs.py) and an alarm on their sum over an hour. No hang: no data
        point, not breaching."""
        hang_metric_filter(
            self, f"TrainingHangsFilter-{ns}", log_group=log_group, cluster_name=cluster_name, namespace=ns
        )
        self._add(
            f"TrainingHangs-{ns}",
            metric(
                job_logs_namespace(cluster_name),
                TRAINING_HANGS,
                {"Namespace": ns},
                statistic="Sum",
                period=Duration.hours(1),
            ),
            t.training_hangs_per_hour,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            f"Training pods of team namespace {ns} stopped making progress: the hang watchdog printed their stacks "
            f"and exited 142 (restarted from the last checkpoint)",
            "training_hangs_per_hour",
            f"{job_logs_namespace('<cluster>')} {TRAINING_HANGS} (application log metric filter, sum, 1 h)",
            spec_id="TrainingHangs",
        )

    def _burst_alarm(
        self,
        cluster_name: str,
        burst_prices: Sequence[tuple[str, str, float]],
        unpriced_instance_types: Sequence[str],
        burst_usd_per_hour: float,
    ) -> None:
        """Burst spend: running Karpenter GPUs per instance type and capacity type x that type's on-demand price per
        GPU. No Karpenter GPU node: no data, not breaching. Instance types without a price are not in the sum: the
        description says so (never a silent under-count)."""
        blind = (
            f"; does NOT count {', '.join(unpriced_instance_types)} (no price in config/data/prices.yaml)"
            if unpriced_instance_types
            else ""
        )
        self._add(
            "BurstSpendOverBudget",
            burst_usd_per_hour_metric(cluster_name, burst_prices, Duration.minutes(15)),
            burst_usd_per_hour,
            cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            f"Karpenter GPU nodes cost more than ${burst_usd_per_hour:g}/hour{blind}",
            "burst_usd_per_hour",
            "ContainerInsights/Prometheus karpenter_nodes_allocatable per instance and capacity type x price "
            "per GPU (config/data/prices.yaml)",
            periods=2,
        )

    def _karpenter_alarms(self, cluster_name: str, spot_interruption_rule_name: str, t: AlarmThresholds) -> None:
        """Karpenter controller errors, spot interruption rate (Karpenter's interruption rule's MatchedEvents)."""
        self._add(
            "KarpenterErrors",
            metric(
                PROMETHEUS,
                "controller_runtime_reconcile_errors_total",
                {"ClusterName": cluster_name},
                statistic="Sum",
                period=Duration.minutes(15),
            ),
            t.karpenter_errors_per_15_minutes,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            "Karpenter controllers failed reconciles (controller_runtime_reconcile_errors_total)",
            "karpenter_errors_per_15_minutes",
            "ContainerInsights/Prometheus controller_runtime_reconcile_errors_total",
        )
        self._add(
            "SpotInterruptions",
            metric(
                "AWS/Events",
                "MatchedEvents",
                {"RuleName": spot_interruption_rule_name},
                statistic="Sum",
                period=Duration.hours(1),
            ),
            t.spot_interruptions_per_hour,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            "EC2 Spot interruption warnings in an hour (Karpenter's interruption rule)",
            "spot_interruptions_per_hour",
            "AWS/Events MatchedEvents (Karpenter SpotInterruption rule)",
        )

    def _serving_alarms(self, cluster_name: str, ns: str, t: AlarmThresholds) -> None:
        """Served models of team namespace ``ns`` (k8s_charts/serving.py), on the per-namespace dimension set
        ``NAMESPACE_DIMENSIONS`` (alarms cannot read SEARCH; serve names are unknown at synth time).

        - ServingQueueBacklog: requests waiting in the engines' queues, the namespace's total averaged over each 5
          minutes (``sglang:num_queue_reqs`` Sum x scrape interval / PERIOD: one sample per engine and scrape), at or
          above the threshold in every period of the window. The latency signal: SGLang's latency histograms never
          reach CloudWatch (the agent drops histograms), the queue is the part of the latency capacity decides.
        - ServingAbortedRequests: ``sglang:num_aborted_requests_total`` (per-scrape deltas) summed over 15 minutes.

        No endpoint running: no data, not breaching (an endpoint asleep at 0 replicas is no incident)."""
        dims = dict(zip(serving.NAMESPACE_DIMENSIONS, (cluster_name, ns), strict=True))
        periods = max(1, -(-t.serving_queue_minutes // 5))
        queued = metric(PROMETHEUS, serving.DEMAND_METRICS[1], dims, statistic="Sum", period=Duration.minutes(5))
        self._add(
            f"ServingQueueBacklog-{ns}",
            cw.MathExpression(
                expression=f"queued * {SCRAPE_INTERVAL_SECONDS} / PERIOD(queued)",
                label=f"{ns}: requests queued in served models (average)",
                period=Duration.minutes(5),
                using_metrics={"queued": queued},
            ),
            t.serving_queued_requests,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            f"Served models of team namespace {ns} have kept requests waiting for {periods * 5} minutes: at "
            f"max_replicas, or the team's quota admits no more replicas",
            "serving_queued_requests",
            f"ContainerInsights/Prometheus {serving.DEMAND_METRICS[1]} (team namespace, average per 5 minutes)",
            periods=periods,
            spec_id="ServingQueueBacklog",
        )
        self._add(
            f"ServingAbortedRequests-{ns}",
            metric(PROMETHEUS, serving.ABORTED_REQUESTS_METRIC, dims, statistic="Sum", period=Duration.minutes(15)),
            t.serving_aborted_requests_per_15_minutes,
            cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            f"Served models of team namespace {ns} aborted requests (clients gave up or cancelled, timeouts)",
            "serving_aborted_requests_per_15_minutes",
            f"ContainerInsights/Prometheus {serving.ABORTED_REQUESTS_METRIC} (team namespace, sum, 15 min)",
            spec_id="ServingAbortedRequests",
        )
