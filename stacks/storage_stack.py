"""`<Env>-Storage`: KMS key, S3 buckets, FSx for Lustre with its S3 link, ECR repositories and image builds."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from cdk_constructs.governance.compliance import skip_checkov
from cdk_constructs.governance.log_retention import retention
from cdk_constructs.storage.image_build import ImageBuildProject
from cdk_constructs.storage.platform_key import PlatformKey
from cdk_constructs.storage.secure_bucket import SecureBucket
from cdk_constructs.storage.shared_file_system import SharedFileSystem
from cdk_constructs.storage.training_image_repository import PlatformImageRepositories
from cdk_constructs.teams.team import Team
from config import EnvironmentConfig
from k8s_charts.images import IMAGE_NAMES, IMAGE_SOURCE_EXCLUDE, IMAGES, REPOSITORY_ROOT, build_project_name, image_tag

from ._base import PlatformStack


class StorageStack(PlatformStack):
    """Stateful data layer. Depends on the network only, so it never waits on EKS.

    Buckets: ``data`` (datasets, models, checkpoints, team prefixes; linked to FSx), ``artifacts`` (MLflow's
    artifact store: kept out of the FSx link so every job cannot see or overwrite it) and ``access_logs``
    (server access logs of both; SSE-S3, the only encryption a log target supports).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        file_system_subnet: ec2.ISubnet,
        file_system_security_group: ec2.ISecurityGroup,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            config=config,
            stateful=True,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): KMS, S3, FSx for Lustre, ECR, image builds",
        )
        self.key: kms.IKey = PlatformKey(self, "Encryption", alias=config.resource_prefix).key
        self._add_buckets(config)
        self._add_file_system(
            config, file_system_subnet=file_system_subnet, file_system_security_group=file_system_security_group
        )
        self._add_images(config)

    def _add_buckets(self, config: EnvironmentConfig) -> None:
        """The access-log bucket, then the KMS-encrypted data and artifacts buckets that log into it."""
        st = config.storage
        logs_bucket = SecureBucket(
            self,
            "AccessLogs",
            expiration_days=st.s3.access_logs_expiration_days,
            noncurrent_version_expiration_days=st.s3.noncurrent_version_expiration_days,
            abort_incomplete_multipart_upload_days=st.s3.abort_incomplete_multipart_upload_days,
        )
        self.access_logs_bucket: s3.IBucket = logs_bucket.bucket
        skip_checkov(
            self.access_logs_bucket,
            "CKV_AWS_18",
            "This is the server-access-log target; logging it into itself would loop",
        )

        def bucket(construct_id: str) -> s3.IBucket:
            return SecureBucket(
                self,
                construct_id,
                encryption_key=self.key,
                server_access_logs_bucket=self.access_logs_bucket,
                noncurrent_version_expiration_days=st.s3.noncurrent_version_expiration_days,
                abort_incomplete_multipart_upload_days=st.s3.abort_incomplete_multipart_upload_days,
            ).bucket

        self.data_bucket = bucket("Data")
        self.artifacts_bucket = bucket("Artifacts")

    def _add_file_system(
        self,
        config: EnvironmentConfig,
        *,
        file_system_subnet: ec2.ISubnet,
        file_system_security_group: ec2.ISecurityGroup,
    ) -> None:
        """FSx for Lustre linked to the data bucket, one data repository association per team."""
        st = config.storage
        self.file_system = SharedFileSystem(
            self,
            "Lustre",
            subnet=file_system_subnet,
            security_group=file_system_security_group,
            encryption_key=self.key,
            data_bucket=self.data_bucket,
            storage_capacity_gib=st.fsx.storage_capacity_gib,
            throughput_mib_per_tib=st.fsx.throughput_mib_per_tib,
            compression=st.fsx.compression,
            backup_retention_days=st.fsx.backup_retention_days,
            auto_import=st.fsx.auto_import,
            auto_export=st.fsx.auto_export,
        )
        # One association per team: /teams/<team> <-> s3://<data bucket>/<team prefix> (k8s_charts/team_storage.py).
        for team in Team.all(config.kubernetes.teams):
            team.data_repository(self.file_system)

    def _add_images(self, config: EnvironmentConfig) -> None:
        """The ECR repositories, the image source asset and one build project (with its URI output) per image."""
        st = config.storage
        self.training_images = PlatformImageRepositories(
            self,
            "Images",
            image_names=IMAGE_NAMES,
            name_prefix=config.resource_prefix,
            encryption_key=self.key,
            untagged_image_expiry_days=st.ecr.untagged_image_expiry_days,
        )
        # The build reads images/ and training/ only: one S3 asset of those folders feeds every image project.
        self.image_source = s3_assets.Asset(
            self, "ImageSource", path=str(REPOSITORY_ROOT), exclude=IMAGE_SOURCE_EXCLUDE
        )
        self.image_builds: dict[str, ImageBuildProject] = {}
        for name, image in IMAGES.items():
            build = self.image_builds[name] = ImageBuildProject(
                self,
                f"ImageBuild-{name}",
                image_name=name,
                dockerfile=image.dockerfile,
                image_tag=image_tag(name),
                repository=self.training_images.repositories[name].repository,
                source=self.image_source,
                encryption_key=self.key,
                log_retention=retention(st.ecr.build_log_retention_days),
                project_name=build_project_name(config, name),
                expected_build_minutes=image.expected_build_minutes,
            )
            CfnOutput(
                self,
                f"ImageUri-{name}",
                value=build.image_uri,
                description=f"URI of the platform image {name} (`make images ENV={config.name}` builds it)",
            )
