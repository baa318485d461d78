"""Confused-deputy conditions on the trust policy of every role an AWS service assumes, applied as an aspect.

Each service principal gets the conditions its own documentation says it sets when it assumes a role:

- ``sagemaker.amazonaws.com`` (Studio execution roles, the domain's default role, the HyperPod execution role):
  ``aws:SourceAccount`` and ``aws:SourceArn`` like ``arn:<partition>:sagemaker:<region>:<account>:*``
  (https://docs.aws.amazon.com/sagemaker/latest/dg/security-confused-deputy-prevention.html).
- ``ecs-tasks.amazonaws.com`` (MLflow task and task-execution roles): ``aws:SourceAccount`` and ``aws:SourceArn``
  like ``arn:<partition>:ecs:<region>:<account>:*`` (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/
  task-iam-roles.html, "Create the task IAM role"; task-execution-IAM-role.html).
- ``vpc-flow-logs.amazonaws.com`` (flow-log delivery role): ``aws:SourceAccount`` and ``aws:SourceArn`` like
  ``arn:<partition>:ec2:<region>:<account>:vpc-flow-log/*``
  (https://docs.aws.amazon.com/vpc/latest/userguide/flow-logs-iam-role.html).
- ``codebuild.amazonaws.com`` (the image build projects' roles): ``aws:SourceAccount`` and ``aws:SourceArn`` like
  ``arn:<partition>:codebuild:<region>:<account>:project/*``
  (https://docs.aws.amazon.com/codebuild/latest/userguide/cross-service-confused-deputy-prevention.html).
- ``pods.eks.amazonaws.com`` (EKS Pod Identity): the session tags Pod Identity adds,
  ``aws:RequestTag/eks-cluster-name``, ``aws:RequestTag/kubernetes-namespace`` and
  ``aws:RequestTag/kubernetes-service-account``, pinned to the associations that use the role in the same stack
  (``AWS::EKS::PodIdentityAssociation`` or an add-on's ``PodIdentityAssociations``, whose namespace is the add-on's:
  :data:`ADDON_NAMESPACES`), so another association (another namespace, another team) cannot assume it
  (https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html, pod-id-abac.html).

:data:`UNCONDITIONED` lists the service principals the platform trusts without such conditions, each with the reason;
tests/test_trust_conditions.py fails on any other service principal in any role of any template.
"""

from __future__ import annotations

import json
from typing import Any

import jsii
from aws_cdk import Aws, IAspect, Stack
from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_eks_v2 as eks_v2
from aws_cdk import aws_iam as iam
from constructs import IConstruct

POD_IDENTITY = "pods.eks.amazonaws.com"
# AWS::EKS::PodIdentityAssociation and AWS::EKS::Addon: aws_eks and aws_eks_v2 each generate their own L1 class of
# each type. Told apart by class in Python, where the jsii proxies already are: asking each resource its
# cfnResourceType would cost one call into the jsii kernel per resource of the app.
POD_IDENTITY_ASSOCIATIONS = (eks_l1.CfnPodIdentityAssociation, eks_v2.CfnPodIdentityAssociation)
ADDONS = (eks_l1.CfnAddon, eks_v2.CfnAddon)
# Namespace each EKS add-on installs into (its PodIdentityAssociations live there; the property does not say).
ADDON_NAMESPACES = {
    "amazon-cloudwatch-observability": "amazon-cloudwatch"
}  # cdk_constructs/observability/container_insights.py
# service principal -> the ARN pattern (after arn:<partition>:) its aws:SourceArn matches, {region}/{account} filled
SOURCE_ARN_PATTERNS: dict[str, str] = {
    "sagemaker.amazonaws.com": "sagemaker:{region}:{account}:*",
    "ecs-tasks.amazonaws.com": "ecs:{region}:{account}:*",
    "vpc-flow-logs.amazonaws.com": "ec2:{region}:{account}:vpc-flow-log/*",
    "codebuild.amazonaws.com": "codebuild:{region}:{account}:project/*",
}
# Service principals trusted without confused-deputy conditions, and why.
UNCONDITIONED: dict[str, str] = {
    "lambda.amazonaws.com": "Lambda documents no aws:SourceArn/aws:SourceAccount for assuming a function's execution "
    "role (lambda-intro-execution-role.html shows an unconditioned trust); a key the service "
    "does not send would deny every invocation. The roles are the CDK-managed custom-resource "
    "handlers of this app, not passable by teams.",
    "ec2.amazonaws.com": "EC2 documents no aws:SourceArn/aws:SourceAccount for instance-profile role assumption "
    "(EKS node IAM role and Karpenter node role docs show an unconditioned trust); only the "
    "node group and Karpenter's instance profile use these roles.",
    "eks.amazonaws.com": "The EKS cluster IAM role trust documented by EKS (cluster-iam-role.html) has no condition "
    "keys; only the platform's own cluster uses it.",
}


EXEMPTION_METADATA = "platform:trust-conditions-exemption"


def exempt_from_trust_conditions(role: iam.Role, reason: str) -> None:
    """Leave ``role``'s trust without confused-deputy conditions, with ``reason`` written into the template
    (resource metadata ``platform:trust-conditions-exemption``), where tests/test_trust_conditions.py reads it."""
    if len(reason) < 40:
        raise ValueError("give a specific reason (at least 40 characters) for a trust policy without conditions")
    cfn = role.node.default_child
    assert isinstance(cfn, iam.CfnRole)
    cfn.add_metadata(EXEMPTION_METADATA, reason)


def _services(statement: dict[str, Any]) -> list[str]:
    principal = statement.get("Principal", {})
    services = principal.get("Service", []) if isinstance(principal, dict) else []
    return [services] if isinstance(services, str) else list(services)


@jsii.implements(IAspect)
class ServiceTrustConditions:
    """Adds the documented confused-deputy conditions (module docstring) to every ``AWS::IAM::Role`` whose trust
    policy names a service principal of :data:`SOURCE_ARN_PATTERNS` or EKS Pod Identity. Conditions already on a
    statement are kept (merged per operator).

    Two ways to apply it: :meth:`apply_to` once every construct exists (what app.py does at the end of ``build``:
    one call into the jsii kernel lists the whole tree), or as an aspect (``Aspects.of(scope).add(...)``), which
    also reaches constructs added later but costs a call from the jsii kernel back into Python for every construct
    of the app at synth (612 in the dev environment, 0.3 s of its synth)."""

    def apply_to(self, scope: IConstruct) -> None:
        """Visit ``scope`` and every construct below it, now."""
        for node in scope.node.find_all():
            self.visit(node)

    def visit(self, node: IConstruct) -> None:
        if not isinstance(node, iam.CfnRole) or node.get_metadata(EXEMPTION_METADATA):
            return
        stack = Stack.of(node)
        document = stack.resolve(node.assume_role_policy_document)
        if not isinstance(document, dict):
            return
        for index, statement in enumerate(document.get("Statement", [])):
            services = _services(statement)
            wanted: dict[str, dict[str, Any]] = {}
            arn_services = [s for s in services if s in SOURCE_ARN_PATTERNS]
            if arn_services:
                wanted["StringEquals"] = {"aws:SourceAccount": stack.account}
                arns = [
                    f"arn:{Aws.PARTITION}:" + SOURCE_ARN_PATTERNS[s].format(region=stack.region, account=stack.account)
                    for s in arn_services
                ]
                wanted["ArnLike"] = {"aws:SourceArn": arns[0] if len(arns) == 1 else arns}
            if POD_IDENTITY in services:
                tags = self._pod_identity_tags(node, stack)
                if tags:
                    wanted.setdefault("StringEquals", {}).update(tags)
            if not wanted:
                continue
            merged = {op: dict(values) for op, values in statement.get("Condition", {}).items()}
            for op, values in wanted.items():
                merged.setdefault(op, {}).update(values)
            node.add_property_override(f"AssumeRolePolicyDocument.Statement.{index}.Condition", merged)

    def __init__(self) -> None:
        # stack path -> role ARN (resolved) -> (namespaces, service accounts, clusters): one walk of each stack,
        # not one per role (the walk was most of this aspect's share of a synth)
        self._associations: dict[str, dict[Any, tuple[set[Any], set[Any], set[Any]]]] = {}

    def _pod_identity_index(self, stack: Stack) -> dict[Any, tuple[set[Any], set[Any], set[Any]]]:
        key = stack.node.path
        if key in self._associations:
            return self._associations[key]
        index: dict[str, tuple[set[Any], set[Any], set[Any]]] = {}

        def entry(arn: Any) -> tuple[set[Any], set[Any], set[Any]]:
            return index.setdefault(json.dumps(arn, sort_keys=True), (set(), set(), set()))

        for construct in stack.node.find_all():
            if isinstance(construct, POD_IDENTITY_ASSOCIATIONS):
                namespaces, accounts, clusters = entry(stack.resolve(construct.role_arn))
                namespaces.add(construct.namespace)
                accounts.add(construct.service_account)
                clusters.add(construct.cluster_name)
            # EKS add-ons carry their own associations (AWS::EKS::Addon PodIdentityAssociations)
            elif isinstance(construct, ADDONS):
                for assoc in stack.resolve(construct.pod_identity_associations) or []:
                    namespaces, accounts, clusters = entry(assoc.get("roleArn", assoc.get("RoleArn")))
                    accounts.add(assoc.get("serviceAccount", assoc.get("ServiceAccount")))
                    clusters.add(construct.cluster_name)
                    namespace = ADDON_NAMESPACES.get(construct.addon_name)
                    if namespace:
                        namespaces.add(namespace)
        self._associations[key] = index
        return index

    def _pod_identity_tags(self, role: iam.CfnRole, stack: Stack) -> dict[str, Any]:
        """Session-tag conditions from the Pod Identity associations of ``role`` in its stack."""
        arn = json.dumps(stack.resolve(role.attr_arn), sort_keys=True)
        namespaces, accounts, clusters = self._pod_identity_index(stack).get(arn, (set(), set(), set()))
        if not accounts:
            return {}

        def one_or_many(values: set[Any]) -> Any:
            items = sorted(values, key=str)
            return items[0] if len(items) == 1 else items

        tags = {
            "aws:RequestTag/kubernetes-service-account": one_or_many(accounts),
            "aws:RequestTag/eks-cluster-name": one_or_many(clusters),
        }
        if namespaces:
            tags["aws:RequestTag/kubernetes-namespace"] = one_or_many(namespaces)
        return tags
