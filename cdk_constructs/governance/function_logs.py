"""Lambda logs of aws-cdk-lib's own deploy-time handlers: the platform's retention and key instead of the library's
defaults (two years and CloudWatch Logs' service key) or, for handlers with no log group at all, a group Lambda would
create on first invocation that never expires.

Only the subtrees of those handlers are walked (every visited construct costs a call into the jsii kernel): the
stack-level singletons (BucketDeployment, default-security-group restriction) and each cluster's kubectl provider.
"""

from __future__ import annotations

from aws_cdk import CfnResource, RemovalPolicy, Stack
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import IConstruct

from cdk_constructs.governance.compliance import skip_checkov
from cdk_constructs.governance.log_retention import retention

_SINGLETONS = ("Custom::CDKBucketDeployment", "Custom::VpcRestrictDefaultSG")


def govern_handler_logs(
    stack: Stack,
    *clusters: IConstruct,
    retention_days: int,
    encryption_key: kms.IKey | None = None,
    no_key_reason: str = "",
) -> list[CfnResource]:
    """Give every Lambda function of aws-cdk-lib's handlers in ``stack`` (and of each cluster's kubectl provider) a
    log group with ``retention_days`` (a CloudWatch Logs value) and ``encryption_key``. Log groups the library
    already created are overridden; functions without one get a new group, wired through ``LoggingConfig.LogGroup``.
    Without a key, ``no_key_reason`` is recorded beside each group (checkov CKV_AWS_158). Returns the log groups
    (L1)."""
    roots = [c for c in stack.node.children if c.node.id.startswith(_SINGLETONS)]
    roots += [p for p in (c.node.try_find_child("KubectlProvider") for c in clusters) if p is not None]
    groups: list[CfnResource] = []
    for root in roots:
        nodes = [n for n in root.node.find_all() if isinstance(n, CfnResource)]
        existing = [n for n in nodes if n.cfn_resource_type == "AWS::Logs::LogGroup"]
        for group in existing:
            _govern(group, retention_days, encryption_key, no_key_reason)
            groups.append(group)
        if existing:
            continue
        for function in (n for n in nodes if n.cfn_resource_type == "AWS::Lambda::Function"):
            created = logs.LogGroup(
                root,
                f"{function.node.id}Logs",
                retention=retention(retention_days),
                encryption_key=encryption_key,
                removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            )
            function.add_property_override("LoggingConfig.LogGroup", created.log_group_name)
            cfn = created.node.default_child
            assert isinstance(cfn, CfnResource)
            if encryption_key is None:
                skip_checkov(cfn, "CKV_AWS_158", no_key_reason)
            groups.append(cfn)
    return groups


def _govern(group: CfnResource, days: int, key: kms.IKey | None, no_key_reason: str) -> None:
    retention(days)  # raises for a value CloudWatch Logs does not offer
    group.add_property_override("RetentionInDays", days)
    if key is not None:
        group.add_property_override("KmsKeyId", key.key_arn)
    elif no_key_reason:
        skip_checkov(group, "CKV_AWS_158", no_key_reason)
