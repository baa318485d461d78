"""Fine-grained assertions for `<Env>-Storage`."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3

from cdk_constructs.storage.shared_file_system import SharedFileSystem

from .conftest import Synth
from .test_network import lid


def test_kms_key_rotates_and_is_retained(env_synth: Synth) -> None:
    keys = list(env_synth.resources("storage", "AWS::KMS::Key").values())
    assert len(keys) == 1
    assert keys[0]["Properties"]["EnableKeyRotation"] is True
    assert (keys[0]["DeletionPolicy"], keys[0]["UpdateReplacePolicy"]) == ("RetainExceptOnCreate", "Retain")


def test_key_admits_fsx_s3_link_role_only_through_s3(env_synth: Synth) -> None:
    key = next(iter(env_synth.resources("storage", "AWS::KMS::Key").values()))
    stmt = next(s for s in key["Properties"]["KeyPolicy"]["Statement"] if s.get("Sid") == "FsxDataRepositoryThroughS3")
    assert stmt["Condition"]["StringEquals"]["kms:ViaService"] == {
        "Fn::Join": ["", ["s3.", {"Ref": "AWS::Region"}, ".amazonaws.com"]]
    }
    arn = "".join(
        p if isinstance(p, str) else "" for p in stmt["Condition"]["ArnLike"]["aws:PrincipalArn"]["Fn::Join"][1]
    )
    assert arn.endswith("/s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_fs-*")


def test_buckets_baseline(env_synth: Synth) -> None:
    stack = env_synth.stacks["storage"]
    res = env_synth.templates["storage"]["Resources"]
    key_id = lid(stack.key)
    for bucket in (stack.data_bucket, stack.artifacts_bucket, stack.access_logs_bucket):
        props = res[lid(bucket)]["Properties"]
        assert props["VersioningConfiguration"] == {"Status": "Enabled"}
        assert props["PublicAccessBlockConfiguration"] == {
            "BlockPublicAcls": True,
            "BlockPublicPolicy": True,
            "IgnorePublicAcls": True,
            "RestrictPublicBuckets": True,
        }
        rule = props["LifecycleConfiguration"]["Rules"][0]
        assert (
            rule["NoncurrentVersionExpiration"]["NoncurrentDays"]
            == env_synth.config.storage.s3.noncurrent_version_expiration_days
        )
        assert (
            rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"]
            == env_synth.config.storage.s3.abort_incomplete_multipart_upload_days
        )
        sse = props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
        if bucket is stack.access_logs_bucket:
            assert sse == {"SSEAlgorithm": "AES256"}  # log targets support SSE-S3 only
        else:
            assert sse["SSEAlgorithm"] == "aws:kms" and sse["KMSMasterKeyID"] == {"Fn::GetAtt": [key_id, "Arn"]}
            assert props["LoggingConfiguration"]["DestinationBucketName"] == {"Ref": lid(stack.access_logs_bucket)}


def test_buckets_deny_insecure_transport(env_synth: Synth) -> None:
    """Every bucket of the stack (whatever their number) has a policy that denies requests without TLS."""
    buckets = set(env_synth.resources("storage", "AWS::S3::Bucket"))
    stack = env_synth.stacks["storage"]
    assert {lid(b) for b in (stack.data_bucket, stack.artifacts_bucket, stack.access_logs_bucket)} <= buckets
    tls_only = set()
    for p in env_synth.resources("storage", "AWS::S3::BucketPolicy").values():
        denies = [s for s in p["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
        if any(s["Condition"].get("Bool", {}).get("aws:SecureTransport") == "false" for s in denies):
            tls_only.add(p["Properties"]["Bucket"]["Ref"])
    assert tls_only == buckets, f"buckets without a TLS-only policy: {sorted(buckets - tls_only)}"


def test_lustre_file_system(env_synth: Synth) -> None:
    fsx_cfg = env_synth.config.storage.fsx
    network = env_synth.stacks["network"]
    fs = next(iter(env_synth.resources("storage", "AWS::FSx::FileSystem").values()))
    props = fs["Properties"]
    lustre = props["LustreConfiguration"]
    assert lustre["DeploymentType"] == "PERSISTENT_2"
    assert lustre["DataCompressionType"] == "LZ4"
    assert lustre["PerUnitStorageThroughput"] == fsx_cfg.throughput_mib_per_tib
    assert lustre["AutomaticBackupRetentionDays"] == fsx_cfg.backup_retention_days
    assert props["StorageCapacity"] == fsx_cfg.storage_capacity_gib
    assert props["KmsKeyId"] == {"Ref": lid(env_synth.stacks["storage"].key)}
    assert (fs["DeletionPolicy"], fs["UpdateReplacePolicy"]) == ("RetainExceptOnCreate", "Retain")
    # Subnet and group are the network stack's HyperPod subnet and FSx group (cross-stack references).
    assert lid(network.hyperpod.subnet.node.default_child) in str(props["SubnetIds"])
    assert lid(network.security_groups.fsx) in str(props["SecurityGroupIds"])


def test_backups_per_environment(dev: Synth, prod: Synth) -> None:
    def retention(s: Synth) -> int:
        fs = next(iter(s.resources("storage", "AWS::FSx::FileSystem").values()))
        return fs["Properties"]["LustreConfiguration"]["AutomaticBackupRetentionDays"]

    assert retention(dev) == 0 and retention(prod) == 14


def test_one_data_repository_association_per_team(env_synth: Synth) -> None:
    """Each team's tree /teams/<team> is linked to its own prefix and nothing else is linked, so an export can only
    land in the prefix of the tree a file is in (no whole-bucket association)."""
    stack = env_synth.stacks["storage"]
    dras = env_synth.resources("storage", "AWS::FSx::DataRepositoryAssociation").values()
    bucket = {"Ref": lid(stack.data_bucket)}
    linked = {d["Properties"]["FileSystemPath"]: d for d in dras}
    teams = env_synth.config.kubernetes.teams
    assert set(linked) == {f"/teams/{t.name}" for t in teams}
    events = ["NEW", "CHANGED", "DELETED"]
    for team in teams:
        dra = linked[f"/teams/{team.name}"]
        props = dra["Properties"]
        assert props["DataRepositoryPath"] == {"Fn::Join": ["", ["s3://", bucket, f"/{team.data_prefix}"]]}
        assert props["BatchImportMetaDataOnCreate"] is True
        assert props["S3"] == {"AutoImportPolicy": {"Events": events}, "AutoExportPolicy": {"Events": events}}
        assert dra["DeletionPolicy"] == "RetainExceptOnCreate"


def test_data_repository_paths_follow_fsx_rules() -> None:
    """FSx refuses nesting file system paths and a ninth association per file system
    (CreateDataRepositoryAssociation)."""
    stack = cdk.Stack(cdk.App(), "T")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=1, nat_gateways=0)
    fs = SharedFileSystem(
        stack,
        "Fs",
        subnet=vpc.public_subnets[0],
        security_group=ec2.SecurityGroup(stack, "Sg", vpc=vpc),
        encryption_key=kms.Key(stack, "K"),
        data_bucket=s3.Bucket(stack, "B"),
    )
    fs.add_data_repository("A", file_system_path="/teams/a", s3_prefix="teams/a/")
    for path in ("/teams", "/teams/a/sub"):
        with pytest.raises(ValueError, match="nest"):
            fs.add_data_repository("X", file_system_path=path, s3_prefix="x/")
    for i in range(7):
        fs.add_data_repository(f"T{i}", file_system_path=f"/teams/t{i}", s3_prefix=f"teams/t{i}/")
    with pytest.raises(ValueError, match="at most 8 data repository associations"):
        fs.add_data_repository("Ninth", file_system_path="/teams/nine", s3_prefix="teams/nine/")


def test_ecr_repository(env_synth: Synth) -> None:
    repo = next(iter(env_synth.resources("storage", "AWS::ECR::Repository").values()))
    props = repo["Properties"]
    assert props["ImageScanningConfiguration"] == {"ScanOnPush": True}
    assert props["ImageTagMutability"] == "IMMUTABLE"
    assert props["EncryptionConfiguration"]["EncryptionType"] == "KMS"
    assert "tagStatus" in props["LifecyclePolicy"]["LifecyclePolicyText"]
    assert (
        f'"countNumber":{env_synth.config.storage.ecr.untagged_image_expiry_days}'
        in props["LifecyclePolicy"]["LifecyclePolicyText"]
    )
    assert repo["DeletionPolicy"] == "RetainExceptOnCreate"


def test_termination_protection_on_stateful_stacks_in_prod(dev: Synth, prod: Synth) -> None:
    assert prod.stacks["storage"].termination_protection is True
    assert dev.stacks["storage"].termination_protection is False
    assert prod.stacks["network"].termination_protection is False  # stateless: safe to replace


def test_storage_does_not_depend_on_compute(env_synth: Synth) -> None:
    deps = {d.stack_name for d in env_synth.stacks["storage"].dependencies}
    assert deps == {env_synth.stacks["network"].stack_name}
