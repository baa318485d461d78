"""A SageMaker Studio domain in VPC-only mode with IAM auth, KMS, idle shutdown and the cluster's FSx for Lustre."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

SM = sagemaker.CfnDomain


def idle_shutdown(idle_minutes: int, max_idle_minutes: int) -> SM.AppLifecycleManagementProperty:
    """Idle apps stop after ``idle_minutes``; users may choose between 60 minutes and ``max_idle_minutes``."""
    return SM.AppLifecycleManagementProperty(
        idle_settings=SM.IdleSettingsProperty(
            lifecycle_management="ENABLED",
            idle_timeout_in_minutes=idle_minutes,
            min_idle_timeout_in_minutes=60,
            max_idle_timeout_in_minutes=max_idle_minutes,
        )
    )


def fsx_config(file_system_id: str, path: str) -> SM.CustomFileSystemConfigProperty:
    return SM.CustomFileSystemConfigProperty(
        f_sx_lustre_file_system_config=SM.FSxLustreFileSystemConfigProperty(
            file_system_id=file_system_id, file_system_path=path
        )
    )


class StudioDomain(Construct):
    """``AWS::SageMaker::Domain``: ``AppNetworkAccessType: VpcOnly`` on ``subnets``, ``AuthMode: IAM``, home
    volumes encrypted with ``encryption_key``, apps in ``security_group``, POSIX uid/gid for every app, idle
    shutdown for JupyterLab and Code Editor, and (``shared_path``) the FSx partition every user mounts.

    The domain's default execution role has no permissions beyond what SageMaker attaches by itself; every user
    profile brings its own scoped role (:class:`cdk_constructs.studio.studio_user_profile.StudioUserProfile`).

    Attributes: ``domain`` (``CfnDomain``), ``domain_id``, ``default_role``.

    :param domain_name: the domain's name.
    :param vpc: the VPC.  :param subnets: private subnets for the apps' network interfaces.
    :param security_group: the Studio group (inbound NFS from itself; a Lustre client of the FSx group).
    :param encryption_key: KMS key of the domain's storage.
    :param file_system_id: the FSx for Lustre file system.
    :param shared_path: ``/shared`` to mount one partition for every user (domain default). Default: none (each
        user profile mounts its own).
    :param posix_uid / posix_gid: default 200001 / 1001.
    :param idle_timeout_minutes / max_idle_timeout_minutes: default 120 / 480.
    :param default_instance_type: default ``ml.t3.medium``.
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the
        create that made it rolls back, so a retry finds no orphan) (user data lives in the domain's home volumes).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        domain_name: str,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        file_system_id: str,
        shared_path: str | None = None,
        posix_uid: int = 200001,
        posix_gid: int = 1001,
        idle_timeout_minutes: int = 120,
        max_idle_timeout_minutes: int = 480,
        default_instance_type: str = "ml.t3.medium",
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
        super().__init__(scope, construct_id)
        self.file_system_id = file_system_id
        self.lifecycle = idle_shutdown(idle_timeout_minutes, max_idle_timeout_minutes)
        self.default_instance_type = default_instance_type
        self.default_role = iam.Role(
            self,
            "DefaultExecutionRole",
            assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"),
            description=f"{domain_name}: default execution role (no permissions; user profiles bring their own)",
        )
        self.domain = sagemaker.CfnDomain(
            self,
            "Resource",
            domain_name=domain_name,
            auth_mode="IAM",
            app_network_access_type="VpcOnly",
            vpc_id=vpc.vpc_id,
            subnet_ids=[s.subnet_id for s in subnets],
            kms_key_id=encryption_key.key_arn,
            tag_propagation="ENABLED",
            default_user_settings=SM.UserSettingsProperty(
                execution_role=self.default_role.role_arn,
                security_groups=[security_group.security_group_id],
                custom_posix_user_config=SM.CustomPosixUserConfigProperty(uid=posix_uid, gid=posix_gid),
                custom_file_system_configs=[fsx_config(file_system_id, shared_path)] if shared_path else None,
                jupyter_lab_app_settings=SM.JupyterLabAppSettingsProperty(
                    app_lifecycle_management=self.lifecycle,
                    default_resource_spec=SM.ResourceSpecProperty(instance_type=default_instance_type),
                ),
                code_editor_app_settings=SM.CodeEditorAppSettingsProperty(
                    app_lifecycle_management=self.lifecycle,
                    default_resource_spec=SM.ResourceSpecProperty(instance_type=default_instance_type),
                ),
                default_landing_uri="studio::",
                studio_web_portal="ENABLED",
            ),
        )
        self.domain.apply_removal_policy(removal_policy)

    @property
    def domain_id(self) -> str:
        return self.domain.attr_domain_id
