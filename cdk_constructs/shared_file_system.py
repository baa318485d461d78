"""FSx for Lustre PERSISTENT_2 linked to an S3 bucket through a data repository association."""

from __future__ import annotations

from aws_cdk import RemovalPolicy, aws_ec2 as ec2, aws_fsx as fsx, aws_kms as kms, aws_s3 as s3
from constructs import Construct

_EVENTS = ["NEW", "CHANGED", "DELETED"]


class SharedFileSystem(Construct):
    """The cluster's shared file system: FSx for Lustre PERSISTENT_2 with an S3 data repository association.

    Files under ``file_system_path`` mirror ``data_bucket``: objects put in S3 appear in the file system (automatic
    import) and files written there, checkpoints included, are exported to S3 (automatic export). Other top-level
    directories (e.g. Studio home partitions) are not linked.

    :param subnet: subnet of the file system's network interfaces (the HyperPod subnet, next to the GPUs).
    :param security_group: the FSx security group (Lustre ports from clients only).
    :param encryption_key: customer-managed key for data at rest.
    :param data_bucket: the bucket to link.
    :param storage_capacity_gib: default 1200.
    :param throughput_mib_per_tib: per-unit throughput, default 125.
    :param compression: ``LZ4`` (default) or ``NONE``.
    :param backup_retention_days: daily automatic backups kept; 0 disables them. Default 7.
    :param file_system_path: where the bucket appears. Default ``/data``.
    :param auto_import: default True.  :param auto_export: default True.
    :param removal_policy: default ``RETAIN`` (FSx has no CloudFormation snapshot policy).
    """

    def __init__(self, scope: Construct, construct_id: str, *, subnet: ec2.ISubnet,
                 security_group: ec2.ISecurityGroup, encryption_key: kms.IKey, data_bucket: s3.IBucket,
                 storage_capacity_gib: int = 1200, throughput_mib_per_tib: int = 125, compression: str = "LZ4",
                 backup_retention_days: int = 7, file_system_path: str = "/data", auto_import: bool = True,
                 auto_export: bool = True, removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
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
        self.data_repository_association = fsx.CfnDataRepositoryAssociation(
            self,
            "DataRepository",
            file_system_id=self.file_system.ref,
            file_system_path=file_system_path,
            data_repository_path=f"s3://{data_bucket.bucket_name}/",
            batch_import_meta_data_on_create=True,
            s3=fsx.CfnDataRepositoryAssociation.S3Property(
                auto_import_policy=fsx.CfnDataRepositoryAssociation.AutoImportPolicyProperty(events=_EVENTS)
                if auto_import else None,
                auto_export_policy=fsx.CfnDataRepositoryAssociation.AutoExportPolicyProperty(events=_EVENTS)
                if auto_export else None,
            ),
        )
        self.data_repository_association.apply_removal_policy(RemovalPolicy.RETAIN)
        self.file_system_path = file_system_path

    @property
    def file_system_id(self) -> str:
        return self.file_system.ref

    @property
    def dns_name(self) -> str:
        return self.file_system.attr_dns_name

    @property
    def mount_name(self) -> str:
        return self.file_system.attr_lustre_mount_name
