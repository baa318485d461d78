"""Record, next to a resource, why a compliance check does not apply to it.

checkov reads ``Metadata.checkov.skip`` of each CloudFormation resource; cfn-lint reads
``Metadata.cfn-lint.config.ignore_checks``. Both keep the reason beside the resource in the template.
"""

from __future__ import annotations

from aws_cdk import CfnResource, Stack
from constructs import IConstruct


def _resource(construct: IConstruct) -> CfnResource:
    if isinstance(construct, CfnResource):
        return construct
    child = construct.node.default_child
    if not isinstance(child, CfnResource):
        raise TypeError(f"{construct.node.path} has no CloudFormation resource to annotate")
    return child


def skip_checkov(construct: IConstruct, check_id: str, reason: str) -> None:
    """Skip checkov ``check_id`` on ``construct``'s resource, with ``reason`` (at least 20 characters)."""
    if len(reason.strip()) < 20:
        raise ValueError(f"checkov skip {check_id} on {construct.node.path} needs a specific reason")
    resource = _resource(construct)
    meta = dict(resource.get_metadata("checkov") or {})
    meta["skip"] = [*meta.get("skip", []), {"id": check_id, "comment": reason}]
    resource.add_metadata("checkov", meta)


def ignore_cfn_lint(construct: IConstruct, rule_id: str, reason: str) -> None:
    """Ignore cfn-lint ``rule_id`` on ``construct``'s resource, with ``reason``."""
    if len(reason.strip()) < 20:
        raise ValueError(f"cfn-lint ignore {rule_id} on {construct.node.path} needs a specific reason")
    resource = _resource(construct)
    meta = dict(resource.get_metadata("cfn-lint") or {})
    config = dict(meta.get("config", {}))
    config["ignore_checks"] = [*config.get("ignore_checks", []), rule_id]
    meta["config"] = config
    meta["comments"] = [*meta.get("comments", []), f"{rule_id}: {reason}"]
    resource.add_metadata("cfn-lint", meta)


# Stack-level singletons aws-cdk-lib creates for its own deploy-time handlers.
_CDK_SINGLETONS = ("Custom::CDKBucketDeployment", "Custom::VpcRestrictDefaultSG")
_CDK_HANDLER_SKIPS = {
    "AWS::Lambda::Function": {
        "CKV_AWS_115": "aws-cdk-lib's deploy-time handler, invoked by CloudFormation only during deployments; a "
        "reserved concurrency would only add throttling risk",
        "CKV_AWS_116": "aws-cdk-lib's deploy-time handler is invoked synchronously by CloudFormation (through the "
        "Provider framework), which reports every failure; a DLQ would never receive an event",
        "CKV_AWS_117": "aws-cdk-lib's deploy-time handler calls only AWS APIs; the one that must reach the private "
        "EKS endpoint (kubectl) is placed in the VPC",
        "CKV_AWS_173": "the environment holds no secrets (paths, ARNs, flags); Lambda encrypts it at rest with an "
        "AWS-managed key",
    },
}


def annotate_cdk_managed_handlers(stack: Stack, *clusters: IConstruct) -> None:
    """Record why checkov's Lambda checks do not apply to aws-cdk-lib's own deploy-time handlers, whose
    properties this project does not control: the BucketDeployment and default-security-group singletons of
    ``stack`` and the kubectl provider of each of ``clusters``. Our own functions are annotated where they are defined.
    Only those subtrees are walked: every visited construct costs a call into the jsii kernel."""
    roots = [c for c in stack.node.children if c.node.id.startswith(_CDK_SINGLETONS)]
    roots += [p for p in (c.node.try_find_child("KubectlProvider") for c in clusters) if p is not None]
    for root in roots:
        for node in root.node.find_all():
            if isinstance(node, CfnResource):
                existing = {s["id"] for s in (node.get_metadata("checkov") or {}).get("skip", [])}
                for check_id, reason in _CDK_HANDLER_SKIPS.get(node.cfn_resource_type, {}).items():
                    if check_id not in existing:
                        skip_checkov(node, check_id, reason)
