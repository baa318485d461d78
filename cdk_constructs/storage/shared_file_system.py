"""FSx for Lustre PERSISTENT_2 whose team directories are linked to S3 prefixes by data repository associations."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_fsx as fsx
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct


class SharedFileSystem(Construct):
    """The cluster's shared file system: FSx for Lustre PERSISTENT_2, each team's tree linked to its own S3 prefix.

    :meth:`add_data_repository` links one directory (a team's ``/teams/<team>``) to one prefix of ``data_bucket``
    through its own data repository association: objects put under the prefix appear in the directory (automatic
    import) and files written there, checkpoints included, are exported to that prefix only (automatic export).
    Nothing else on the file system is linked, so no file can be exported outside the prefix of the tree it is
    in. FSx allows at most 8 associations per file system, whose file system paths may not nest
    (``/teams/a`` and ``/teams/b`` are fine, ``/teams`` and ``/teams/a`` are not) and whose S3 paths must be
    unique (https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateDataRepositoryAssociation.html).

    :param subnet: subnet of the file system's network interfaces (the HyperPod subnet, next to the GPUs).
    :param security_group: the FSx security group (Lustre ports from clients only).
    :param encryption_key: customer-managed key for data at rest.
    :param data_bucket: the bucket whose prefixes are linked.
    :param storage_capacity_gib: default 1200.
    :param throughput_mib_per_tib: per-unit throughput, default 125.
    :param compression: ``LZ4`` (default) or ``NONE``.
    :param backup_retention_days: daily automatic backups kept; 0 disables them. Default 7.
    :param auto_import: default True.  :param auto_export: default True (for every association).
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when
        the create that made it rolls back, so a retry finds no orphan; FSx has no CloudFormation snapshot policy).
    """

    MAX_DATA_REPOSITORIES = 8

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        subnet: ec2.ISubnet,
        security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        data_bucket: s3.IBucket,
        storage_capacity_gib: int = 1200,
        throughput_mib_per_tib: int = 125,
        compression: str = "LZ4",
        backup_retention_days: int = 7,
        auto_import: bool = True,
        auto_export: bool = True,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
        super().__init__(scope, construct_id)
        # L1 on purpose: the L2 LustreFileSystem opens TCP 988-1023 on its group to itself, wider than Lustre
        # needs; the network stack's FSx group already holds exactly 988 and 1018-1023.
        backups = backup_retention_days > 0
        self.file_system = fsx.CfnFileSystem(
            self,
            "FileSystem",
            file_system_type="LUSTRE",
            file_system_type_version="2.15",
            storage_type="SSD",
            storage_capacity=storage_capacity_gib,
            subnet_ids=[subnet.subnet_id],
            security_group_ids=[security_group.security_group_id],
            kms_key_id=encryption_key.key_id,
            lustre_configuration=fsx.CfnFileSystem.LustreConfigurationProperty(
                deployment_type="PERSISTENT_2",
                per_unit_storage_throughput=throughput_mib_per_tib,
                data_compression_type=compression,
                automatic_backup_retention_days=backup_retention_days,
                copy_tags_to_backups=backups or None,
                daily_automatic_backup_start_time="03:00" if backups else None,
                weekly_maintenance_start_time="7:04:00",
            ),
        )
        self.file_system.apply_removal_policy(removal_policy)
        self._bucket = data_bucket
        self._auto_import, self._auto_export = auto_import, auto_export
        self.data_repository_associations: dict[str, fsx.CfnDataRepositoryAssociation] = {}

    def add_data_repository(
        self, construct_id: str, *, file_system_path: str, s3_prefix: str
    ) -> fsx.CfnDataRepositoryAssociation:
        """Link ``file_system_path`` (e.g. ``/teams/ml-research``) to ``s3://<data bucket>/<s3_prefix>``
        (``s3_prefix`` ends with ``/``). Refuses nesting paths, a repeated prefix and a ninth association."""
        if len(self.data_repository_associations) >= self.MAX_DATA_REPOSITORIES:
            raise ValueError(
                f"FSx for Lustre allows at most {self.MAX_DATA_REPOSITORIES} data repository "
                f"associations per file system; {file_system_path} would be one more"
            )
        for other in self.data_repository_associations:
            a, b = other.rstrip("/") + "/", file_system_path.rstrip("/") + "/"
            if a.startswith(b) or b.startswith(a):
                raise ValueError(
                    f"data repository paths {other} and {file_system_path} nest; FSx refuses "
                    f"overlapping file system paths"
                )
        events = ["NEW", "CHANGED", "DELETED"]
        dra = fsx.CfnDataRepositoryAssociation(
            self,
            construct_id,
            file_system_id=self.file_system.ref,
            file_system_path=file_system_path,
            data_repository_path=f"s3://{self._bucket.bucket_name}/{s3_prefix}",
            batch_import_meta_data_on_create=True,
            s3=fsx.CfnDataRepositoryAssociation.S3Property(
                auto_import_policy=fsx.CfnDataRepositoryAssociation.AutoImportPolicyProperty(events=events)
                if self._auto_import
                else None,
                auto_export_policy=fsx.CfnDataRepositoryAssociation.AutoExportPolicyProperty(events=events)
                if self._auto_export
                else None,
            ),
        )
        dra.apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        self.data_repository_associations[file_system_path] = dra
        return dra

    @property
    def file_system_id(self) -> str:
        return self.file_system.ref

    @property
    def dns_name(self) -> str:
        return self.file_system.attr_dns_name

    @property
    def mount_name(self) -> str:
        return self.file_system.attr_lustre_mount_name
