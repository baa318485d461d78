"""Aurora PostgreSQL Serverless v2 cluster for MLflow's tracking store and basic-auth user store."""

from __future__ import annotations

from aws_cdk import (
    Acknowledgment,
    CfnResource,
    Duration,
    RemovalPolicy,
    Validations,
)
from aws_cdk import (
    aws_ec2 as ec2,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_logs as logs,
)
from aws_cdk import (
    aws_rds as rds,
)
from constructs import Construct

from cdk_constructs.governance.compliance import skip_checkov

PORT = 5432
TRACKING_DATABASE = "mlflow"
"""Database of the tracking store, created with the cluster."""
AUTH_DATABASE = "mlflow_auth"
"""Database of the basic-auth user store; the server's entry point creates it on first start."""


def engine_version(version: str) -> rds.AuroraPostgresEngineVersion:
    """``"17.9"`` -> ``AuroraPostgresEngineVersion.VER_17_9`` (the config check limits the choices)."""
    return getattr(rds.AuroraPostgresEngineVersion, "VER_" + version.replace(".", "_"))


class MlflowDatabase(Construct):
    """An encrypted Aurora PostgreSQL Serverless v2 cluster in isolated subnets, TLS enforced.

    The master credentials are generated into a Secrets Manager secret (``secret``, JSON with ``username``,
    ``password``, ``host``, ``port``, ``dbname``) encrypted with ``encryption_key``; nothing else ever holds them.
    With ``min_capacity_acu`` 0 the cluster pauses after ``auto_pause`` without connections. What keeps it awake
    is any open connection: the MLflow server therefore runs without a connection pool in that case (see
    ``MlflowServer``), and there is no RDS Proxy and no rotation function.

    :param vpc: the VPC. Required.
    :param security_group: the cluster's group (PostgreSQL in from the MLflow tasks only). Required.
    :param encryption_key: storage encryption key. Required.
    :param version: Aurora PostgreSQL version such as ``"17.9"``. Required.
    :param identifier: cluster identifier (lower case, unique in the account and region); it names the log group
        ``/aws/rds/cluster/<identifier>/postgresql`` that this construct creates. Required.
    :param secret_encryption_key: key of the credentials secret. Default: ``encryption_key``. Use a key of the
        stack whose roles read the secret: granting a role of another stack through a key policy would make the
        key's stack depend on it.
    :param subnets: default: the VPC's isolated subnets.
    :param min_capacity_acu: default 0.5. ``max_capacity_acu``: default 4.
    :param auto_pause: idle time before pausing, only with ``min_capacity_acu`` 0. Default 10 minutes.
    :param readers: Serverless v2 readers scaling with the writer (failover targets). Default 0.
    :param backup_retention_days: default 7. ``deletion_protection``: default True.
    :param log_retention: CloudWatch retention of the exported PostgreSQL log. Default one month.
    :param removal_policy: default ``SNAPSHOT`` (the instances get ``RETAIN``, CloudFormation's only choice besides
        delete for Aurora instances).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        version: str,
        identifier: str,
        secret_encryption_key: kms.IKey | None = None,
        subnets: ec2.SubnetSelection | None = None,
        min_capacity_acu: float = 0.5,
        max_capacity_acu: float = 4,
        auto_pause: Duration | None = None,
        readers: int = 0,
        backup_retention_days: int = 7,
        deletion_protection: bool = True,
        log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
        removal_policy: RemovalPolicy = RemovalPolicy.SNAPSHOT,
    ) -> None:
        super().__init__(scope, construct_id)
        major = version.split(".")[0]
        self.cluster = self._build_cluster(
            vpc=vpc,
            security_group=security_group,
            encryption_key=encryption_key,
            version=version,
            identifier=identifier,
            secret_encryption_key=secret_encryption_key,
            subnets=subnets,
            min_capacity_acu=min_capacity_acu,
            max_capacity_acu=max_capacity_acu,
            auto_pause=auto_pause,
            readers=readers,
            backup_retention_days=backup_retention_days,
            deletion_protection=deletion_protection,
            removal_policy=removal_policy,
        )
        # The exported log's group, created here with retention and encryption (instead of CDK's log-retention
        # Lambda). RDS writes to /aws/rds/cluster/<identifier>/postgresql, so the cluster waits for it.
        self.log_group = logs.LogGroup(
            self,
            "PostgresLog",
            log_group_name=f"/aws/rds/cluster/{identifier}/postgresql",
            retention=log_retention,
            encryption_key=encryption_key,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.cluster.node.add_dependency(self.log_group)
        self.engine_major_version = major
        # The writer instance: the cluster resource is "created" before any instance can accept connections, so
        # whatever connects at start (the MLflow tasks) must wait for this one.
        self.writer_instance: Construct = self.cluster.node.find_child("Writer")
        self._skip_enhanced_monitoring()
        assert self.cluster.secret is not None  # generated credentials always create one
        self.secret = self.cluster.secret  # the attachment: its ARN is the secret's, with the cluster's host/port
        # The generated secret outlives the cluster, like its final snapshot (which needs these credentials).
        self.cluster.node.find_child("Secret").apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        self._acknowledge_findings(deletion_protection=deletion_protection)

    def _build_cluster(
        self,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        version: str,
        identifier: str,
        secret_encryption_key: kms.IKey | None,
        subnets: ec2.SubnetSelection | None,
        min_capacity_acu: float,
        max_capacity_acu: float,
        auto_pause: Duration | None,
        readers: int,
        backup_retention_days: int,
        deletion_protection: bool,
        removal_policy: RemovalPolicy,
    ) -> rds.DatabaseCluster:
        """Create the encrypted Aurora PostgreSQL Serverless v2 cluster with generated credentials."""
        return rds.DatabaseCluster(
            self,
            "Cluster",
            engine=rds.DatabaseClusterEngine.aurora_postgres(version=engine_version(version)),
            writer=rds.ClusterInstance.serverless_v2("Writer", auto_minor_version_upgrade=True),
            readers=[
                rds.ClusterInstance.serverless_v2(f"Reader{i}", scale_with_writer=True, auto_minor_version_upgrade=True)
                for i in range(1, readers + 1)
            ],
            serverless_v2_min_capacity=min_capacity_acu,
            serverless_v2_max_capacity=max_capacity_acu,
            serverless_v2_auto_pause_duration=(auto_pause or Duration.minutes(10)) if min_capacity_acu == 0 else None,
            vpc=vpc,
            vpc_subnets=subnets or ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
            security_groups=[security_group],
            credentials=rds.Credentials.from_generated_secret(
                "mlflow", encryption_key=secret_encryption_key or encryption_key
            ),
            default_database_name=TRACKING_DATABASE,
            port=PORT,
            storage_encrypted=True,
            storage_encryption_key=encryption_key,
            parameters={"rds.force_ssl": "1"},
            iam_authentication=True,
            backup=rds.BackupProps(retention=Duration.days(backup_retention_days), preferred_window="03:00-04:00"),
            preferred_maintenance_window="Sun:04:30-Sun:05:30",
            copy_tags_to_snapshot=True,
            deletion_protection=deletion_protection,
            removal_policy=removal_policy,
            cluster_identifier=identifier,
            cloudwatch_logs_exports=["postgresql"],
        )

    def _skip_enhanced_monitoring(self) -> None:
        """Skip checkov's Enhanced Monitoring check on every DB instance of the cluster."""
        for instance in self.cluster.node.children:
            if (
                isinstance(instance.node.default_child, CfnResource)
                and instance.node.default_child.cfn_resource_type == "AWS::RDS::DBInstance"
            ):
                skip_checkov(
                    instance,
                    "CKV_AWS_118",
                    "Enhanced Monitoring bills OS metrics into CloudWatch Logs per instance; Serverless v2 "
                    "publishes ACU, CPU and connection metrics to CloudWatch without it",
                )

    def _acknowledge_findings(self, *, deletion_protection: bool) -> None:
        """Record the reviewed cdk-nag findings on the secret and the cluster."""
        Validations.of(self.cluster.node.find_child("Secret")).acknowledge(
            Acknowledgment(
                id="AwsSolutions::AwsSolutions-SMG4",
                reason="The master password is injected into the MLflow tasks at start; a rotation would break their "
                "new connections until a redeploy, and a rotation function's connections would keep an "
                "auto-paused dev cluster awake. Rotate by updating the secret, then force a new deployment.",
            )
        )
        Validations.of(self.cluster).acknowledge(
            Acknowledgment(
                id="AwsSolutions::AwsSolutions-RDS11",
                reason="Port 5432 is reachable only from the MLflow tasks' security group inside isolated subnets; a "
                "non-standard port would add no protection there.",
            )
        )
        if not deletion_protection:
            Validations.of(self.cluster).acknowledge(
                Acknowledgment(
                    id="AwsSolutions::AwsSolutions-RDS10",
                    reason="Deletion protection is off only where the config allows it (protect_stateful false, dev); "
                    "the config check refuses it in production, and removal still takes a final snapshot.",
                )
            )

    @property
    def endpoint_host(self) -> str:
        return self.cluster.cluster_endpoint.hostname
