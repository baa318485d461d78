"""`<Env>-Delivery`: a workload account's half of multi-account delivery, built only when the pipeline deploys the
environment (``app.build(..., organization=...)``); ``cdk synth -c env=<name>`` never builds it.

- **OAM link** (``AWS::Oam::Link``) to the logging account's sink, sharing metrics and log groups (what the
  platform emits; it emits no X-Ray traces, and sharing them would need ``xray:Link`` for nothing: CloudWatch User
  Guide, "CloudWatch cross-account observability"; CloudFormation ``AWS::Oam::Link``). Created once
  ``logging.sink_arn`` is configured (the sink's ARN holds an ID only known after its first deploy).
- **CloudTrail** (multi-region, log file validation) into the log archive bucket of the logging account, encrypted
  with its key (the trail's ``KMSKeyId`` takes the key's alias ARN: CloudTrail API reference, ``CreateTrail``).
  The link and the trail are account-wide: where two environments share a workload account only the first of them
  in the waves (``account_wide=True``) creates them, so the fixed trail name and the one link per sink never
  collide.
- **VPC flow logs** of the platform VPC into the same archive (``LogDestinationType: s3``), next to the existing
  CloudWatch Logs flow log that the Network stack keeps for in-account queries.
- **Alarm forwarding**: an EventBridge rule sends this environment's alarm state changes to the central event bus.
- **Image-build role** (``llmft-<env>-delivery-images``): the pipeline's image step assumes it to start this
  environment's CodeBuild image projects and read their ECR repositories; it trusts only the automation account's
  image-step role (``aws:PrincipalArn``), and exists before the Storage stack's post step runs (Storage depends on
  this stack in the stage).
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from aws_cdk import (
    aws_cloudtrail as cloudtrail,
)
from aws_cdk import (
    aws_ec2 as ec2,
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
    aws_oam as oam,
)
from constructs import Construct

from cdk_constructs.delivery import (
    ARCHIVE_CLOUDTRAIL_PREFIX,
    ARCHIVE_FLOW_LOGS_PREFIX,
    IMAGES_ROLE,
    OAM_RESOURCE_TYPES,
    TRAIL_NAME,
    WORKLOAD_IMAGES_ROLE,
    alarm_bus_arn,
    archive_bucket_arn,
    archive_bucket_name,
    archive_key_alias_arn,
)
from config import EnvironmentConfig
from config.accounts import OrganizationConfig
from k8s_charts.images import IMAGE_NAMES, build_project_name, repository_name
from stacks._base import PlatformStack


class WorkloadDeliveryStack(PlatformStack):
    """Attributes: ``link`` (None until ``logging.sink_arn`` is set, or not ``account_wide``), ``trail`` (None if not
    ``account_wide``), ``flow_log``, ``alarm_rule``, ``images_role``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        organization: OrganizationConfig,
        vpc_id: str,
        account_wide: bool = True,
        **kwargs: Any,
    ) -> None:
        """:param account_wide: create the account's OAM link and trail (default True; False for an environment
        whose workload account an earlier environment of the waves already holds)."""
        config = kwargs.pop("config")
        super().__init__(
            scope,
            construct_id,
            config=config,
            description=f"{config.name}: OAM link, CloudTrail and flow logs to the log archive, alarm "
            f"forwarding, image-build role for the delivery pipeline",
            **kwargs,
        )
        self.link = self.trail = None
        if account_wide:
            self._add_link(organization)
            self._add_trail(organization)
        self._add_flow_log(organization, vpc_id)
        self._add_alarm_forwarding(config, organization)
        self._add_images_role(config, organization)

    def _add_link(self, organization: OrganizationConfig) -> None:
        """The OAM link to the logging account's sink, once its ARN is configured."""
        if organization.logging.sink_arn:
            self.link = oam.CfnLink(
                self,
                "Link",
                resource_types=list(OAM_RESOURCE_TYPES),
                sink_identifier=organization.logging.sink_arn,
                label_template="$AccountName",
            )

    def _add_trail(self, organization: OrganizationConfig) -> None:
        """The account's CloudTrail trail into the logging account's archive bucket."""
        self.trail = cloudtrail.CfnTrail(
            self,
            "Trail",
            trail_name=TRAIL_NAME,
            is_logging=True,
            is_multi_region_trail=True,
            include_global_service_events=True,
            enable_log_file_validation=True,
            s3_bucket_name=archive_bucket_name(organization),
            s3_key_prefix=ARCHIVE_CLOUDTRAIL_PREFIX,
            kms_key_id=archive_key_alias_arn(organization),
        )

    def _add_flow_log(self, organization: OrganizationConfig, vpc_id: str) -> None:
        """The environment's VPC flow log into the logging account's archive bucket."""
        self.flow_log = ec2.CfnFlowLog(
            self,
            "ArchiveFlowLog",
            resource_id=vpc_id,
            resource_type="VPC",
            traffic_type="ALL",
            log_destination_type="s3",
            log_destination=f"{archive_bucket_arn(organization)}/{ARCHIVE_FLOW_LOGS_PREFIX}/",
            max_aggregation_interval=600,
        )

    def _add_alarm_forwarding(self, config: EnvironmentConfig, organization: OrganizationConfig) -> None:
        """An EventBridge rule that forwards this environment's alarm state changes to the central bus."""
        bus = events.EventBus.from_event_bus_arn(self, "CentralAlarmBus", alarm_bus_arn(organization))
        forward_role = iam.Role(
            self,
            "AlarmForwardRole",
            assumed_by=iam.ServicePrincipal(
                "events.amazonaws.com", conditions={"StringEquals": {"aws:SourceAccount": self.account}}
            ),
            description="EventBridge: put this environment's alarm state changes on the central bus",
        )
        self.alarm_rule = events.Rule(
            self,
            "ForwardAlarms",
            description="Alarm state changes to the logging account's bus",
            event_pattern=events.EventPattern(
                source=["aws.cloudwatch"],
                detail_type=["CloudWatch Alarm State Change"],
                detail={"alarmName": events.Match.prefix(f"{config.resource_prefix}-")},
            ),
            targets=[targets.EventBus(bus, role=forward_role)],
        )

    def _add_images_role(self, config: EnvironmentConfig, organization: OrganizationConfig) -> None:
        """The role the pipeline's image step assumes to start this environment's image builds."""
        automation = organization.automation.account
        self.images_role = iam.Role(
            self,
            "ImagesRole",
            role_name=WORKLOAD_IMAGES_ROLE.format(env=config.name),
            description="The delivery pipeline's image step: start this environment's image builds",
            assumed_by=iam.AccountPrincipal(automation).with_conditions(
                {"ArnEquals": {"aws:PrincipalArn": f"arn:{self.partition}:iam::{automation}:role/{IMAGES_ROLE}"}}
            ),
            max_session_duration=cdk.Duration.hours(2),
        )
        projects = [
            self.format_arn(service="codebuild", resource="project", resource_name=build_project_name(config, n))
            for n in IMAGE_NAMES
        ]
        repositories = [
            self.format_arn(service="ecr", resource="repository", resource_name=repository_name(config, n))
            for n in IMAGE_NAMES
        ]
        self.images_role.add_to_policy(
            iam.PolicyStatement(
                actions=[
                    "codebuild:BatchGetProjects",
                    "codebuild:StartBuild",
                    "codebuild:BatchGetBuilds",
                    "codebuild:ListBuildsForProject",  # a retried step waits for the running build
                    "codebuild:StopBuild",  # a stuck build
                ],
                resources=projects,
            )
        )
        self.images_role.add_to_policy(iam.PolicyStatement(actions=["ecr:DescribeImages"], resources=repositories))
