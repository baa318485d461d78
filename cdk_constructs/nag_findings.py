"""Acknowledge cdk-nag (v3) findings by their exact IDs, next to the resource, with one reason per group.

cdk-nag v3 matches an acknowledgement only by the full finding ID, e.g.
``AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEKSWorkerNodePolicy]``;
these helpers build those IDs so the call sites stay readable.
"""

from __future__ import annotations

import json
from typing import Any

from aws_cdk import Acknowledgment, CfnElement, Stack, Validations
from constructs import IConstruct

PREFIX = "AwsSolutions::AwsSolutions-"


def acknowledge(construct: IConstruct, reason: str, *findings: str) -> None:
    """Acknowledge each finding (``"IAM5[Resource::*]"``, ``"SQS3"``, ...) on ``construct``'s subtree."""
    if len(reason.strip()) < 20:
        raise ValueError(f"acknowledgement on {construct.node.path} needs a specific reason (>= 20 characters)")
    for finding in findings:
        Validations.of(construct).acknowledge(Acknowledgment(id=PREFIX + finding, reason=reason))


def managed_policy(name: str) -> str:
    """IAM4 finding for the AWS-managed policy ``name`` (``service-role/...`` where AWS puts it there)."""
    return f"IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{name}]"


def managed_policy_token(value: Any) -> str:
    """IAM4 finding for a managed policy ARN that is a CloudFormation expression (rendered compactly)."""
    return f"IAM4[Policy::{json.dumps(value, separators=(',', ':'))}]"


def attribute(element: IConstruct, attr: str = "Arn") -> str:
    """How cdk-nag prints ``Fn::GetAtt`` of ``element`` (a CfnElement, or a construct whose default child is one)."""
    cfn = element if isinstance(element, CfnElement) else element.node.default_child
    if not isinstance(cfn, CfnElement):
        raise TypeError(f"{element.node.path} has no CloudFormation element")
    return f"<{Stack.of(cfn).get_logical_id(cfn)}.{attr}>"


def wildcard_actions(*actions: str) -> tuple[str, ...]:
    return tuple(f"IAM5[Action::{a}]" for a in actions)


def wildcard_resources(*resources: str) -> tuple[str, ...]:
    return tuple(f"IAM5[Resource::{r}]" for r in resources)


def asset_bucket_objects(stack: Stack) -> str:
    """The CDK bootstrap asset bucket's objects, as the default synthesizer names it."""
    return f"arn:aws:s3:::cdk-hnb659fds-assets-{stack.account}-{stack.region}/*"
