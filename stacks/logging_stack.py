"""`Delivery-Logging`: the central logging account's half of multi-account delivery (config/accounts.py).

- **CloudWatch cross-account observability sink** (``AWS::Oam::Sink``). Its policy lets exactly the workload accounts
  of the pipeline's waves create or update a link, and only for ``OAM_RESOURCE_TYPES`` (metrics and log groups): the
  policy form of the CloudWatch User Guide, "Link monitoring accounts with source accounts" (principal the source
  accounts, actions ``oam:CreateLink``/``oam:UpdateLink``, condition ``ForAllValues:StringEquals`` on
  ``oam:ResourceTypes``), see also the CloudFormation reference of ``AWS::Oam::Sink`` (``Policy``) and
  ``AWS::Oam::Link`` (``ResourceTypes``: ``AWS::CloudWatch::Metric``, ``AWS::Logs::LogGroup``, ``AWS::XRay::Trace``,
  ...).
- **One cross-environment dashboard** (``llmft-organization``): in a monitoring account a metric may name the source
  account it comes from (``accountId`` in the dashboard body, ``account`` of ``cw.Metric``), so one dashboard shows
  every environment's cluster and GPUs.
- **One place for alarms**: every environment forwards its alarms' state changes (EventBridge, ``CloudWatch Alarm
  State Change``) to the event bus :data:`ALARM_BUS` here, whose policy admits exactly the workload accounts; a rule
  sends them to one encrypted SNS topic.
- **Log archive bucket**: CloudTrail and the VPC flow logs of the workload accounts, SSE-KMS with a customer-managed
  key, object lock and expiry from ``logging.archive``. The bucket and key policies admit CloudTrail and the log
  delivery service only for the workload accounts (``aws:SourceAccount``/``aws:SourceArn``), as the CloudTrail User
  Guide ("Amazon S3 bucket policy for CloudTrail", "Configure AWS KMS key policies for CloudTrail") and the VPC User
  Guide ("Flow logs: Amazon S3 bucket permissions", SSE-KMS key policy) describe.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import (
    Duration,
    RemovalPolicy,
)
from aws_cdk import (
    aws_cloudwatch as cw,
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
    aws_oam as oam,
)
from aws_cdk import (
    aws_s3 as s3,
)
from aws_cdk import (
    aws_sns as sns,
)
from aws_cdk import (
    aws_sns_subscriptions as subscriptions,
)
from constructs import Construct

from cdk_constructs.delivery import (
    ALARM_BUS,
    ARCHIVE_CLOUDTRAIL_PREFIX,
    ARCHIVE_FLOW_LOGS_PREFIX,
    OAM_RESOURCE_TYPES,
    TRAIL_NAME,
    archive_bucket_name,
    bootstrap_role_arn,
)
from cdk_constructs.observability.documented_metrics import CONTAINER_INSIGHTS, metric, search_expression
from config import EnvironmentConfig
from config.accounts import LoggingAccountConfig, OrganizationConfig

_NODE_GPU = ["ClusterName", "GpuDevice", "InstanceId", "InstanceType", "NodeName"]


def sink_policy(workload_accounts: list[str]) -> dict[str, Any]:
    """The OAM sink policy: exactly ``workload_accounts`` may link, sharing only :data:`OAM_RESOURCE_TYPES`."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": sorted(workload_accounts)},
                "Action": ["oam:CreateLink", "oam:UpdateLink"],
                "Resource": "*",
                "Condition": {"ForAllValues:StringEquals": {"oam:ResourceTypes": list(OAM_RESOURCE_TYPES)}},
            }
        ],
    }


class LoggingStack(cdk.Stack):
    """The logging account's stack. Attributes: ``sink``, ``bus``, ``topic``, ``archive``, ``dashboard``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        organization: OrganizationConfig,
        environments: Mapping[str, EnvironmentConfig],
        **kwargs: Any,
    ) -> None:
        lg = organization.logging
        super().__init__(
            scope,
            construct_id,
            stack_name=construct_id,
            env=cdk.Environment(account=lg.account, region=lg.region),
            description="Central logging: OAM sink, cross-environment dashboard, alarm topic, log archive",
            termination_protection=True,
            **kwargs,
        )
        envs = [environments[n] for n in organization.environment_names]
        accounts = sorted({e.account for e in envs})

        # ---- cross-account observability -----------------------------------------------------------------------
        self._add_sink(accounts)
        # ---- alarms of every environment, one topic -------------------------------------------------------------
        self._add_alarm_routing(lg, accounts=accounts)
        # ---- log archive ---------------------------------------------------------------------------------------
        self._add_log_archive(organization, accounts=accounts)
        # ---- one dashboard across environments ------------------------------------------------------------------
        self._add_dashboard(envs)

    def _add_sink(self, accounts: list[str]) -> None:
        """Add the OAM sink the workload accounts link to, and output its ARN."""
        self.sink = oam.CfnSink(self, "Sink", name="llmft-platform", policy=sink_policy(accounts))
        cdk.CfnOutput(
            self,
            "SinkArn",
            value=self.sink.attr_arn,
            description="Set logging.sink_arn in config/organization/accounts.yaml to this value",
        )

    def _add_alarm_routing(self, lg: LoggingAccountConfig, *, accounts: list[str]) -> None:
        """Route every environment's alarm state changes through the central bus to one encrypted topic."""
        topic_key = kms.Key(
            self,
            "AlarmTopicKey",
            alias="alias/llmft-organization-alarms",
            enable_key_rotation=True,
            description="llmft: central alarm topic (SNS)",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        # EventBridge publishes to an encrypted topic only if the key lets it (SNS Developer Guide, "Enable
        # compatibility between event sources from AWS services and encrypted topics").
        topic_key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("events.amazonaws.com")],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
                conditions={"StringEquals": {"aws:SourceAccount": self.account}},
            )
        )
        self.topic = sns.Topic(
            self,
            "AlarmTopic",
            topic_name="llmft-organization-alarms",
            display_name="llmft platform alarms, every environment",
            master_key=topic_key,
            enforce_ssl=True,
        )
        for address in lg.alarm_emails:
            self.topic.add_subscription(subscriptions.EmailSubscription(address))
        self.bus = events.EventBus(self, "AlarmBus", event_bus_name=ALARM_BUS)
        # Exactly the workload accounts may put events on the bus (EventBridge User Guide, "Sending and receiving
        # events between AWS accounts": a resource-based policy on the receiving bus).
        events.CfnEventBusPolicy(
            self,
            "AlarmBusPolicy",
            event_bus_name=self.bus.event_bus_name,
            statement_id="WorkloadAccounts",
            statement={
                "Sid": "WorkloadAccounts",
                "Effect": "Allow",
                "Action": "events:PutEvents",
                "Principal": {"AWS": [f"arn:{self.partition}:iam::{a}:root" for a in accounts]},
                "Resource": self.bus.event_bus_arn,
            },
        )
        events.Rule(
            self,
            "AlarmStateChanges",
            event_bus=self.bus,
            rule_name="llmft-organization-alarms",
            description="Alarm state changes of every environment to the central topic",
            event_pattern=events.EventPattern(
                source=["aws.cloudwatch"], detail_type=["CloudWatch Alarm State Change"], account=accounts
            ),
            targets=[targets.SnsTopic(self.topic)],
        )

    def _add_log_archive(self, organization: OrganizationConfig, *, accounts: list[str]) -> None:
        """Add the log archive: its key, its access-log bucket and the archive bucket for CloudTrail and flow logs."""
        trail_arns = self._add_archive_key(organization, accounts=accounts)
        self._add_archive_buckets(organization)
        self._allow_log_delivery(trail_arns, accounts=accounts)
        cdk.CfnOutput(self, "ArchiveBucket", value=self.archive.bucket_name)

    def _add_archive_key(self, organization: OrganizationConfig, *, accounts: list[str]) -> list[str]:
        """Add the archive's KMS key for CloudTrail and flow logs of the accounts; returns their trails' ARNs."""
        archive = organization.logging.archive
        self.key = kms.Key(
            self,
            "ArchiveKey",
            alias=archive.kms_key_alias,
            enable_key_rotation=True,
            description="llmft: log archive (CloudTrail, VPC flow logs)",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        trail_arns = [f"arn:{self.partition}:cloudtrail:*:{a}:trail/{TRAIL_NAME}" for a in accounts]
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudTrailEncrypt",
                principals=[iam.ServicePrincipal("cloudtrail.amazonaws.com")],
                actions=["kms:GenerateDataKey*"],
                resources=["*"],
                conditions={
                    "StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": trail_arns},
                    "StringEquals": {"aws:SourceAccount": accounts},
                },
            )
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudTrailDescribe",
                principals=[iam.ServicePrincipal("cloudtrail.amazonaws.com")],
                actions=["kms:DescribeKey"],
                resources=["*"],
                conditions={"StringEquals": {"aws:SourceAccount": accounts}},
            )
        )
        # "If you use an existing S3 bucket with an S3 Bucket Key, kms:Decrypt permission is required to create or
        # update a trail with SSE-KMS encryption enabled" (CloudTrail User Guide, "Configure AWS KMS key policies for
        # CloudTrail"): the caller is the workload account's CloudFormation execution role (CDK bootstrap).
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="TrailWritersDecrypt",
                principals=[iam.AccountPrincipal(a) for a in accounts],
                actions=["kms:Decrypt"],
                resources=["*"],
                conditions={
                    "ArnEquals": {
                        "aws:PrincipalArn": [bootstrap_role_arn("cfn-exec", a, self.region) for a in accounts]
                    }
                },
            )
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="FlowLogsEncrypt",
                principals=[iam.ServicePrincipal("delivery.logs.amazonaws.com")],
                actions=["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
                resources=["*"],
                conditions={"StringEquals": {"aws:SourceAccount": accounts}},
            )
        )
        return trail_arns

    def _add_archive_buckets(self, organization: OrganizationConfig) -> None:
        """Add the archive's access-log bucket and the (optionally object-locked) archive bucket."""
        archive = organization.logging.archive
        access_logs = s3.Bucket(
            self,
            "ArchiveAccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(archive.retention_days))],
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        lock = None
        if archive.object_lock_mode == "GOVERNANCE":
            lock = s3.ObjectLockRetention.governance(Duration.days(archive.object_lock_days))
        elif archive.object_lock_mode == "COMPLIANCE":
            lock = s3.ObjectLockRetention.compliance(Duration.days(archive.object_lock_days))
        self.archive = s3.Bucket(
            self,
            "Archive",
            bucket_name=archive_bucket_name(organization),
            encryption_key=self.key,
            encryption=s3.BucketEncryption.KMS,
            bucket_key_enabled=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            object_lock_enabled=archive.object_lock_mode is not None,
            object_lock_default_retention=lock,
            server_access_logs_bucket=access_logs,
            server_access_logs_prefix="archive/",
            lifecycle_rules=[
                s3.LifecycleRule(
                    expiration=Duration.days(archive.retention_days), noncurrent_version_expiration=Duration.days(1)
                )
            ],
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )

    def _allow_log_delivery(self, trail_arns: list[str], *, accounts: list[str]) -> None:
        """Let CloudTrail and VPC flow logs of the workload accounts write to the archive bucket."""
        bucket_arn = self.archive.bucket_arn
        for sid, service, prefix, extra in (
            (
                "CloudTrail",
                "cloudtrail.amazonaws.com",
                ARCHIVE_CLOUDTRAIL_PREFIX,
                {"StringLike": {"aws:SourceArn": trail_arns}},
            ),
            (
                "FlowLogs",
                "delivery.logs.amazonaws.com",
                ARCHIVE_FLOW_LOGS_PREFIX,
                {"StringEquals": {"aws:SourceAccount": accounts}},
            ),
        ):
            principal = iam.ServicePrincipal(service)
            self.archive.add_to_resource_policy(
                iam.PolicyStatement(
                    sid=f"{sid}AclCheck",
                    principals=[principal],
                    actions=["s3:GetBucketAcl", "s3:ListBucket"],
                    resources=[bucket_arn],
                    conditions=extra,
                )
            )
            self.archive.add_to_resource_policy(
                iam.PolicyStatement(
                    sid=f"{sid}Write",
                    principals=[principal],
                    actions=["s3:PutObject"],
                    resources=[f"{bucket_arn}/{prefix}/AWSLogs/{a}/*" for a in accounts],
                    conditions={
                        **extra,
                        "StringEquals": {**extra.get("StringEquals", {}), "s3:x-amz-acl": "bucket-owner-full-control"},
                    },
                )
            )

    def _add_dashboard(self, envs: list[EnvironmentConfig]) -> None:
        """Add the dashboard of every environment's cluster nodes and GPU utilization."""
        self.dashboard = cw.Dashboard(
            self, "Dashboard", dashboard_name="llmft-organization", default_interval=Duration.hours(12)
        )
        self.dashboard.add_widgets(
            cw.TextWidget(
                width=24,
                height=2,
                markdown=(
                    "# Every environment\nMetrics come from the workload accounts through the CloudWatch cross-account "
                    "observability sink; each environment's full dashboard is `<prefix>-platform` in its account "
                    "(the console's account selector opens it from here)."
                ),
            )
        )
        for env in envs:
            cluster = {"ClusterName": env.cluster_name}
            nodes = [
                metric(CONTAINER_INSIGHTS, name, cluster, statistic="Maximum", label=f"{env.name} {label}").with_(
                    account=env.account, region=env.region
                )
                for name, label in (("cluster_node_count", "nodes"), ("cluster_failed_node_count", "failed"))
            ]
            gpus = cw.MathExpression(
                expression=search_expression(CONTAINER_INSIGHTS, "node_gpu_utilization", _NODE_GPU, cluster),
                label="",
                search_account=env.account,
                search_region=env.region,
                period=Duration.minutes(5),
            )
            self.dashboard.add_widgets(
                cw.GraphWidget(title=f"{env.name} ({env.account}): cluster nodes", left=nodes, width=12),
                cw.GraphWidget(
                    title=f"{env.name} ({env.account}): GPU utilization %",
                    left=[gpus],
                    width=12,
                    left_y_axis=cw.YAxisProps(min=0, max=100),
                ),
            )
