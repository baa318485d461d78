"""Acknowledge cdk-nag (v3) findings by their exact IDs, next to the resource, with one reason per group.

cdk-nag v3 matches an acknowledgement only by the full finding ID, e.g.
``AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEKSWorkerNodePolicy]``;
these helpers build those IDs so the call sites stay readable.

For your own constructs (docs/extending.md "Extending a construct"): :func:`acknowledge` takes finding IDs as cdk-nag
prints them without the ``AwsSolutions::AwsSolutions-`` prefix; :func:`acknowledge_prefix_wildcard` acknowledges the
IAM5 finding of ``<bucket ARN>/<prefix>*`` also when the bucket is in another stack (its ARN is then a cross-stack
expression known only at synth); :func:`acknowledge_grant` acknowledges the wildcard actions of an ``iam.Grant``
(``s3:GetObject*``, ``kms:GenerateDataKey*``, ...) on the grantee, with your reason.
"""

from __future__ import annotations

import json
from typing import Any

import jsii
from aws_cdk import Acknowledgment, CfnElement, Stack, Validations
from aws_cdk import aws_iam as iam
from constructs import Construct, IConstruct, IValidation

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


@jsii.implements(IValidation)
class _PrefixWildcardAcknowledgement:
    """cdk-nag names the IAM5 finding of ``<bucket ARN>/<prefix>*`` after the rendered ARN, which for a bucket of
    another stack is a cross-stack expression known only once references are resolved. Construct validations run
    after that and before the validation plugins, so the acknowledgement is added then."""

    def __init__(self, target: IConstruct, bucket_arn: str, suffix: str, reason: str) -> None:
        self.target, self.bucket_arn, self.suffix, self.reason = target, bucket_arn, suffix, reason

    def validate(self) -> list[str]:
        arn = Stack.of(self.target).resolve(self.bucket_arn)
        arn = arn if isinstance(arn, str) else json.dumps(arn, separators=(",", ":"))
        Validations.of(self.target).acknowledge(
            Acknowledgment(id=f"{PREFIX}IAM5[Resource::{arn}{self.suffix}]", reason=self.reason)
        )
        return []


def acknowledge_prefix_wildcard(construct: IConstruct, *, bucket_arn: str, suffix: str, reason: str) -> None:
    """Acknowledge IAM5 ``Resource::<bucket_arn><suffix>`` (e.g. suffix ``/teams/a/*``) on ``construct``'s subtree
    (the grantee role: its default policy holds the statement). Works for a bucket of any stack."""
    if len(reason.strip()) < 20:
        raise ValueError(f"acknowledgement on {construct.node.path} needs a specific reason (>= 20 characters)")
    construct.node.add_validation(_PrefixWildcardAcknowledgement(construct, bucket_arn, suffix, reason))


def acknowledge_grant(grantee: iam.IGrantable, grant: iam.Grant, reason: str) -> None:
    """Acknowledge, on ``grantee`` (when it is a construct of this app), the IAM5 findings of the wildcard actions
    ``grant`` put in its policy. Resource wildcards are named by the caller (:func:`acknowledge_prefix_wildcard`)."""
    if not isinstance(grantee, Construct):
        return  # a principal outside this app (an ARN): its policy is not synthesized here
    actions = sorted({a for statement in grant.principal_statements for a in statement.actions if "*" in a})
    if actions:
        acknowledge(grantee, reason, *wildcard_actions(*actions))
