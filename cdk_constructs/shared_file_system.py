"""FSx for Lustre PERSISTENT_2 linked to an S3 bucket through a data repository association."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, aws_ec2 as ec2, aws_fsx as fsx, aws_kms as kms, aws_s3 as s3
from constructs import Construct

_EVENTS = ["NEW", "CHANGED", "DELETED"]


class SharedFileSystem(Construct):
    """The cluster's shared file system: FSx for Lustre PERSISTENT_2 with an S3 data repository association.

    Files under ``file_system_path`` mirror ``data_bucket``: objects put in S3 appear in the file system (automatic
    import) and files written there, checkpoints included, are exported to S3 (automatic export). Other top-level
    directories (e.g. Studio home partitions) are not linked.

    :param vpc: the VPC.
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

    def __init__(self, scope: Construct, construct_id: str, *, vpc: ec2.IVpc, subnet: ec2.ISubnet,
                 security_group: ec2.ISecurityGroup, encryption_key: kms.IKey, data_bucket: s3.IBucket,
                 storage_capacity_gib: int = 1200, throughput_mib_per_tib: int = 125, compression: str = "LZ4",
                 backup_retention_days: int = 7, file_system_path: str = "/data", auto_import: bool = True,
                 auto_export: bool = True, removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, construct_id)
        self.file_system = fsx.LustreFileSystem(
            self,
            "FileSystem",
            vpc=vpc,
            vpc_subnet=subnet,
            security_group=security_group,
            kms_key=encryption_key,
            storage_capacity_gib=storage_capacity_gib,
            file_system_type_version=fsx.FileSystemTypeVersion.V_2_15,
            removal_policy=removal_policy,
            lustre_configuration=fsx.LustreConfiguration(
                deployment_type=fsx.LustreDeploymentType.PERSISTENT_2,
                per_unit_storage_throughput=throughput_mib_per_tib,
                data_compression_type=fsx.LustreDataCompressionType[compression],
                automatic_backup_retention=Duration.days(backup_retention_days),
                copy_tags_to_backups=backup_retention_days > 0,
                daily_automatic_backup_start_time=fsx.DailyAutomaticBackupStartTime(hour=3, minute=0)
                if backup_retention_days > 0 else None,
                weekly_maintenance_start_time=fsx.LustreMaintenanceTime(day=fsx.Weekday.SUNDAY, hour=4, minute=0),
            ),
        )
        self.data_repository_association = fsx.CfnDataRepositoryAssociation(
            self,
            "DataRepository",
            file_system_id=self.file_system.file_system_id,
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
        return self.file_system.file_system_id

    @property
    def dns_name(self) -> str:
        return self.file_system.dns_name

    @property
    def mount_name(self) -> str:
        return self.file_system.mount_name
