"""Existing-cluster mode (issue 36): every config/existing/<name>.yaml synthesizes its Studio stack offline, clean under
cfn-lint and cdk-nag, on the imported cluster and file system (nothing of theirs is created), with the partitions Job,
the FSx interface custom resource and the profiles' FSx paths derived from the configuration; bad configurations are
refused with every problem at once, naming field, value and fix."""

from __future__ import annotations

import copy
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
import yaml
from syrupy.extensions.json import JSONSnapshotExtension

import app as platform_app
from cdk_constructs.compute.fsx_directories import partition_script
from config import (
    EXISTING_DIR,
    ConfigError,
    ExistingClusterConfig,
    known_existing,
    load_existing_config,
    parse_existing_config,
)
from config.existing import kubectl_layer_versions
from k8s_charts.team_storage import platform_directories, team_fs_path

from .conftest import _TMP, CDK_CONTEXT, ENVIRONMENTS, ROOT, deep_merge
from .test_compliance import NAG_PLUGIN
from .test_snapshots import mask

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

EXISTING = tuple(known_existing())
# What the existing-cluster mode must never create: the cluster, its network and its file system.
OWNED_ELSEWHERE = (
    "AWS::EC2::VPC",
    "AWS::EC2::Subnet",
    "AWS::EC2::RouteTable",
    "AWS::EC2::NatGateway",
    "AWS::EKS::Cluster",
    "AWS::EKS::Nodegroup",
    "AWS::EKS::Addon",
    "AWS::FSx::FileSystem",
    "AWS::SageMaker::Cluster",
    "AWS::S3::Bucket",
)


class Existing:
    def __init__(self, config: ExistingClusterConfig, outdir: Path) -> None:
        self.config, self.outdir = config, outdir
        self.app = cdk.App(
            outdir=str(outdir),
            context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []},
            builtin_cloud_formation_validation=False,
        )
        self.stacks = platform_app.build_existing(self.app, config)
        self.stack = self.stacks["studio"]
        self.error = None
        try:
            self.app.synth()
        except RuntimeError as exc:  # cdk-nag findings fail synthesis; the test reports them
            self.error = str(exc)
        self.template = json.loads((outdir / self.stack.template_file).read_text())
        self.path = outdir / self.stack.template_file

    def of_type(self, type_: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.template["Resources"].items() if v["Type"] == type_}

    def manifests(self) -> list[dict[str, Any]]:
        out = []
        for res in self.of_type("Custom::AWSCDK-EKS-KubernetesResource").values():
            out += json.loads(res["Properties"]["Manifest"])
        return out


_CACHE: dict[str, Existing] = {}


def synth(name: str, overrides: dict[str, Any] | None = None) -> Existing:
    key = name + json.dumps(overrides or {}, sort_keys=True)
    if key not in _CACHE:
        data = deep_merge(yaml.safe_load((EXISTING_DIR / f"{name}.yaml").read_text()), overrides or {})
        config = parse_existing_config(name, data, source=f"config/existing/{name}.yaml+overrides")
        _CACHE[key] = Existing(config, _TMP / f"existing-{name}-{len(_CACHE)}")
    return _CACHE[key]


# Every shipped deployment, and the first one with every option the example leaves off switched on.
VARIANTS = [(name, None) for name in EXISTING] + [
    (
        EXISTING[0],
        {
            "kubernetes": {"team_access": True},
            "studio": {"fsx_mode": "shared"},
            "partition_job_node_selector": {"example.com/node-role": "fsx-client"},
        },
    )
]


@pytest.fixture(scope="module", params=VARIANTS, ids=lambda v: v[0] + ("+options" if v[1] else ""))
def existing(request: pytest.FixtureRequest) -> Existing:
    return synth(*request.param)


def test_an_example_ships() -> None:
    assert EXISTING, "config/existing/ holds no deployment; the example documents the mode"


# --- compliance --------------------------------------------------------------------------------------------------
def test_cfn_lint_is_clean(existing: Existing) -> None:
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    proc = subprocess.run(
        [str(cfn_lint), "--format", "parseable", str(existing.path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and not proc.stdout.strip(), f"cfn-lint findings:\n{proc.stdout}{proc.stderr}"


def test_cdk_nag_has_no_unacknowledged_findings(existing: Existing) -> None:
    path = existing.outdir / "validation-report.json"
    report = json.loads(path.read_text()) if path.exists() else {"pluginReports": []}
    findings = [
        f"{v['ruleName']} at {c['constructPath']}"
        for p in report["pluginReports"]
        if p["pluginName"] == NAG_PLUGIN
        for v in p["violations"]
        for c in v["violatingConstructs"]
    ]
    assert not findings, "unacknowledged cdk-nag findings:\n" + "\n".join(findings)
    assert existing.error is None, existing.error


@pytest.mark.parametrize("name", EXISTING)
def test_snapshot(name: str, snapshot) -> None:
    got = synth(name)
    assert mask(got.template) == snapshot.use_extension(JSONSnapshotExtension)(name=f"existing-{name}-studio")


# --- what it imports and what it creates -------------------------------------------------------------------------
def test_only_the_studio_stack_and_nothing_the_cluster_owns(existing: Existing) -> None:
    assert list(existing.stacks) == ["studio"]
    assert existing.stack.stack_name == f"{existing.config.stack_prefix}-Studio"
    created = sorted({r["Type"] for r in existing.template["Resources"].values()} & set(OWNED_ELSEWHERE))
    assert not created, f"existing-cluster mode created {created}"


def test_domain_on_the_configured_vpc_subnets_and_a_lustre_group(existing: Existing) -> None:
    cfg = existing.config
    ((_, domain),) = existing.of_type("AWS::SageMaker::Domain").items()
    assert domain["Properties"]["VpcId"] == cfg.vpc_id
    assert domain["Properties"]["SubnetIds"] == [s.id for s in cfg.subnets]
    ((group_id, _),) = existing.of_type("AWS::EC2::SecurityGroup").items()
    assert domain["Properties"]["DefaultUserSettings"]["SecurityGroups"] == [{"Fn::GetAtt": [group_id, "GroupId"]}]
    self_rules = {
        (r["Properties"]["FromPort"], r["Properties"]["ToPort"])
        for r in existing.of_type("AWS::EC2::SecurityGroupIngress").values()
        if r["Properties"]["GroupId"] == r["Properties"].get("SourceSecurityGroupId")
        and r["Properties"]["IpProtocol"] == "tcp"
    }
    # FSx for Lustre User Guide, "File system access control with Amazon VPC": TCP 988 and 1018-1023; NFS for the
    # domain's home volume.
    assert {(988, 988), (1018, 1023), (2049, 2049)} <= self_rules


def test_the_custom_resource_adds_that_group_to_the_configured_file_system(existing: Existing) -> None:
    ((_, resource),) = existing.of_type("Custom::FsxNetworkInterfaces").items()
    ((group_id, _),) = existing.of_type("AWS::EC2::SecurityGroup").items()
    assert resource["Properties"]["FileSystemId"] == existing.config.file_system.id
    assert resource["Properties"]["SecurityGroupId"] == {"Fn::GetAtt": [group_id, "GroupId"]}


def test_profiles_mount_their_partition_of_the_existing_file_system(existing: Existing) -> None:
    cfg = existing.config
    teams = {t.name: t for t in cfg.kubernetes.teams}
    profiles = {r["Properties"]["UserProfileName"]: r for r in existing.of_type("AWS::SageMaker::UserProfile").values()}
    assert sorted(profiles) == sorted(p.name for p in cfg.studio.user_profiles)
    wait = next(k for k in existing.template["Resources"] if k.startswith("FsxDirectoriesSucceeded"))
    access = next(iter(existing.of_type("Custom::FsxNetworkInterfaces")))
    for p in cfg.studio.user_profiles:
        settings = profiles[p.name]["Properties"]["UserSettings"]
        (fs_config,) = settings["CustomFileSystemConfigs"]
        assert fs_config["FSxLustreFileSystemConfig"] == {
            "FileSystemId": cfg.file_system.id,
            "FileSystemPath": team_fs_path(teams[p.team]),
        }
        assert settings["CustomPosixUserConfig"] == {"Uid": cfg.studio.uid_of(p), "Gid": teams[p.team].posix_gid}
        assert {wait, access} <= set(profiles[p.name]["DependsOn"]), "profile created before its directory"


def test_partitions_job_creates_every_directory_on_a_static_volume_of_the_existing_file_system(
    existing: Existing,
) -> None:
    cfg = existing.config
    docs = existing.manifests()
    (pv,) = [d for d in docs if d["kind"] == "PersistentVolume"]
    assert pv["spec"]["csi"]["volumeHandle"] == cfg.file_system.id
    assert pv["spec"]["csi"]["volumeAttributes"] == {
        "dnsname": cfg.file_system.dns_name,
        "mountname": cfg.file_system.mount_name,
    }
    (job,) = [d for d in docs if d["kind"] == "Job"]
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[-1] == partition_script(platform_directories(cfg))
    assert job["spec"]["template"]["spec"].get("nodeSelector", {}) == cfg.partition_job_node_selector
    users = {p.name for p in cfg.studio.user_profiles}
    private = {d.path.rsplit("/", 1)[1] for d in platform_directories(cfg) if "/users/" in d.path}
    assert private == (users if cfg.studio.fsx_mode == "per-user" else set())


def test_shared_mode_has_no_private_directories() -> None:
    got = synth(EXISTING[0], {"studio": {"fsx_mode": "shared"}})
    script = next(d for d in got.manifests() if d["kind"] == "Job")["spec"]["template"]["spec"]["containers"][0]
    assert "/users/" not in script["command"][-1]
    for p in got.config.studio.user_profiles:
        assert f"users/{p.name}" not in script["command"][-1]


def test_kubectl_reaches_the_existing_cluster_through_an_access_entry_of_its_own(existing: Existing) -> None:
    cfg = existing.config
    entries = existing.of_type("AWS::EKS::AccessEntry")
    assert {e["Properties"]["ClusterName"] for e in entries.values()} == {cfg.cluster_name}
    (admin,) = [e for e in entries.values() if e["Properties"]["AccessPolicies"]]
    role = admin["Properties"]["PrincipalArn"]["Fn::GetAtt"][0]
    (handler,) = [
        f
        for f in existing.of_type("AWS::Lambda::Function").values()
        if f["Properties"]["Role"] == {"Fn::GetAtt": [role, "Arn"]}
    ]
    assert handler["Properties"]["VpcConfig"] == {
        "SecurityGroupIds": [cfg.eks_cluster.security_group_id],
        "SubnetIds": [s.id for s in cfg.subnets],
    }
    manifests = [
        k for k, r in existing.template["Resources"].items() if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
    ]
    admin_id = next(k for k, e in entries.items() if e is admin)
    for key in manifests:
        assert admin_id in existing.template["Resources"][key]["DependsOn"], f"{key} applied before kubectl may"
    # one entry per user, with the team's group only
    users = [e for e in entries.values() if not e["Properties"]["AccessPolicies"]]
    assert len(users) == len(cfg.studio.user_profiles)


def test_lifecycle_configurations_target_the_existing_cluster(existing: Existing) -> None:
    cfg = existing.config
    for team, lcc in existing.stack.lifecycle_configs.items():
        settings = dict(re.findall(r"^(PLATFORM_[A-Z_]+)=(\S+)$", lcc.content, re.M))
        namespace = next(t.namespace for t in cfg.kubernetes.teams if t.name == team)
        assert {k: shlex.split(v)[0] for k, v in settings.items() if k != "PLATFORM_CLI_S3_URI"} == {
            "PLATFORM_ENV": cfg.name,
            "PLATFORM_REGION": cfg.region,
            "PLATFORM_CLUSTER_NAME": cfg.cluster_name,
            "PLATFORM_NAMESPACE": namespace,
            "PLATFORM_KUBERNETES_VERSION": cfg.kubernetes_version,
        }
        assert "MLFLOW_URI" not in lcc.content.split("\n#", 1)[0]


def test_team_access_applies_the_platform_role_and_binding_only_when_asked() -> None:
    from k8s_charts.team_namespaces import TEAM_MEMBER_ROLE, team_member_rules
    from k8s_charts.values import team_group

    base = synth(EXISTING[0], {"kubernetes": {"team_access": False}})
    assert not [d for d in base.manifests() if d["kind"] in ("Role", "RoleBinding")]
    got = synth(EXISTING[0], {"kubernetes": {"team_access": True}})
    docs = got.manifests()
    rules = [
        {"apiGroups": list(r.api_groups), "resources": list(r.resources), "verbs": list(r.verbs)}
        for r in team_member_rules()
    ]
    for team in got.config.kubernetes.teams:
        (role,) = [d for d in docs if d["kind"] == "Role" and d["metadata"]["namespace"] == team.namespace]
        (binding,) = [d for d in docs if d["kind"] == "RoleBinding" and d["metadata"]["namespace"] == team.namespace]
        assert role["metadata"]["name"] == TEAM_MEMBER_ROLE and role["rules"] == rules
        assert binding["roleRef"]["name"] == TEAM_MEMBER_ROLE
        assert [s["name"] for s in binding["subjects"]] == [team_group(team.name)]
    resources = got.template["Resources"]
    access = [k for k in resources if k.startswith("TeamAccess")]
    assert len(access) == len(got.config.kubernetes.teams)
    for profile in got.of_type("AWS::SageMaker::UserProfile").values():
        assert set(access) & set(profile["DependsOn"])


def test_bumping_the_access_revision_reruns_the_custom_resource() -> None:
    first = synth(EXISTING[0], {"file_system": {"access_revision": 1}})
    second = synth(EXISTING[0], {"file_system": {"access_revision": 2}})
    ((_, a),) = first.of_type("Custom::FsxNetworkInterfaces").items()
    ((_, b),) = second.of_type("Custom::FsxNetworkInterfaces").items()
    assert a["Properties"]["Revision"] != b["Properties"]["Revision"]


def test_profiles_get_no_s3_permission_without_a_data_bucket(existing: Existing) -> None:
    for policy in existing.of_type("AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            assert statement.get("Sid") not in ("ListTeamPrefix", "ReadWriteTeamPrefix", "DataKeyThroughS3")


# --- configuration ------------------------------------------------------------------------------------------------
def _raw(name: str | None = None) -> dict[str, Any]:
    return yaml.safe_load((EXISTING_DIR / f"{name or EXISTING[0]}.yaml").read_text())


def _refused(overrides: dict[str, Any], *patterns: str, replace: dict[str, Any] | None = None) -> str:
    data = deep_merge(_raw(), overrides)
    data.update(copy.deepcopy(replace or {}))
    with pytest.raises(ConfigError) as info:
        parse_existing_config(EXISTING[0], data, source="config/existing/x.yaml")
    message = str(info.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in:\n{message}"
    assert "Traceback" not in message
    return message


def test_the_shipped_example_loads() -> None:
    for name in EXISTING:
        assert load_existing_config(name).name == name


def test_formats_are_refused_each_naming_field_value_and_fix_all_at_once() -> None:
    message = _refused(
        {
            "eks_cluster": {"security_group_id": "sg-12", "name": "-bad"},
            "vpc_id": "vpc-xyz",
            "file_system": {"id": "fs-12", "mount_name": "far-too-long", "dns_name": "example.com"},
            "hyperpod_cluster": "arn:aws:sagemaker:us-east-1:123456789012:cluster/UPPER",
        },
        r"eks_cluster\.security_group_id 'sg-12' is not an EC2 sg ID; use 'sg-' and 8 or 17 hexadecimal",
        r"eks_cluster\.name '-bad' is not an EKS cluster name",
        r"vpc_id 'vpc-xyz' is not an EC2 vpc ID",
        r"file_system\.id 'fs-12' is not an FSx file system ID; use 'fs-'",
        r"file_system\.mount_name 'far-too-long' is not a Lustre mount name",
        r"file_system\.dns_name 'example\.com' is not an FSx DNS name",
        r"hyperpod_cluster 'arn:aws:sagemaker:us-east-1:123456789012:cluster/UPPER' is neither",
    )
    assert message.count("\n  - ") == 7


def test_resources_of_another_account_or_region_are_refused_all_at_once() -> None:
    raw = _raw()
    other_account = str(int(raw["account"]) + 1).zfill(12)
    region = raw["region"]
    other_region = "eu-west-1" if region != "eu-west-1" else "us-east-1"
    fs = raw["file_system"]["id"]
    message = _refused(
        {
            "hyperpod_cluster": f"arn:aws:sagemaker:{other_region}:{other_account}:cluster/abcdef123456",
            "eks_cluster": {"name": f"arn:aws:eks:{region}:{other_account}:cluster/x"},
            "file_system": {"dns_name": f"{fs}.fsx.{other_region}.amazonaws.com"},
        },
        rf"hyperpod_cluster .* is in account {other_account}, not account {raw['account']}",
        rf"hyperpod_cluster .* is in region {other_region}, not region {region}",
        rf"eks_cluster\.name .* is in account {other_account}",
        rf"file_system\.dns_name .* is not the DNS name of {fs} in {region}",
        replace={"subnets": [{"id": "subnet-0123456789abcdef0", "availability_zone": f"{other_region}a"}]},
    )
    assert re.search(rf"subnets\[\]\.availability_zone \['{other_region}a'\] are not AZs of region '{region}'", message)


def test_a_kubernetes_version_without_a_kubectl_layer_is_refused() -> None:
    known = kubectl_layer_versions()
    unpinned = f"1.{max(int(v.split('.')[1]) for v in known) + 1}"
    _refused(
        {"eks_cluster": {"kubernetes_version": unpinned}},
        rf"eks_cluster\.kubernetes_version '{re.escape(unpinned)}' has no kubectl layer pinned",
        re.escape(", ".join(known)),
    )


def test_teams_users_and_unknown_keys() -> None:
    raw = _raw()
    team = raw["kubernetes"]["teams"][0]
    _refused(
        {"studio": {"user_profiles": [{"name": "a-user", "team": "no-such-team"}]}},
        r"studio\.user_profiles\[a-user\]\.team 'no-such-team' is not a team",
    )
    _refused({"colour": "blue"}, r"colour: unknown key .* known keys here: .*eks_cluster")
    _refused(
        {},
        r"kubernetes\.teams\[copy\]\.posix_gid .* is also the posix_gid of team",
        replace={"kubernetes": {"teams": [team, {**team, "name": "copy", "posix_uid": team["posix_uid"] + 1}]}},
    )
    _refused({"studio": {"enabled": False}}, r"studio\.enabled false")


def test_a_missing_section_names_it() -> None:
    data = _raw()
    del data["file_system"]
    with pytest.raises(ConfigError, match=r"file_system: required field is missing"):
        parse_existing_config(EXISTING[0], data, source="config/existing/x.yaml")


def test_unknown_deployment_and_name_clash_with_an_environment(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError,
        match=r"unknown existing-cluster deployment 'nope0' .* known ones are: " + re.escape(", ".join(EXISTING)),
    ):
        load_existing_config("nope0")
    clash = ENVIRONMENTS[0]
    (tmp_path / f"{clash}.yaml").write_text((EXISTING_DIR / f"{EXISTING[0]}.yaml").read_text())
    with pytest.raises(
        ConfigError,
        match=rf"existing-cluster name '{clash}' is also the environment "
        rf"config/{clash}\.yaml",
    ):
        load_existing_config(clash, existing_dir=tmp_path)


def test_docs_list_every_key_of_the_existing_cluster_model() -> None:
    from config.__main__ import EXISTING_END, EXISTING_START, existing_reference

    text = (ROOT / "docs" / "studio.md").read_text()
    section = text.split(EXISTING_START, 1)[1].split(EXISTING_END, 1)[0]
    assert section.strip() == existing_reference().strip(), "docs/studio.md's key table is stale: run `make docs`"
