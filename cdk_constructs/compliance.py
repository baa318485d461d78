"""Record, next to a resource, why a compliance check does not apply to it.

checkov reads ``Metadata.checkov.skip`` of each CloudFormation resource; cfn-lint reads
``Metadata.cfn-lint.config.ignore_checks``. Both keep the reason beside the resource in the template.
"""

from __future__ import annotations

from aws_cdk import CfnResource
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
