"""`<Env>-Studio` template assertions: domain, FSx modes, lifecycle configurations, IAM, access entries, the FSx ENI
custom resource and the wait for the FSx directories Job."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cdk_constructs.compute.fsx_directories import NAMESPACE
from cdk_constructs.studio.studio_lifecycle_configs import render_script
from cdk_constructs.studio.studio_user_profile import StudioUserProfile
from config.studio import PARTITION_NAMESPACE

from .conftest import Synth, one_of_type, synthesize

SHELLCHECK = shutil.which("shellcheck") or str(Path(sys.executable).with_name("shellcheck"))

# The exact actions a Studio user's execution role holds (see cdk_constructs/studio/studio_user_profile.py).
USER_ROLE_ACTIONS = {
    "eks:DescribeCluster",
    "s3:ListBucket",
    "s3:GetObject",
    "s3:PutObject",
    "s3:DeleteObject",
    "s3:AbortMultipartUpload",
    "kms:Decrypt",
    "kms:GenerateDataKey",
    "ecr:BatchCheckLayerAvailability",
    "ecr:GetDownloadUrlForLayer",
    "ecr:BatchGetImage",
    "ecr:GetAuthorizationToken",
    "secretsmanager:GetSecretValue",
    "secretsmanager:DescribeSecret",
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:PutLogEvents",
}


def studio(synth: Synth) -> dict[str, Any]:
    assert "studio" in synth.templates, f"no Studio stack: {synth.error}"
    return synth.templates["studio"]["Resources"]


def of_type(resources: dict[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in resources.items() if v["Type"] == type_}


def one(resources: dict[str, Any], type_: str) -> tuple[str, dict[str, Any]]:
    return one_of_type(resources, type_)


def actions(statement: dict[str, Any]) -> set[str]:
    a = statement["Action"]
    return {a} if isinstance(a, str) else set(a)


def role_actions(resources: dict[str, Any], role_id: str) -> set[str]:
    out: set[str] = set()
    for policy in of_type(resources, "AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                out |= actions(statement)
    return out


def flatten(value: Any) -> str:
    """A CloudFormation string value with intrinsics replaced by <...> placeholders."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        return "".join(flatten(p) for p in value["Fn::Join"][1])
    return "<TOKEN>"


@pytest.fixture(
    scope="module",
    params=[("dev", None), ("prod", None), ("dev", "per-user"), ("prod", "shared")],
    ids=["dev-shared", "prod-per-user", "dev-per-user", "prod-shared"],
)
def any_mode(request: pytest.FixtureRequest) -> Synth:
    env, mode = request.param
    return synthesize(env, {"studio": {"fsx_mode": mode}} if mode else None)


# ---- domain --------------------------------------------------------------------------------------------------------


def test_every_mode_synthesizes_clean(any_mode: Synth) -> None:
    """cdk-nag and CloudFormation validation report nothing for the Studio stack (cfn-lint: test_compliance)."""
    name = f"{any_mode.config.stack_prefix}-Studio"
    assert any_mode.stacks["studio"].stack_name == name
    report = any_mode.validation_report or {"pluginReports": []}
    findings = [
        f"{v['ruleName']} at {c['constructPath']}"
        for plugin in report["pluginReports"]
        for v in plugin["violations"]
        for c in v["violatingConstructs"]
        if c["constructPath"].startswith(f"{name}/")
    ]
    assert not findings, "\n".join(findings)


def test_domain_is_vpc_only_iam_kms_with_idle_shutdown(env_synth: Synth) -> None:
    _, domain = one(studio(env_synth), "AWS::SageMaker::Domain")
    props = domain["Properties"]
    st = env_synth.config.studio
    assert props["AppNetworkAccessType"] == "VpcOnly"
    assert props["AuthMode"] == "IAM"
    assert "Fn::GetStackOutput" in json.dumps(props["KmsKeyId"]) and "EncryptionKey" in json.dumps(props["KmsKeyId"])
    assert len(props["SubnetIds"]) == len(env_synth.config.network.availability_zones)
    assert all("PrivateSubnet" in json.dumps(s) for s in props["SubnetIds"])
    settings = props["DefaultUserSettings"]
    assert len(settings["SecurityGroups"]) == 1 and "SecurityGroupsStudio" in json.dumps(settings["SecurityGroups"])
    assert settings["CustomPosixUserConfig"] == {"Uid": st.posix_uid, "Gid": st.posix_gid}
    for app in ("JupyterLabAppSettings", "CodeEditorAppSettings"):
        idle = settings[app]["AppLifecycleManagement"]["IdleSettings"]
        assert idle == {
            "LifecycleManagement": "ENABLED",
            "IdleTimeoutInMinutes": st.idle_timeout_minutes,
            "MinIdleTimeoutInMinutes": 60,
            "MaxIdleTimeoutInMinutes": st.max_idle_timeout_minutes,
        }
        assert settings[app]["DefaultResourceSpec"]["InstanceType"] == st.default_instance_type
    assert domain["DeletionPolicy"] == "RetainExceptOnCreate" and domain["UpdateReplacePolicy"] == "Retain"


# ---- FSx modes ---------------------------------------------------------------------------------------------------


def _fsx_configs(settings: dict[str, Any]) -> list[dict[str, Any]]:
    return [c["FSxLustreFileSystemConfig"] for c in settings.get("CustomFileSystemConfigs", [])]


def test_every_profile_mounts_its_teams_tree_as_its_team(any_mode: Synth) -> None:
    """Whatever the mode, a user mounts /teams/<team> (the /fsx of the team's jobs, k8s_charts/team_storage.py)
    with their uid and the team's gid, so what they write belongs to the team's group; the domain mounts nothing."""
    resources = studio(any_mode)
    st = any_mode.config.studio
    teams = {t.name: t for t in any_mode.config.kubernetes.teams}
    _, domain = one(resources, "AWS::SageMaker::Domain")
    assert _fsx_configs(domain["Properties"]["DefaultUserSettings"]) == []
    profiles = {
        p["Properties"]["UserProfileName"]: p["Properties"]["UserSettings"]
        for p in of_type(resources, "AWS::SageMaker::UserProfile").values()
    }
    assert set(profiles) == {p.name for p in st.user_profiles}
    for p in st.user_profiles:
        settings = profiles[p.name]
        configs = _fsx_configs(settings)
        assert [c["FileSystemPath"] for c in configs] == [f"/teams/{p.team}"]
        assert "LustreFileSystem" in json.dumps(configs[0]["FileSystemId"])
        assert settings["CustomPosixUserConfig"] == {"Uid": st.uid_of(p), "Gid": teams[p.team].posix_gid}


# ---- lifecycle configurations ----------------------------------------------------------------------------------------


def test_each_profile_runs_its_teams_lifecycle_configs(env_synth: Synth) -> None:
    resources = studio(env_synth)
    lccs = of_type(resources, "AWS::SageMaker::StudioLifecycleConfig")
    teams = {p.name: p.team for p in env_synth.config.studio.user_profiles}
    assert len(lccs) == 2 * len(set(teams.values()))
    for profile in of_type(resources, "AWS::SageMaker::UserProfile").values():
        name = profile["Properties"]["UserProfileName"]
        settings = profile["Properties"]["UserSettings"]
        for app, app_type in (("JupyterLabAppSettings", "JupyterLab"), ("CodeEditorAppSettings", "CodeEditor")):
            arn = settings[app]["DefaultResourceSpec"]["LifecycleConfigArn"]
            assert settings[app]["LifecycleConfigArns"] == [arn]
            lcc = lccs[arn["Fn::GetAtt"][0]]["Properties"]
            assert lcc["StudioLifecycleConfigAppType"] == app_type
            assert f"-{teams[name]}-" in lcc["StudioLifecycleConfigName"]
            content = flatten(lcc["StudioLifecycleConfigContent"]["Fn::Base64"])
            assert f"PLATFORM_NAMESPACE={teams[name]}\n" in content
            assert f"PLATFORM_CLUSTER_NAME={env_synth.config.cluster_name}\n" in content
            assert f"PLATFORM_KUBERNETES_VERSION={env_synth.config.compute.kubernetes_version}\n" in content
            assert "MLFLOW_URI=" in content and "MLFLOW_CREDENTIALS_SECRET_ARN=" in content
            assert "aws eks update-kubeconfig" in content


def test_rendered_lifecycle_script_is_shellcheck_clean_and_fits(env_synth: Synth) -> None:
    if not Path(SHELLCHECK).exists():
        pytest.skip("shellcheck not installed")
    lcc = next(iter(of_type(studio(env_synth), "AWS::SageMaker::StudioLifecycleConfig").values()))
    content = flatten(lcc["Properties"]["StudioLifecycleConfigContent"]["Fn::Base64"])
    assert len(base64.b64encode(content.encode())) < 16384
    proc = subprocess.run([SHELLCHECK, "-"], input=content, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout


def test_render_script_quotes_values() -> None:
    out = render_script({"PLATFORM_NAMESPACE": "team's ns", "MLFLOW_URI": "https://x"})
    assert out.startswith("#!/bin/bash\n# --- set by the <Env>-Studio stack ---\n")
    assert "PLATFORM_NAMESPACE='team'\"'\"'s ns'\n" in out and "export PLATFORM_NAMESPACE MLFLOW_URI\n" in out


# ---- user roles and access entries -----------------------------------------------------------------------------------


def test_user_roles_hold_exactly_the_documented_actions(env_synth: Synth) -> None:
    resources = studio(env_synth)
    for profile in of_type(resources, "AWS::SageMaker::UserProfile").values():
        role_id = profile["Properties"]["UserSettings"]["ExecutionRole"]["Fn::GetAtt"][0]
        assert role_actions(resources, role_id) == USER_ROLE_ACTIONS
        trust = resources[role_id]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert [{k: v for k, v in t.items() if k != "Condition"} for t in trust] == [
            {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}}
        ]
        # confused-deputy conditions: tests/test_trust_conditions.py
        assert trust[0]["Condition"]["StringEquals"] == {"aws:SourceAccount": env_synth.config.account}


def test_user_role_s3_access_is_the_team_prefix_only(env_synth: Synth) -> None:
    resources = studio(env_synth)
    teams = {t.name: t.data_prefix for t in env_synth.config.kubernetes.teams}
    for profile in of_type(resources, "AWS::SageMaker::UserProfile").values():
        team = next(t["Value"] for t in profile["Properties"]["Tags"] if t["Key"] == "platform/team")
        role_id = profile["Properties"]["UserSettings"]["ExecutionRole"]["Fn::GetAtt"][0]
        statements = [
            s
            for p in of_type(resources, "AWS::IAM::Policy").values()
            if {"Ref": role_id} in p["Properties"]["Roles"]
            for s in p["Properties"]["PolicyDocument"]["Statement"]
        ]
        # Besides the team prefix, the role reads exactly one platform object: the llmft CLI asset (by its hash).
        cli = [s for s in statements if s.get("Sid") == "ReadLlmftCli"]
        assert len(cli) == 1 and actions(cli[0]) == {"s3:GetObject"} and flatten(cli[0]["Resource"]).endswith(".zip")
        s3_objects = [s for s in statements if "s3:GetObject" in actions(s) and s.get("Sid") != "ReadLlmftCli"]
        assert len(s3_objects) == 1 and flatten(s3_objects[0]["Resource"]).endswith(f"/{teams[team]}*")
        listing = next(s for s in statements if "s3:ListBucket" in actions(s))
        assert listing["Condition"] == {"StringLike": {"s3:prefix": [teams[team], f"{teams[team]}*"]}}
        kms = next(s for s in statements if "kms:GenerateDataKey" in actions(s))
        assert kms["Condition"]["StringEquals"]["kms:ViaService"] == f"s3.{env_synth.config.region}.amazonaws.com"
        eks = next(s for s in statements if "eks:DescribeCluster" in actions(s))
        assert flatten(eks["Resource"]).endswith(f":cluster/{env_synth.config.cluster_name}")
        wildcard = [s for s in statements if s["Resource"] == "*"]
        assert [actions(s) for s in wildcard] == [{"ecr:GetAuthorizationToken"}]


def test_access_entries_carry_only_the_team_group(env_synth: Synth) -> None:
    """No EKS access policy (AmazonEKSEditPolicy gave pods, Services, NetworkPolicies...): the team's group only,
    bound in its namespace to the team-member Role (tests/test_team_guardrails.py)."""
    from k8s_charts.values import team_group

    resources = studio(env_synth)
    entries = of_type(resources, "AWS::EKS::AccessEntry")
    profiles = of_type(resources, "AWS::SageMaker::UserProfile")
    assert len(entries) == len(profiles) == len(env_synth.config.studio.user_profiles)
    by_role = {e["Properties"]["PrincipalArn"]["Fn::GetAtt"][0]: e["Properties"] for e in entries.values()}
    for profile in profiles.values():
        team = next(t["Value"] for t in profile["Properties"]["Tags"] if t["Key"] == "platform/team")
        entry = by_role[profile["Properties"]["UserSettings"]["ExecutionRole"]["Fn::GetAtt"][0]]
        assert not entry.get("AccessPolicies")
        assert entry["KubernetesGroups"] == [team_group(team)]
        assert "EksCluster" in json.dumps(entry["ClusterName"])


def test_user_profiles_are_retained(env_synth: Synth) -> None:
    for profile in of_type(studio(env_synth), "AWS::SageMaker::UserProfile").values():
        assert profile["DeletionPolicy"] == "RetainExceptOnCreate" and profile["UpdateReplacePolicy"] == "Retain"


# ---- FSx directories ----------------------------------------------------------------------------------------------


def test_profiles_wait_for_the_fsx_directories(env_synth: Synth) -> None:
    """The compute stack's FsxDirectories Job (tests/test_team_storage.py) runs before any profile is created."""
    studio_stack, compute = env_synth.stacks["studio"], env_synth.stacks["compute"]
    assert compute in studio_stack.dependencies
    profiles = [c for c in studio_stack.node.find_all() if isinstance(c, StudioUserProfile)]
    assert profiles
    waits = {d for p in profiles for d in p.node.dependencies}
    assert compute.fsx_directories.wait_handle in waits


def test_partition_namespace_is_the_one_the_config_reserves() -> None:
    assert NAMESPACE == PARTITION_NAMESPACE


def _allows(statement: dict, *, profile_arn: str, userid: str, principal_arn: str, principal_tags: dict) -> bool:
    """IAM evaluation of one Allow statement for CreatePresignedDomainUrl (StringLike/ArnLike with IAM wildcards;
    principal tags are in the request context but no condition of the policy may read them)."""
    import fnmatch

    def like(pattern: str, value: str) -> bool:
        return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))

    context = {
        "aws:userid": userid,
        "aws:PrincipalArn": principal_arn,
        **{f"aws:PrincipalTag/{k}": v for k, v in principal_tags.items()},
    }
    resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
    if not any(like(r, profile_arn) for r in resources):
        return False
    for operator, conditions in statement.get("Condition", {}).items():
        if operator not in ("StringLike", "ArnLike"):
            return False  # an operator this evaluator does not know: treat as not granting
        if not all(key in context and like(p, context[key]) for key, p in conditions.items()):
            return False
    return True


def test_presigned_url_policy_opens_only_ones_own_profile(env_synth: Synth) -> None:
    """Second red team, class 8: the policy bound each profile to a principal tag that a caller allowed
    sts:TagSession chooses. Now every statement allows one profile for one Identity Center user: the end of
    aws:userid (the session name Identity Center sets to the user name) of a session of an Identity Center role
    (aws:PrincipalArn); no condition reads a principal tag. Evaluated for every configured profile against its owner,
    another person, a forged tag and a non-Identity-Center role with a chosen session name."""
    resources = studio(env_synth)
    (policy,) = [
        r for r in of_type(resources, "AWS::IAM::ManagedPolicy").values() if "CreatePresignedDomainUrl" in json.dumps(r)
    ]
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    assert "PrincipalTag" not in json.dumps(statements)
    profiles = {p.name: p.session_name for p in env_synth.config.studio.user_profiles}
    account = env_synth.config.account
    sso_role = f"arn:aws:iam::{account}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_DataScientist_0123abcd"
    plain_role = f"arn:aws:iam::{account}:role/people"

    def arn(value) -> str:  # the statements' resources, with the domain id and partition tokens filled in
        text = json.dumps(value)
        return json.loads(text.replace('{"Ref": "AWS::Partition"}', '"aws"'))

    rendered = []
    for s in statements:
        resource = s["Resource"]
        if isinstance(resource, dict) and "Fn::Join" in resource:
            parts = resource["Fn::Join"][1]
            resource = "".join(
                p if isinstance(p, str) else {"Ref": "aws", "AWS::Partition": "aws"}.get(p.get("Ref", ""), "d-domain")
                for p in parts
            )
            resource = resource.replace("AWS::Region", env_synth.config.region)
        rendered.append({**s, "Resource": resource})
    assert len(rendered) == max(1, len(profiles))
    for name, owner in profiles.items():
        target = f"arn:aws:sagemaker:{env_synth.config.region}:{account}:user-profile/d-domain/{name}"

        def allowed(userid: str, principal: str, tags: dict, target: str = target) -> bool:
            return any(
                s["Effect"] == "Allow"
                and _allows(s, profile_arn=target, userid=userid, principal_arn=principal, principal_tags=tags)
                for s in rendered
            )

        assert allowed(f"AROAEXAMPLE:{owner}", sso_role, {})
        assert not allowed("AROAEXAMPLE:someone-else", sso_role, {"studio-user-profile": name})  # forged tag
        assert not allowed(f"AROAEXAMPLE:{owner}", plain_role, {"studio-user-profile": name})  # chosen session name
        assert not allowed(f"AROAEXAMPLE:x{owner}", sso_role, {})
    outputs = env_synth.templates["studio"]["Outputs"]
    assert any(k.startswith("OwnProfilePresignedUrlPolicyArn") for k in outputs)
