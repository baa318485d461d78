"""Multi-account delivery (config/accounts.py): the names the automation, logging and workload accounts agree on.

The stacks of different accounts cannot reference each other (CloudFormation resolves references inside one account
and region only), so every cross-account resource has a physical name derived here from the configuration, and
both sides compute it. docs/deploying.md "Multi-account delivery" describes the accounts and the first run.
"""

from __future__ import annotations

from config.accounts import OrganizationConfig

ALARM_BUS = "llmft-platform-alarms"
"""EventBridge bus in the logging account that receives every environment's alarm state changes."""
ARCHIVE_CLOUDTRAIL_PREFIX = "cloudtrail"
ARCHIVE_FLOW_LOGS_PREFIX = "vpc-flow-logs"
TRAIL_NAME = "llmft-platform-trail"
IMAGES_ROLE = "llmft-delivery-images"
"""Role of the pipeline's image-build steps (automation account); each workload account's images role trusts it."""
PREDEPLOY_ROLE = "llmft-delivery-predeploy"
"""Role of the pipeline's pre-deploy check steps (automation account); assumes the CDK lookup role (read only)."""
WORKLOAD_IMAGES_ROLE = "llmft-{env}-delivery-images"
"""Role in a workload account that starts that environment's image builds; trusted by :data:`IMAGES_ROLE` only."""
OAM_RESOURCE_TYPES = ("AWS::CloudWatch::Metric", "AWS::Logs::LogGroup")
"""What every workload account shares with the logging account (CloudWatch cross-account observability): what the
platform emits. No ``AWS::XRay::Trace``: nothing of the platform sends traces, and a link sharing them needs
``xray:Link`` (registry schema of ``AWS::Oam::Link``, handlers.create.permissions)."""
CDK_QUALIFIER = "hnb659fds"
"""The CDK bootstrap's default qualifier: the bootstrap roles are ``cdk-<qualifier>-<kind>-role-<account>-<region>``."""


def archive_bucket_name(org: OrganizationConfig) -> str:
    return f"llmft-log-archive-{org.logging.account}-{org.logging.region}"


def partition_of(region: str) -> str:
    return "aws-cn" if region.startswith("cn-") else "aws-us-gov" if region.startswith("us-gov-") else "aws"


def archive_bucket_arn(org: OrganizationConfig) -> str:
    return f"arn:{partition_of(org.logging.region)}:s3:::{archive_bucket_name(org)}"


def archive_key_alias_arn(org: OrganizationConfig) -> str:
    lg = org.logging
    return f"arn:{partition_of(lg.region)}:kms:{lg.region}:{lg.account}:{lg.archive.kms_key_alias}"


def alarm_bus_arn(org: OrganizationConfig) -> str:
    lg = org.logging
    return f"arn:{partition_of(lg.region)}:events:{lg.region}:{lg.account}:event-bus/{ALARM_BUS}"


def bootstrap_role_arn(kind: str, account: str, region: str) -> str:
    """ARN of a CDK bootstrap role (``deploy``, ``lookup``, ``file-publishing``, ``image-publishing``,
    ``cfn-exec``) of ``account``/``region`` (the bootstrap template's default names)."""
    return f"arn:{partition_of(region)}:iam::{account}:role/cdk-{CDK_QUALIFIER}-{kind}-role-{account}-{region}"


PERMISSIONS_BOUNDARY = "llmft-platform-boundary"
"""Managed policy (created with the bootstrap, tools/execution_policy.py --boundary) that every IAM role of the
pipeline's stacks carries as its permissions boundary; the execution policy allows role writes only with it."""
EXECUTION_POLICY = "LlmftCdkExecution"
"""Name prefix of the execution policies given to ``cdk bootstrap --cloudformation-execution-policies``
(``LlmftCdkExecution-1`` ...: tools/execution_policy.py writes one document per managed policy); the default of
``cloudformation_execution_policy`` in config/organization/accounts.yaml."""
