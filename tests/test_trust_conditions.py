"""Every role an AWS service assumes, in every template of every environment, carries the confused-deputy conditions
its service documents (cdk_constructs/governance/trust_conditions.py), or its service is listed as unconditioned with a
reason."""

from __future__ import annotations

import json
from typing import Any

from cdk_constructs.governance.trust_conditions import (
    ADDON_NAMESPACES,
    EXEMPTION_METADATA,
    POD_IDENTITY,
    SOURCE_ARN_PATTERNS,
    UNCONDITIONED,
)

from .conftest import Synth

PARTITION = {"Ref": "AWS::Partition"}


def _services(statement: dict[str, Any]) -> list[str]:
    principal = statement.get("Principal", {})
    services = principal.get("Service", []) if isinstance(principal, dict) else []
    return [services] if isinstance(services, str) else list(services)


def _roles(synth: Synth) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (stack, lid, r)
        for stack, template in synth.templates.items()
        for lid, r in template["Resources"].items()
        if r["Type"] == "AWS::IAM::Role"
    ]


def _associations(template: dict[str, Any], role_id: str) -> list[dict[str, Any]]:
    """Pod Identity associations using the role: standalone ones and those of EKS add-ons (in the add-on's
    namespace, None when unknown)."""
    arn = {"Fn::GetAtt": [role_id, "Arn"]}
    out = [
        r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::EKS::PodIdentityAssociation" and r["Properties"]["RoleArn"] == arn
    ]
    for r in template["Resources"].values():
        if r["Type"] == "AWS::EKS::Addon":
            for a in r["Properties"].get("PodIdentityAssociations", []):
                if a["RoleArn"] == arn:
                    out.append(
                        {
                            "Namespace": ADDON_NAMESPACES.get(r["Properties"]["AddonName"]),
                            "ServiceAccount": a["ServiceAccount"],
                            "ClusterName": r["Properties"]["ClusterName"],
                        }
                    )
    return out


def test_every_service_role_is_conditioned_or_explained(env_synth: Synth) -> None:
    account, region = env_synth.config.account, env_synth.config.region
    seen: set[str] = set()
    problems = []
    exempt = []
    for stack, role_id, role in _roles(env_synth):
        reason = role.get("Metadata", {}).get(EXEMPTION_METADATA)
        if reason:
            exempt.append(f"{stack}/{role_id}")
            assert len(reason) >= 40 and not role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0].get(
                "Condition"
            ), role_id
            continue
        for statement in role["Properties"]["AssumeRolePolicyDocument"]["Statement"]:
            condition = statement.get("Condition", {})
            for service in _services(statement):
                seen.add(service)
                where = f"{stack}/{role_id} trusts {service}"
                if service in SOURCE_ARN_PATTERNS:
                    arn = {
                        "Fn::Join": [
                            "",
                            [
                                "arn:",
                                PARTITION,
                                ":" + SOURCE_ARN_PATTERNS[service].format(region=region, account=account),
                            ],
                        ]
                    }
                    if condition.get("StringEquals", {}).get("aws:SourceAccount") != account:
                        problems.append(f"{where} without aws:SourceAccount {account}")
                    source_arn = condition.get("ArnLike", {}).get("aws:SourceArn")
                    if arn != source_arn and arn not in (source_arn if isinstance(source_arn, list) else []):
                        problems.append(f"{where}: aws:SourceArn {json.dumps(source_arn)} is not {json.dumps(arn)}")
                elif service == POD_IDENTITY:
                    assocs = _associations(env_synth.templates[stack], role_id)
                    if not assocs:
                        problems.append(f"{where} but no Pod Identity association in its stack uses it")
                        continue
                    tags = condition.get("StringEquals", {})
                    for key, attr in (
                        ("kubernetes-namespace", "Namespace"),
                        ("kubernetes-service-account", "ServiceAccount"),
                        ("eks-cluster-name", "ClusterName"),
                    ):
                        if any(a[attr] is None for a in assocs):  # add-on of unknown namespace: no such tag
                            continue
                        want = sorted({json.dumps(a[attr], sort_keys=True) for a in assocs})
                        got = tags.get(f"aws:RequestTag/{key}")
                        got = sorted(json.dumps(g, sort_keys=True) for g in (got if isinstance(got, list) else [got]))
                        if got != want:
                            problems.append(f"{where}: aws:RequestTag/{key} {got} is not its associations' {want}")
                elif service not in UNCONDITIONED:
                    problems.append(f"{where}: no documented condition and not in UNCONDITIONED")
    assert not problems, "\n".join(problems)
    assert {POD_IDENTITY, "sagemaker.amazonaws.com"} <= seen  # the walk found the roles the issue names
    assert [e.split("/")[1].startswith("HyperPodExecutionRole") for e in exempt] == [True]  # the only exemption
    stale = set(UNCONDITIONED) - seen
    assert not stale, f"UNCONDITIONED lists services no role trusts any more: {stale}"


def test_a_team_role_trusts_only_its_own_namespace(env_synth: Synth) -> None:
    """The Pod Identity role of each team is assumable only for its namespace's `training` service account."""
    compute = env_synth.templates["compute"]
    for team in env_synth.config.kubernetes.teams:
        ids = [
            r["Properties"]["RoleArn"]["Fn::GetAtt"][0]
            for r in compute["Resources"].values()
            if r["Type"] == "AWS::EKS::PodIdentityAssociation" and r["Properties"]["Namespace"] == team.namespace
        ]
        assert len(ids) == 1
        statement = compute["Resources"][ids[0]]["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]
        tags = statement["Condition"]["StringEquals"]
        assert tags["aws:RequestTag/kubernetes-namespace"] == team.namespace
        assert tags["aws:RequestTag/kubernetes-service-account"] == "training"
        others = {t.namespace for t in env_synth.config.kubernetes.teams} - {team.namespace}
        assert all(f'"{o}"' not in json.dumps(tags) for o in others)  # no other team's namespace


def _tiny_app(apply: str) -> dict[str, Any]:
    """A stack of a SageMaker role, a Pod Identity role with its association (aws_eks_v2's L1) and a Lambda role,
    given the conditions by ``apply`` ("walk": ServiceTrustConditions.apply_to, as app.py does; "aspect")."""
    import aws_cdk as cdk
    from aws_cdk import aws_eks_v2 as eks
    from aws_cdk import aws_iam as iam
    from aws_cdk.assertions import Template

    from cdk_constructs.governance.trust_conditions import ServiceTrustConditions

    app = cdk.App()
    stack = cdk.Stack(app, "Tiny", env=cdk.Environment(account="123456789012", region="eu-west-1"))
    iam.Role(stack, "SageMaker", assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"))
    team = iam.Role(stack, "Team", assumed_by=iam.ServicePrincipal(POD_IDENTITY).with_session_tags())
    eks.CfnPodIdentityAssociation(
        stack, "Association", cluster_name="c", namespace="team-a", service_account="runner", role_arn=team.role_arn
    )
    iam.Role(stack, "Function", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    if apply == "walk":
        ServiceTrustConditions().apply_to(app)
    else:
        cdk.Aspects.of(app).add(ServiceTrustConditions())
    roles = Template.from_stack(stack).find_resources("AWS::IAM::Role")
    return {
        lid.rstrip("0123456789ABCDEF"): r["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        for lid, r in roles.items()
    }


def test_applied_once_or_as_an_aspect_the_conditions_are_the_same() -> None:
    walked, aspect = _tiny_app("walk"), _tiny_app("aspect")
    assert walked == aspect
    (sagemaker,) = walked["SageMaker"]
    assert sagemaker["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert sagemaker["Condition"]["ArnLike"]["aws:SourceArn"] == {
        "Fn::Join": [
            "",
            [
                "arn:",
                PARTITION,
                ":" + SOURCE_ARN_PATTERNS["sagemaker.amazonaws.com"].format(region="eu-west-1", account="123456789012"),
            ],
        ]
    }
    tags = {k: v for s in walked["Team"] for k, v in s.get("Condition", {}).get("StringEquals", {}).items()}
    assert tags == {
        "aws:RequestTag/kubernetes-service-account": "runner",
        "aws:RequestTag/eks-cluster-name": "c",
        "aws:RequestTag/kubernetes-namespace": "team-a",
    }
    assert all("Condition" not in s for s in walked["Function"])  # lambda.amazonaws.com: UNCONDITIONED
    assert "lambda.amazonaws.com" in UNCONDITIONED
