"""The CloudFormation execution policy of an account, instead of AdministratorAccess, and the permissions boundary
every role of the platform's stacks carries:
`python -m tools.execution_policy --cdk-out cdk.out/delivery --account <account> [--boundary]`.

`cdk bootstrap --trust <automation account> --cloudformation-execution-policies <policy ARNs>` makes the pipeline's
deployments run with exactly these policies (aws-cdk-lib pipelines README, "CDK Environment Bootstrapping": with
`--trust` a policy must be given, and whoever the trusted account lets deploy "effectively has all permissions
conferred by the configured CloudFormation execution policies"). What the policy allows is derived, per account, from
what its synthesized templates make CloudFormation do:

- each resource's **handler permissions**: ``handlers.create/read/update/delete.permissions`` of the resource type's
  CloudFormation registry schema, as bundled with cfn-lint (:data:`SCHEMA_SOURCE`); a type whose schema has no
  handlers (providers older than the registry) or whose handler calls more than its schema lists takes its actions
  from :data:`DOCUMENTED`, each with its source; every action's service prefix is checked against the IAM service
  reference cfn-lint bundles (``AdditionalSpecs/Policies.json``);
- each **intrinsic** CloudFormation resolves with the stack's role: ``Fn::GetStackOutput`` without ``RoleArn``
  (CloudFormation Template Reference, ``Fn::GetStackOutput``: ``RoleArn`` "defaults to the current stack's execution
  role") needs ``cloudformation:DescribeStacks`` on the named stack; ``{{resolve:secretsmanager:...}}`` needs
  ``secretsmanager:GetSecretValue``; an ``AWS::SSM::Parameter::Value`` parameter needs ``ssm:GetParameters``;
- custom resources: ``lambda:InvokeFunction`` on their provider function.

A resource type that is neither in the registry schemas nor documented here stops the tool (:class:`UnmappedType`),
so a new kind of resource is a deliberate change of the policy.

Guardrails (deny statements, :func:`guardrails`) keep the policy from being a path to account admin: roles only with
the platform's permissions boundary (:data:`cdk_constructs.delivery.PERMISSIONS_BOUNDARY`), no change to a role or
managed policy the stacks do not own (trust rewrites included), no identity providers, no IAM users or keys, no
stopping or deleting a trail but the platform's own, no key deletion outside the platform's keys. The boundary
(:func:`boundary_policy`) allows the services the account's role policies use and denies the same escalations.
docs/deploying.md "Multi-account delivery" shows the commands.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cfnlint
from cfnlint.version import __version__ as CFN_LINT_VERSION

from cdk_constructs.delivery import EXECUTION_POLICY, PERMISSIONS_BOUNDARY, partition_of
from cdk_constructs.governance.permissions_boundary import boundary_arn

_CFN_LINT_DATA = Path(cfnlint.__file__).parent / "data"
SCHEMAS = _CFN_LINT_DATA / "schemas"
IAM_REFERENCE = _CFN_LINT_DATA / "AdditionalSpecs" / "Policies.json"
SCHEMA_SOURCE = (
    f"CloudFormation registry schemas bundled with cfn-lint {CFN_LINT_VERSION} "
    f"(cfnlint/data/schemas/providers/<region>.json -> resources/<hash>.json)"
)
HANDLERS = ("create", "read", "update", "delete")
MANAGED_POLICY_LIMIT = 6144
"""Characters of a managed policy document, whitespace excluded (IAM User Guide, "IAM and AWS STS quotas")."""

# Registry schemas that spell a service prefix differently from IAM (AWS::SageMaker::Domain lists ``efs:``, the IAM
# prefix of Amazon EFS is ``elasticfilesystem``: Service Authorization Reference, "Amazon Elastic File System").
PREFIX_ALIASES = {"efs": "elasticfilesystem"}
# Types that create nothing in a service of their own (CloudFormation keeps them itself).
NO_SERVICE = {"AWS::CDK::Metadata", "AWS::CloudFormation::WaitConditionHandle", "AWS::CloudFormation::WaitCondition"}
DOCUMENTED: dict[str, tuple[tuple[str, ...], str]] = {
    "AWS::CodeBuild::Project": (
        (
            "codebuild:CreateProject",
            "codebuild:UpdateProject",
            "codebuild:DeleteProject",
            "codebuild:BatchGetProjects",
            "iam:PassRole",
        ),
        "no handlers in its registry schema; CodeBuild User Guide, 'AWS CodeBuild permissions reference' "
        "(CreateProject/UpdateProject: iam:PassRole of the service role)",
    ),
    "AWS::FSx::FileSystem": (
        (
            "fsx:CreateFileSystem",
            "fsx:DescribeFileSystems",
            "fsx:UpdateFileSystem",
            "fsx:DeleteFileSystem",
            "fsx:TagResource",
            "fsx:UntagResource",
            "fsx:ListTagsForResource",
            "ec2:CreateNetworkInterface",
            "ec2:DescribeNetworkInterfaces",
            "ec2:DescribeSubnets",
            "ec2:DescribeSecurityGroups",
            "ec2:DescribeVpcs",
            "iam:CreateServiceLinkedRole",
            "kms:CreateGrant",
            "kms:DescribeKey",
        ),
        "no handlers in its registry schema; Service Authorization Reference, 'Amazon FSx', fsx:CreateFileSystem "
        "and its dependent actions",
    ),
    "AWS::CloudTrail::Trail": (
        ("kms:Decrypt",),
        "a trail into a bucket with an S3 Bucket Key and SSE-KMS needs kms:Decrypt of its creator: CloudTrail User "
        "Guide, 'Configure AWS KMS key policies for CloudTrail'",
    ),
    "AWS::SageMaker::Domain": (
        (
            "elasticfilesystem:CreateFileSystem",
            "elasticfilesystem:CreateMountTarget",
            "elasticfilesystem:DescribeFileSystems",
            "elasticfilesystem:DescribeMountTargets",
            "elasticfilesystem:DeleteMountTarget",
            "elasticfilesystem:DeleteFileSystem",
            "elasticfilesystem:TagResource",
            "ec2:CreateSecurityGroup",
            "ec2:AuthorizeSecurityGroupIngress",
            "ec2:AuthorizeSecurityGroupEgress",
            "ec2:DescribeSecurityGroups",
            "ec2:CreateNetworkInterface",
            "ec2:DescribeNetworkInterfaces",
        ),
        "with KmsKeyId SageMaker creates the domain's EFS file system, mount targets and NFS security groups with "
        "the caller's credentials: SageMaker API permissions reference, CreateDomain",
    ),
}
LONG_LIVED_CREDENTIALS = (
    "iam:CreateUser",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:UpdateLoginProfile",
    "iam:CreateServiceSpecificCredential",
)
IDENTITY_PROVIDERS = (
    "iam:CreateOpenIDConnectProvider",
    "iam:UpdateOpenIDConnectProviderThumbprint",
    "iam:AddClientIDToOpenIDConnectProvider",
    "iam:CreateSAMLProvider",
    "iam:UpdateSAMLProvider",
)
# The IAM actions that take ``iam:PermissionsBoundary`` (the role's boundary, or the one a CreateRole request sets:
# Service Authorization Reference, "AWS Identity and Access Management (IAM)", condition keys per action).
BOUNDED_ROLE_WRITES = (
    "iam:CreateRole",
    "iam:PutRolePermissionsBoundary",
    "iam:PutRolePolicy",
    "iam:AttachRolePolicy",
    "iam:DeleteRolePolicy",
    "iam:DetachRolePolicy",
)
OWNED_ROLE_WRITES = (
    *BOUNDED_ROLE_WRITES,
    "iam:UpdateAssumeRolePolicy",
    "iam:UpdateRole",
    "iam:UpdateRoleDescription",
    "iam:DeleteRole",
    "iam:TagRole",
    "iam:UntagRole",
    "iam:DeleteRolePermissionsBoundary",
    "iam:PassRole",
)
OWNED_POLICY_WRITES = (
    "iam:CreatePolicy",
    "iam:CreatePolicyVersion",
    "iam:DeletePolicy",
    "iam:DeletePolicyVersion",
    "iam:SetDefaultPolicyVersion",
    "iam:TagPolicy",
    "iam:UntagPolicy",
)
TRAIL_TAMPERING = ("cloudtrail:StopLogging", "cloudtrail:DeleteTrail", "cloudtrail:UpdateTrail")
KEY_TAMPERING = ("kms:ScheduleKeyDeletion", "kms:DisableKey", "kms:PutKeyPolicy")
STACK_NAME_TAG = "aws:cloudformation:stack-name"
"""The tag CloudFormation puts on every taggable resource it creates (its value: the stack's name)."""


class UnmappedType(ValueError):
    pass


@dataclass(frozen=True)
class Need:
    """One permission a deployment of the account's stacks needs: ``action`` on ``resource`` (an ARN pattern)."""

    action: str
    resource: str
    origin: str  # "<stack>/<logical id> <type>" or "<stack> Fn::GetStackOutput"


@dataclass(frozen=True)
class Stack:
    name: str
    account: str
    region: str
    template: dict[str, Any]

    @property
    def partition(self) -> str:
        return partition_of(self.region)


# ---- reading the cloud assembly and the schemas ------------------------------------------------------------------


def stacks(cdk_out: Path) -> list[Stack]:
    """Every stack of a cloud assembly and its nested ones (a pipeline's stages)."""
    found: list[Stack] = []
    manifest = json.loads((cdk_out / "manifest.json").read_text())
    for artifact_id, artifact in manifest["artifacts"].items():
        if artifact.get("type") == "cdk:cloud-assembly":
            found += stacks(cdk_out / artifact["properties"]["directoryName"])
        elif artifact.get("type") == "aws:cloudformation:stack":
            account, region = artifact["environment"].removeprefix("aws://").split("/")[:2]
            props = artifact["properties"]
            template = json.loads((cdk_out / props["templateFile"]).read_text())
            found.append(Stack(props.get("stackName", artifact_id), account, region, template))
    return found


def stack_templates(cdk_out: Path) -> list[tuple[str, dict[str, Any]]]:
    """(account, template) of every stack in a cloud assembly."""
    return [(s.account, s.template) for s in stacks(cdk_out)]


def resource_types(cdk_out: Path, account: str) -> set[str]:
    return {
        r["Type"] for s in stacks(cdk_out) if s.account == account for r in s.template.get("Resources", {}).values()
    }


@cache
def _provider(region: str) -> dict[str, str]:
    path = SCHEMAS / "providers" / f"{region}.json"
    return json.loads((path if path.is_file() else SCHEMAS / "providers" / "us-east-1.json").read_text())


@cache
def _iam_prefixes() -> frozenset[str]:
    return frozenset(json.loads(IAM_REFERENCE.read_text()))


def registry_handlers(type_: str, region: str) -> dict[str, Any] | None:
    """The ``handlers`` of ``type_``'s registry schema in ``region``; None when the region has no schema for it."""
    digest = _provider(region).get(type_)
    if digest is None:
        return None
    return json.loads((SCHEMAS / "resources" / f"{digest}.json").read_text()).get("handlers") or {}


def normalize(action: str) -> str:
    """``service:Action`` with the IAM service prefix (lower case, :data:`PREFIX_ALIASES` applied)."""
    prefix, _, name = action.partition(":")
    prefix = PREFIX_ALIASES.get(prefix.lower(), prefix.lower())
    if prefix not in _iam_prefixes():
        raise UnmappedType(f"{action}: {prefix!r} is no IAM service prefix ({IAM_REFERENCE.name} of cfn-lint)")
    return f"{prefix}:{name}"


def handler_actions(type_: str, region: str) -> set[str]:
    """Every action the type's create/read/update/delete handlers call (schema plus :data:`DOCUMENTED`)."""
    handlers = registry_handlers(type_, region)
    documented = DOCUMENTED.get(type_, ((), ""))[0]
    if handlers is None or (not handlers and not documented):
        raise UnmappedType(
            f"{type_}: no handler permissions in the {SCHEMA_SOURCE} for {region}, and none in "
            f"tools/execution_policy.py DOCUMENTED: add them there with their source"
        )
    raw = [a for h in HANDLERS for a in handlers.get(h, {}).get("permissions", [])] + list(documented)
    return {normalize(a) for a in raw}


# ---- what the templates need --------------------------------------------------------------------------------------

NEVER_CALLED: dict[str, str] = {
    "iam:DeleteRolePermissionsBoundary": "AWS::IAM::Role's update handler calls it only when PermissionsBoundary is "
    "removed; every role of the platform keeps the boundary (cdk_constructs/governance/permissions_boundary.py)",
    "iam:PutUserPolicy": "AWS::IAM::Policy's handlers call the user variants only for its Users property; the "
    "platform's policies attach to roles only",
    "iam:DeleteUserPolicy": "as iam:PutUserPolicy",
    "iam:GetUserPolicy": "as iam:PutUserPolicy",
    "iam:PutGroupPolicy": "AWS::IAM::Policy's handlers call the group variants only for its Groups property; the "
    "platform's policies attach to roles only",
    "iam:DeleteGroupPolicy": "as iam:PutGroupPolicy",
    "iam:GetGroupPolicy": "as iam:PutGroupPolicy",
}
"""Handler permissions the guardrails deny because the platform's templates never make the handler call them; the
simulation (tests/test_execution_policy.py) checks each precondition on the templates."""


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _custom_resource(type_: str) -> bool:
    return type_.startswith("Custom::") or type_ == "AWS::CloudFormation::CustomResource"


def resource_needs(stack: Stack) -> list[Need]:
    """The handler permissions of every resource of ``stack`` (custom resources: invoking their provider)."""
    out: list[Need] = []
    iam_scope = f"arn:{stack.partition}:iam::{stack.account}:*"
    for lid, resource in stack.template.get("Resources", {}).items():
        type_ = resource["Type"]
        origin = f"{stack.name}/{lid} {type_}"
        if type_ in NO_SERVICE:
            continue
        if _custom_resource(type_):
            function = f"arn:{stack.partition}:lambda:{stack.region}:{stack.account}:function:*"
            out.append(Need("lambda:InvokeFunction", function, origin))
            continue
        for action in sorted(handler_actions(type_, stack.region)):
            if action not in NEVER_CALLED:
                out.append(Need(action, iam_scope if action.startswith("iam:") else "*", origin))
    return out


def intrinsic_needs(stack: Stack) -> list[Need]:
    """What resolving the template's intrinsics, dynamic references and SSM parameters needs of the stack's role."""
    p, region, account = stack.partition, stack.region, stack.account
    out: list[Need] = []
    for node in _walk(stack.template.get("Resources", {})) if stack.template else ():
        if isinstance(node, dict) and "Fn::GetStackOutput" in node:
            ref = node["Fn::GetStackOutput"]
            if "RoleArn" not in ref:  # resolved with the stack's own execution role
                arn = f"arn:{p}:cloudformation:{ref.get('Region', region)}:{account}:stack/{ref['StackName']}/*"
                out.append(Need("cloudformation:DescribeStacks", arn, f"{stack.name} Fn::GetStackOutput"))
        elif isinstance(node, str) and "{{resolve:secretsmanager:" in node:
            arn = f"arn:{p}:secretsmanager:{region}:{account}:secret:*"
            out.append(Need("secretsmanager:GetSecretValue", arn, f"{stack.name} {{{{resolve:secretsmanager}}}}"))
        elif isinstance(node, str) and re.search(r"\{\{resolve:ssm(-secure)?:", node):
            arn = f"arn:{p}:ssm:{region}:{account}:parameter/*"
            out.append(Need("ssm:GetParameters", arn, f"{stack.name} {{{{resolve:ssm}}}}"))
    for name, parameter in stack.template.get("Parameters", {}).items():
        if parameter["Type"].startswith("AWS::SSM::Parameter::Value"):
            arn = f"arn:{p}:ssm:{region}:{account}:parameter/{parameter.get('Default', '*').lstrip('/')}"
            out.append(Need("ssm:GetParameters", arn, f"{stack.name} parameter {name}"))
    if "Transform" in stack.template:
        raise UnmappedType(f"{stack.name}: the template uses a Transform, whose permissions this tool does not know")
    return out


def account_stacks(cdk_out: Path, account: str) -> list[Stack]:
    return [s for s in stacks(cdk_out) if s.account == account]


def needs(account_stacks_: Iterable[Stack]) -> list[Need]:
    """Every permission deploying (creating, updating, deleting) these stacks needs; raises :class:`UnmappedType`
    naming every resource type it cannot account for."""
    out: list[Need] = []
    unmapped: list[str] = []
    for stack in account_stacks_:
        for lid, resource in stack.template.get("Resources", {}).items():
            try:
                out += resource_needs(Stack(stack.name, stack.account, stack.region, {"Resources": {lid: resource}}))
            except UnmappedType as exc:
                unmapped.append(str(exc))
        out += intrinsic_needs(stack)
    if unmapped:
        raise UnmappedType("\n".join(sorted(set(unmapped))))
    return out


# ---- what the platform owns ---------------------------------------------------------------------------------------


def _literal(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    raise UnmappedType(f"{what} is not a literal name ({json.dumps(value)[:120]}): name it in the construct")


def owned(account_stacks_: list[Stack], kind: str) -> list[str]:
    """ARN patterns of the account's roles (``kind="role"``) or managed policies (``"policy"``): the names
    CloudFormation generates (``<stack name>-<logical id>-<suffix>``) and the literal names the templates set."""
    type_, prop = {"role": ("AWS::IAM::Role", "RoleName"), "policy": ("AWS::IAM::ManagedPolicy", "ManagedPolicyName")}[
        kind
    ]
    patterns: set[str] = set()
    for s in account_stacks_:
        patterns.add(f"arn:{s.partition}:iam::{s.account}:{kind}/{s.name}-*")
        for lid, r in s.template.get("Resources", {}).items():
            if r["Type"] == type_ and prop in r.get("Properties", {}):
                name = _literal(r["Properties"][prop], f"{s.name}/{lid} {prop}")
                path = r["Properties"].get("Path", "/")
                patterns.add(f"arn:{s.partition}:iam::{s.account}:{kind}{path}{name}")
    return sorted(patterns)


_PSEUDO = {"AWS::URLSuffix": "amazonaws.com", "AWS::NoValue": None}


def possible_values(value: Any, stack: Stack) -> list[str | None]:
    """Every string ``value`` may resolve to in ``stack`` (both branches of an ``Fn::If``; pseudo parameters
    substituted); None for a reference to one of the stack's resources or another stack's output."""
    pseudo = {
        **_PSEUDO,
        "AWS::Partition": stack.partition,
        "AWS::AccountId": stack.account,
        "AWS::Region": stack.region,
    }
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and "Ref" in value:
        return [pseudo[value["Ref"]]] if value["Ref"] in pseudo else [None]
    if isinstance(value, dict) and "Fn::If" in value:
        return [v for branch in value["Fn::If"][1:] for v in possible_values(branch, stack)]
    if isinstance(value, dict) and "Fn::Sub" in value and isinstance(value["Fn::Sub"], str):
        text = value["Fn::Sub"]
        for name, replacement in pseudo.items():
            text = text.replace(f"${{{name}}}", replacement or "")
        return [text]
    if isinstance(value, dict) and "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        rendered = [possible_values(p, stack) for p in parts]
        if all(len(r) == 1 and r[0] is not None for r in rendered):
            return [separator.join(r[0] for r in rendered)]  # type: ignore[misc]
    if isinstance(value, dict) and ("Fn::GetStackOutput" in value or "Fn::GetAtt" in value):
        return [None]
    raise UnmappedType(f"{stack.name}: cannot tell what {json.dumps(value)[:160]} resolves to")


def attachable_policies(account_stacks_: list[Stack]) -> list[str]:
    """The managed policies the account's roles attach (``ManagedPolicyArns``: AWS managed ones by ARN) and the
    platform's own (:func:`owned`): the only policies the execution policy lets a stack attach to a role."""
    arns = set(owned(account_stacks_, "policy"))
    for s in account_stacks_:
        for r in s.template.get("Resources", {}).values():
            if r["Type"] == "AWS::IAM::Role":
                for value in r.get("Properties", {}).get("ManagedPolicyArns", []):
                    arns.update(v for v in possible_values(value, s) if v)
    return sorted(arns)


def owned_trails(account_stacks_: list[Stack]) -> list[str]:
    return sorted(
        f"arn:{s.partition}:cloudtrail:*:{s.account}:trail/"
        f"{_literal(r['Properties']['TrailName'], f'{s.name}/{lid} TrailName')}"
        for s in account_stacks_
        for lid, r in s.template.get("Resources", {}).items()
        if r["Type"] == "AWS::CloudTrail::Trail"
    )


# ---- the policies -------------------------------------------------------------------------------------------------


def _deny(
    sid: str,
    actions: Iterable[str],
    *,
    resource: Any = "*",
    not_resource: list[str] | None = None,
    condition: dict[str, Any] | None = None,
) -> dict[str, Any]:
    statement: dict[str, Any] = {"Sid": sid, "Effect": "Deny", "Action": sorted(set(actions))}
    if not_resource:
        statement["NotResource"] = not_resource
    else:
        statement["Resource"] = resource
    if condition:
        statement["Condition"] = condition
    return statement


def guardrails(account_stacks_: list[Stack]) -> list[dict[str, Any]]:
    """The deny statements that keep the execution policy (and the boundary) from being a path to account admin."""
    first = account_stacks_[0]
    p, account = first.partition, first.account
    boundary = boundary_arn(account, first.region)
    bootstrap_policies = [boundary, f"arn:{p}:iam::{account}:policy/{EXECUTION_POLICY}*"]
    trails = owned_trails(account_stacks_)
    # Service-linked roles carry no boundary (IAM refuses one) and only their service may assume them; handlers put
    # policies on them (AWS::FSx::DataRepositoryAssociation: iam:PutRolePolicy on FSx's S3-access role).
    service_linked = f"arn:{p}:iam::{account}:role/aws-service-role/*"
    user_writes = [a for a in NEVER_CALLED if re.match(r"iam:(Put|Delete)(User|Group)Policy", a)]
    return [
        _deny("NoLongLivedCredentials", [*LONG_LIVED_CREDENTIALS, *user_writes]),
        _deny("NoIdentityProviders", IDENTITY_PROVIDERS),
        _deny(
            "RolesOnlyWithPlatformBoundary",
            BOUNDED_ROLE_WRITES,
            not_resource=[service_linked],
            condition={"StringNotEquals": {"iam:PermissionsBoundary": boundary}},
        ),
        _deny("KeepPlatformBoundary", ["iam:DeleteRolePermissionsBoundary"]),
        _deny(
            "AttachOnlyPlatformPolicies",
            ["iam:AttachRolePolicy"],
            condition={"ArnNotLike": {"iam:PolicyARN": attachable_policies(account_stacks_)}},
        ),
        _deny("OnlyPlatformRoles", OWNED_ROLE_WRITES, not_resource=[*owned(account_stacks_, "role"), service_linked]),
        _deny("OnlyPlatformPolicies", OWNED_POLICY_WRITES, not_resource=owned(account_stacks_, "policy")),
        _deny("KeepBootstrapPolicies", OWNED_POLICY_WRITES, resource=bootstrap_policies),
        _deny("OnlyPlatformTrails", TRAIL_TAMPERING, **({"not_resource": trails} if trails else {})),
        _deny(
            "OnlyPlatformKeys",
            KEY_TAMPERING,
            condition={
                "StringNotEquals": {f"aws:ResourceTag/{STACK_NAME_TAG}": sorted(s.name for s in account_stacks_)}
            },
        ),
    ]


def allow_statements(needs_: Iterable[Need]) -> list[dict[str, Any]]:
    """Allow statements for ``needs_``: one per resource set with the same actions, actions in groups of 60."""
    by_resource: dict[str, set[str]] = {}
    for need in needs_:
        by_resource.setdefault(need.resource, set()).add(need.action)
    by_actions: dict[tuple[str, ...], list[str]] = {}
    for resource, actions in by_resource.items():
        by_actions.setdefault(tuple(sorted(actions, key=str.lower)), []).append(resource)
    statements = []
    for actions, resources in sorted(by_actions.items(), key=lambda kv: (kv[1] != ["*"], kv[1])):
        for start in range(0, len(actions), 60):
            statements.append(
                {
                    "Effect": "Allow",
                    "Action": list(actions[start : start + 60]),
                    "Resource": resources[0] if len(resources) == 1 else sorted(resources),
                }
            )
    return statements


def _size(document: dict[str, Any]) -> int:
    return len(json.dumps(document, separators=(",", ":")))


def documents(statements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The statements packed in order into managed policy documents of at most :data:`MANAGED_POLICY_LIMIT`."""
    docs: list[dict[str, Any]] = [{"Version": "2012-10-17", "Statement": []}]
    for index, statement in enumerate(statements):
        statement = {"Sid": statement.get("Sid", f"Deploy{index}"), **statement}
        if docs[-1]["Statement"] and _size(docs[-1]) + _size(statement) + 1 > MANAGED_POLICY_LIMIT:
            docs.append({"Version": "2012-10-17", "Statement": []})
        docs[-1]["Statement"].append(statement)
    too_big = [s["Sid"] for d in docs if _size(d) > MANAGED_POLICY_LIMIT for s in d["Statement"]]
    if too_big:
        raise ValueError(f"statement(s) {too_big} exceed one managed policy ({MANAGED_POLICY_LIMIT} characters)")
    return docs


def execution_policies(cdk_out: Path, account: str) -> list[dict[str, Any]]:
    """The execution policy documents of ``account`` (attach every one: ``--cloudformation-execution-policies``
    takes a comma-separated list)."""
    found = account_stacks(cdk_out, account)
    if not found:
        raise ValueError(f"no stack of {cdk_out} deploys to account {account}")
    return documents([*guardrails(found), *allow_statements(needs(found))])


def role_policy_actions(account_stacks_: list[Stack]) -> set[str]:
    """Every action an identity policy of the account's roles grants (inline, AWS::IAM::Policy, managed)."""
    documents_: list[Any] = []
    for s in account_stacks_:
        for r in s.template.get("Resources", {}).values():
            props = r.get("Properties", {})
            if r["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
                documents_.append(props.get("PolicyDocument", {}))
            elif r["Type"] == "AWS::IAM::Role":
                documents_ += [p.get("PolicyDocument", {}) for p in props.get("Policies", [])]
    return {
        a
        for d in documents_
        for st in d.get("Statement", [])
        if st.get("Effect") == "Allow"
        for a in (st["Action"] if isinstance(st.get("Action"), list) else [st.get("Action")])
        if isinstance(a, str)
    }


def boundary_policy(cdk_out: Path, account: str) -> dict[str, Any]:
    """The permissions boundary of every role the account's stacks create. A boundary caps a role and grants
    nothing by itself, and the roles' services include those of the AWS managed policies they attach (whose text no
    template holds), so it allows every action but the escalations :func:`guardrails` denies: no IAM users or keys,
    no identity providers, no role or policy changes, passing platform roles only, no trail or key tampering."""
    found = account_stacks(cdk_out, account)
    role_and_policy_writes = {*OWNED_ROLE_WRITES, *OWNED_POLICY_WRITES, "iam:PutUserPolicy", "iam:AttachUserPolicy"}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "Ceiling", "Effect": "Allow", "Action": "*", "Resource": "*"},
            _deny("NoLongLivedCredentials", LONG_LIVED_CREDENTIALS),
            _deny("NoIdentityProviders", IDENTITY_PROVIDERS),
            _deny("NoRoleOrPolicyChanges", role_and_policy_writes - {"iam:PassRole"}),
            _deny("PassOnlyPlatformRoles", ["iam:PassRole"], not_resource=owned(found, "role")),
            _deny("NoTrailChanges", TRAIL_TAMPERING),
            _deny("NoKeyDeletion", KEY_TAMPERING),
        ],
    }


def write(cdk_out: Path, account: str, directory: Path) -> None:
    """The account's policies as the files docs/deploying.md "Bootstrap" creates the managed policies from."""
    directory.mkdir(parents=True, exist_ok=True)
    for index, document in enumerate(execution_policies(cdk_out, account), start=1):
        (directory / f"{EXECUTION_POLICY}-{index}.json").write_text(json.dumps(document, indent=2) + "\n")
    boundary = boundary_policy(cdk_out, account)
    (directory / f"{PERMISSIONS_BOUNDARY}.json").write_text(json.dumps(boundary, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execution_policy", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cdk-out",
        type=Path,
        default=Path("cdk.out/delivery"),
        help="cloud assembly (default: the delivery pipeline's, `make synth-delivery`)",
    )
    parser.add_argument("--account", required=True, help="the account whose stacks the policy deploys")
    parser.add_argument(
        "--boundary", action="store_true", help=f"print the permissions boundary ({PERMISSIONS_BOUNDARY}) instead"
    )
    parser.add_argument(
        "--write",
        type=Path,
        metavar="DIR",
        help=f"write {EXECUTION_POLICY}-<n>.json per managed policy and {PERMISSIONS_BOUNDARY}.json into DIR",
    )
    args = parser.parse_args(argv)
    if not (args.cdk_out / "manifest.json").is_file():
        print(f"{args.cdk_out} holds no cloud assembly: run `make synth-delivery` first", file=sys.stderr)
        return 2
    try:
        if args.write:
            write(args.cdk_out, args.account, args.write)
        elif args.boundary:
            print(json.dumps(boundary_policy(args.cdk_out, args.account), indent=2))
        else:
            print(json.dumps(execution_policies(args.cdk_out, args.account), indent=2))
    except (UnmappedType, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
