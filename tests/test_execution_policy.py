"""A simulated first run of the delivery pipeline under the generated CloudFormation execution policies
(tools/execution_policy.py) and the platform's permissions boundary, on the delivery app the tests synthesize once
(tests/conftest.py ``delivery``: automation, logging and one workload account per environment).

For every template of every account, each resource's handler permissions (the registry schemas bundled with
cfn-lint) and each intrinsic the stack's role resolves are requested, with the resource's own ARN and condition
context, and run through tests/iam_eval.py against the account's generated policies: every one must be allowed.
The requests an attacker who can deploy would make (an admin role trusted outside, a trust rewrite of a bootstrap
role, an identity provider, stopping someone else's trail, deleting a key) must be denied; no statement grants
``*``, ``*:*`` or ``iam:*``; a resource type the generator does not know stops it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cdk_constructs.delivery import EXECUTION_POLICY, bootstrap_role_arn
from cdk_constructs.governance.permissions_boundary import boundary_arn
from tools import execution_policy as ep

from .conftest import DeliverySynth
from .iam_eval import decide

PLACEHOLDER_SUFFIX = "ABCDEFGH1234"  # CloudFormation's generated-name suffix


def _generated(stack: ep.Stack, lid: str) -> str:
    return f"{stack.name}-{lid}-{PLACEHOLDER_SUFFIX}"[:64]


def _role_arns(stack: ep.Stack) -> dict[str, tuple[str, Any]]:
    """Logical ID -> (ARN, PermissionsBoundary) of the stack's roles, named as CloudFormation names them."""
    out = {}
    for lid, r in stack.template["Resources"].items():
        if r["Type"] == "AWS::IAM::Role":
            props = r["Properties"]
            name = props.get("RoleName") or _generated(stack, lid)
            out[lid] = (
                f"arn:aws:iam::{stack.account}:role{props.get('Path', '/')}{name}",
                props.get("PermissionsBoundary"),
            )
    return out


def _referenced_roles(resource: dict[str, Any], roles: dict[str, tuple[str, Any]]) -> list[tuple[str, Any]]:
    found = []
    for node in ep._walk(resource.get("Properties", {})):
        if isinstance(node, dict):
            ref = node.get("Ref") or (node.get("Fn::GetAtt") or [None])[0]
            if ref in roles:
                found.append(roles[ref])
    return found


def _iam_requests(stack: ep.Stack, lid: str, resource: dict[str, Any], action: str) -> list[tuple[str, Any]]:
    """(ARN, PermissionsBoundary) of the IAM entities ``action`` acts on for ``resource``."""
    account, roles = stack.account, _role_arns(stack)
    name = action.split(":")[1]
    if "ServiceLinkedRole" in name:
        return [(f"arn:aws:iam::{account}:role/aws-service-role/x.amazonaws.com/AWSServiceRoleForX", None)]
    if resource["Type"] == "AWS::IAM::Role" and "InstanceProfile" not in name:
        return [roles[lid]]
    if "Role" in name and "InstanceProfile" not in name:
        # the roles the resource names (a policy's Roles, a function's Role); else a platform role of another stack
        # (passed or read) or the service's own service-linked role (a policy put on it: FSx's S3 access)
        if resource["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):  # attached through ``Roles`` only
            return _referenced_roles({"Properties": resource["Properties"].get("Roles", [])}, roles)
        if resource["Type"].startswith("AWS::IAM::"):
            fallback = []
        elif name in ("PassRole", "GetRole"):
            fallback = [(f"arn:aws:iam::{account}:role/{stack.name}-x", None)]
        else:
            fallback = [(f"arn:aws:iam::{account}:role/aws-service-role/x.amazonaws.com/AWSServiceRoleForX", None)]
        return _referenced_roles(resource, roles) or fallback
    if "Policy" in name:
        return [(f"arn:aws:iam::{account}:policy/{_generated(stack, lid)}", None)]
    return [(f"arn:aws:iam::{account}:instance-profile/{_generated(stack, lid)}", None)]


def _requests(stack: ep.Stack, lid: str, resource: dict[str, Any], action: str) -> list[tuple[str, dict[str, Any]]]:
    """(resource ARN, condition context) of each request ``action`` makes for ``resource``."""
    service = action.split(":")[0]
    account, region = stack.account, stack.region
    if service == "iam":
        requests = [
            (arn, {"iam:PermissionsBoundary": b} if b else {}) for arn, b in _iam_requests(stack, lid, resource, action)
        ]
        if action == "iam:AttachRolePolicy" and resource["Type"] == "AWS::IAM::Role":
            # one request per policy the role attaches (none: the handler attaches none)
            attached = [
                v or f"arn:aws:iam::{account}:policy/{_generated(stack, 'Attached')}"
                for value in resource["Properties"].get("ManagedPolicyArns", [])
                for v in ep.possible_values(value, stack)
            ]
            return [(arn, {**context, "iam:PolicyARN": p}) for arn, context in requests for p in attached]
        if action == "iam:AttachRolePolicy" and resource["Type"] == "AWS::IAM::ManagedPolicy":
            policy = f"arn:aws:iam::{account}:policy/{_generated(stack, lid)}"
            return [(arn, {**context, "iam:PolicyARN": policy}) for arn, context in requests]
        return requests
    if ep._custom_resource(resource["Type"]):
        return [(f"arn:aws:lambda:{region}:{account}:function:{stack.name}-Provider-{PLACEHOLDER_SUFFIX}", {})]
    if service == "cloudtrail" and resource["Type"] == "AWS::CloudTrail::Trail":
        return [(f"arn:aws:cloudtrail:{region}:{account}:trail/{resource['Properties']['TrailName']}", {})]
    context = {f"aws:ResourceTag/{ep.STACK_NAME_TAG}": stack.name} if service == "kms" else {}
    return [(f"arn:aws:{service}:{region}:{account}:{lid.lower()}", context)]


def _intrinsic_requests(stack: ep.Stack) -> list[tuple[str, str, str]]:
    """(action, resource ARN, origin) of what resolving the template needs of the stack's own role."""
    out = []
    for node in ep._walk(stack.template["Resources"]):
        if isinstance(node, dict) and "Fn::GetStackOutput" in node and "RoleArn" not in node["Fn::GetStackOutput"]:
            ref = node["Fn::GetStackOutput"]
            arn = f"arn:aws:cloudformation:{ref.get('Region', stack.region)}:{stack.account}:stack/{ref['StackName']}/1"
            out.append(("cloudformation:DescribeStacks", arn, f"{stack.name} Fn::GetStackOutput {ref['StackName']}"))
        if isinstance(node, str) and "{{resolve:secretsmanager:" in node:
            arn = f"arn:aws:secretsmanager:{stack.region}:{stack.account}:secret:s-AbCdEf"
            out.append(("secretsmanager:GetSecretValue", arn, f"{stack.name} resolve:secretsmanager"))
    for name, parameter in stack.template.get("Parameters", {}).items():
        if parameter["Type"].startswith("AWS::SSM::Parameter::Value"):
            arn = f"arn:aws:ssm:{stack.region}:{stack.account}:parameter{parameter['Default']}"
            out.append(("ssm:GetParameters", arn, f"{stack.name} parameter {name}"))
    return out


def _simulate(delivery: DeliverySynth, account: str) -> tuple[Counter[str], list[str]]:
    documents = ep.execution_policies(delivery.outdir, account)
    counts: Counter[str] = Counter()
    refused = []
    for stack in ep.account_stacks(delivery.outdir, account):
        for lid, resource in stack.template["Resources"].items():
            type_ = resource["Type"]
            if type_ in ep.NO_SERVICE:
                continue
            if ep._custom_resource(type_):
                actions = ["lambda:InvokeFunction"]
            else:
                actions = sorted(ep.handler_actions(type_, stack.region) - set(ep.NEVER_CALLED))
            for action in actions:
                for arn, context in _requests(stack, lid, resource, action):
                    verdict, sid = decide(documents, action, arn, context)
                    counts["handler"] += 1
                    if verdict != "Allow":
                        refused.append(f"{stack.name}/{lid} {type_}: {action} on {arn} {context}: {verdict} {sid}")
        for action, arn, origin in _intrinsic_requests(stack):
            verdict, sid = decide(documents, action, arn)
            counts["intrinsic"] += 1
            if verdict != "Allow":
                refused.append(f"{origin}: {action} on {arn}: {verdict} {sid}")
    return counts, refused


def _accounts(delivery: DeliverySynth) -> list[str]:
    return sorted({s.account for s in ep.stacks(delivery.outdir)})


def test_first_run_is_allowed_in_every_account(delivery: DeliverySynth, capsys: pytest.CaptureFixture[str]) -> None:
    report = []
    problems = []
    for account in _accounts(delivery):
        counts, refused = _simulate(delivery, account)
        documents = ep.execution_policies(delivery.outdir, account)
        allowed = {a.lower() for d in documents for s in d["Statement"] if s["Effect"] == "Allow" for a in s["Action"]}
        report.append(
            f"{account}: {counts['handler']} handler and {counts['intrinsic']} intrinsic requests, "
            f"{len(refused)} refused; {len(documents)} policies, {len(allowed)} allowed actions"
        )
        problems += refused
    with capsys.disabled():
        print("\nfirst-run simulation:\n  " + "\n  ".join(report))
    assert not problems, "the first run would fail:\n" + "\n".join(problems)


def test_the_blockers_of_the_first_run_are_granted(delivery: DeliverySynth) -> None:
    """The four requests the desk check found refused, each now granted where the templates need it."""
    for env, config in delivery.environments.items():
        documents = ep.execution_policies(delivery.outdir, config.account)
        prefix = config.stack_prefix
        network = f"arn:aws:cloudformation:{config.region}:{config.account}:stack/{prefix}-Network/1"
        assert decide(documents, "cloudformation:DescribeStacks", network)[0] == "Allow", env
        assert decide(documents, "elasticfilesystem:CreateFileSystem", "*")[0] == "Allow", env
        stacks = ep.account_stacks(delivery.outdir, config.account)
        if any(r["Type"] == "AWS::Oam::Link" for s in stacks for r in s.template["Resources"].values()):
            assert decide(documents, "xray:Link", "*")[0] == "Allow", env  # the OAM link's handler asks for it


def test_no_statement_grants_everything(delivery: DeliverySynth) -> None:
    for account in _accounts(delivery):
        for document in ep.execution_policies(delivery.outdir, account):
            assert len(json.dumps(document, separators=(",", ":"))) <= ep.MANAGED_POLICY_LIMIT
            for statement in document["Statement"]:
                if statement["Effect"] != "Allow":
                    continue
                assert "NotAction" not in statement and "NotResource" not in statement
                for action in statement["Action"]:
                    service, name = action.split(":")
                    assert action != "*" and "*" not in service and name != "*", f"{account}: {action}"
        assert len(ep.execution_policies(delivery.outdir, account)) <= 10  # managed policies per role (IAM quota)


def _attacks(account: str, region: str) -> list[tuple[str, str, dict[str, Any]]]:
    role = f"arn:aws:iam::{account}:role"
    return [
        ("iam:CreateRole", f"{role}/Backdoor", {}),
        ("iam:CreateRole", f"{role}/Backdoor", {"iam:PermissionsBoundary": boundary_arn(account, region)}),
        ("iam:AttachRolePolicy", f"{role}/OrganizationAccountAccessRole", {}),
        (
            "iam:AttachRolePolicy",
            f"{role}/Dev-Compute-Backdoor",
            {
                "iam:PermissionsBoundary": boundary_arn(account, region),
                "iam:PolicyARN": "arn:aws:iam::aws:policy/AdministratorAccess",
            },
        ),
        ("iam:UpdateAssumeRolePolicy", bootstrap_role_arn("deploy", account, region), {}),
        ("iam:UpdateAssumeRolePolicy", f"{role}/OrganizationAccountAccessRole", {}),
        ("iam:PutRolePolicy", bootstrap_role_arn("cfn-exec", account, region), {}),
        ("iam:PassRole", f"{role}/OrganizationAccountAccessRole", {}),
        ("iam:DeleteRolePermissionsBoundary", f"{role}/Dev-Compute-Anything", {}),
        ("iam:CreatePolicyVersion", boundary_arn(account, region), {}),
        ("iam:CreatePolicyVersion", f"arn:aws:iam::{account}:policy/{EXECUTION_POLICY}-1", {}),
        ("iam:CreateOpenIDConnectProvider", f"arn:aws:iam::{account}:oidc-provider/token.actions.example.com", {}),
        ("iam:CreateSAMLProvider", f"arn:aws:iam::{account}:saml-provider/Outside", {}),
        ("iam:CreateUser", f"arn:aws:iam::{account}:user/someone", {}),
        ("iam:CreateAccessKey", f"arn:aws:iam::{account}:user/someone", {}),
        ("cloudtrail:StopLogging", f"arn:aws:cloudtrail:{region}:{account}:trail/organization-trail", {}),
        ("cloudtrail:DeleteTrail", f"arn:aws:cloudtrail:{region}:{account}:trail/organization-trail", {}),
        ("kms:ScheduleKeyDeletion", f"arn:aws:kms:{region}:{account}:key/1234", {}),
        (
            "kms:ScheduleKeyDeletion",
            f"arn:aws:kms:{region}:{account}:key/1234",
            {f"aws:ResourceTag/{ep.STACK_NAME_TAG}": "Other"},
        ),
    ]


def test_an_attacker_who_can_deploy_gets_no_account_admin(delivery: DeliverySynth) -> None:
    """What the desk check did with the old policy (iam:* and 23 other service:* on *), refused now."""
    for account in _accounts(delivery):
        region = ep.account_stacks(delivery.outdir, account)[0].region
        documents = ep.execution_policies(delivery.outdir, account)
        allowed = [
            f"{action} on {arn} {context}"
            for action, arn, context in _attacks(account, region)
            if decide(documents, action, arn, context)[0] == "Allow"
        ]
        assert not allowed, f"{account}: " + "\n".join(allowed)


def test_every_role_carries_the_platform_boundary(delivery: DeliverySynth) -> None:
    """The precondition of NEVER_CALLED and of the boundary condition: every role of every template, and the
    platform's policies attach to roles only."""
    bare = []
    for stack in ep.stacks(delivery.outdir):
        for lid, r in stack.template["Resources"].items():
            if r["Type"] == "AWS::IAM::Role" and r["Properties"].get("PermissionsBoundary") != boundary_arn(
                stack.account, stack.region
            ):
                bare.append(f"{stack.name}/{lid}")
            if r["Type"] == "AWS::IAM::Policy":
                assert not {"Users", "Groups"} & set(r["Properties"]), f"{stack.name}/{lid}"
    assert not bare, "roles without the platform boundary:\n" + "\n".join(bare)


def test_boundary_denies_no_action_the_roles_are_granted(delivery: DeliverySynth) -> None:
    """The boundary caps escalations only: every action a role policy of the account grants stays allowed."""
    for account in _accounts(delivery):
        stacks = ep.account_stacks(delivery.outdir, account)
        boundary = ep.boundary_policy(delivery.outdir, account)
        platform_role = f"arn:aws:iam::{account}:role/{stacks[0].name}-x"
        capped = [
            a
            for a in sorted(ep.role_policy_actions(stacks))
            if decide([boundary], a, platform_role if a.startswith("iam:") else "arn:aws:s3:::x")[0] != "Allow"
        ]
        assert not capped, f"{account}: the boundary denies granted actions {capped}"
        for action, arn, context in _attacks(account, stacks[0].region)[2:]:
            if action.startswith(("iam:Create", "iam:Update", "iam:Attach", "iam:Put", "cloudtrail", "kms")):
                assert decide([boundary], action, arn, context)[0] == "Deny", (account, action, arn)


def test_an_unknown_resource_type_stops_the_generator() -> None:
    stack = ep.Stack("Probe", "123456789012", "us-east-1", {"Resources": {"X": {"Type": "AWS::Made::Up"}}})
    with pytest.raises(ep.UnmappedType, match="AWS::Made::Up"):
        ep.needs([stack])


def test_a_type_without_handlers_needs_documented_permissions(monkeypatch: pytest.MonkeyPatch) -> None:
    """AWS::CodeBuild::Project's registry schema has no handlers: without its DOCUMENTED entry it stops the tool."""
    assert ep.registry_handlers("AWS::CodeBuild::Project", "us-east-1") == {}
    monkeypatch.setattr(ep, "DOCUMENTED", {k: v for k, v in ep.DOCUMENTED.items() if k != "AWS::CodeBuild::Project"})
    stack = ep.Stack("Probe", "123456789012", "us-east-1", {"Resources": {"P": {"Type": "AWS::CodeBuild::Project"}}})
    with pytest.raises(ep.UnmappedType, match="AWS::CodeBuild::Project"):
        ep.needs([stack])


def test_handler_actions_use_iam_prefixes() -> None:
    """The registry spells EFS ``efs:``; IAM knows it as ``elasticfilesystem``; a made-up prefix stops the tool."""
    actions = ep.handler_actions("AWS::SageMaker::Domain", "us-east-1")
    assert "elasticfilesystem:CreateFileSystem" in actions and not [a for a in actions if a.startswith("efs:")]
    with pytest.raises(ep.UnmappedType, match="madeup"):
        ep.normalize("madeup:DoIt")


def test_cli_prints_the_policies_and_the_boundary(
    delivery: DeliverySynth, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    account = next(c.account for c in delivery.environments.values())
    assert ep.main(["--cdk-out", str(delivery.outdir), "--account", account]) == 0
    assert json.loads(capsys.readouterr().out) == ep.execution_policies(delivery.outdir, account)
    assert ep.main(["--cdk-out", str(delivery.outdir), "--account", account, "--boundary"]) == 0
    assert json.loads(capsys.readouterr().out)["Statement"][0]["Sid"] == "Ceiling"
    assert ep.main(["--cdk-out", str(delivery.outdir), "--account", account, "--write", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    count = len(ep.execution_policies(delivery.outdir, account))
    assert written == sorted(
        [*(f"{EXECUTION_POLICY}-{i}.json" for i in range(1, count + 1)), "llmft-platform-boundary.json"]
    )
    assert ep.main(["--cdk-out", str(delivery.outdir), "--account", "000000000000"]) == 1
    assert "no stack" in capsys.readouterr().err
