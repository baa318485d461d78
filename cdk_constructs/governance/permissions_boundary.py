"""The platform's permissions boundary on every IAM role of a stack (delivery pipeline mode).

The pipeline deploys through the workload and logging accounts' CDK bootstrap roles, whose CloudFormation execution
policy (tools/execution_policy.py) lets a stack create or change a role only when the role carries the boundary
``llmft-platform-boundary`` (:data:`cdk_constructs.delivery.PERMISSIONS_BOUNDARY`, created with the bootstrap:
docs/deploying.md "Bootstrap"). aws-cdk-lib's ``PermissionsBoundary.of(scope).apply(policy)`` is an aspect that sets
``PermissionsBoundary`` on every ``AWS::IAM::Role`` under the scope, the raw ``CfnResource`` roles of custom resource
providers included (aws-cdk-lib ``aws_iam.PermissionsBoundary``). ``make deploy`` from a laptop applies none: its
account need not hold the boundary policy.
"""

from __future__ import annotations

from collections.abc import Iterable

from aws_cdk import Stack
from aws_cdk import aws_iam as iam

from cdk_constructs.delivery import PERMISSIONS_BOUNDARY, partition_of


def boundary_arn(account: str, region: str) -> str:
    """The boundary policy's ARN in ``account`` (a literal: the execution policy's condition compares it)."""
    return f"arn:{partition_of(region)}:iam::{account}:policy/{PERMISSIONS_BOUNDARY}"


def apply_platform_boundary(stacks: Iterable[Stack], *, account: str, region: str) -> None:
    """Give every IAM role of ``stacks`` (all in ``account``/``region``) the platform's permissions boundary."""
    arn = boundary_arn(account, region)
    for stack in stacks:
        policy = iam.ManagedPolicy.from_managed_policy_arn(stack, "PlatformPermissionsBoundary", arn)
        iam.PermissionsBoundary.of(stack).apply(policy)
