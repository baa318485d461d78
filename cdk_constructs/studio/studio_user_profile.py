"""A Studio user profile with its own execution role, scoped to the user's team."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, cast

import jsii
from aws_cdk import (
    Acknowledgment,
    ArnFormat,
    CfnTag,
    RemovalPolicy,
    Stack,
    Validations,
)
from aws_cdk import (
    aws_eks_v2 as eks,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_s3 as s3,
)
from aws_cdk import (
    aws_sagemaker as sagemaker,
)
from constructs import Construct, IValidation

from cdk_constructs.studio.studio_domain import StudioDomain
from k8s_charts.values import team_group

UP = sagemaker.CfnUserProfile
STUDIO_LOG_GROUP = "/aws/sagemaker/studio"
PROFILE_TAG = "studio-user-profile"
"""Tag on every user profile (value: its name) and the principal tag a person's IAM identity carries (SSO
attribute or IAM role tag) for :func:`presigned_url_policy`."""


PRESIGNED_URL_POLICY_DESCRIPTION = (
    f"Open only one's own SageMaker Studio profile (tag {PROFILE_TAG} = principal tag {PROFILE_TAG})"
)
"""Fixed for the policy's lifetime (a new description replaces the policy: :func:`presigned_url_policy`)."""

IDENTITY_CENTER_ROLES = "role/aws-reserved/sso.amazonaws.com/*"
"""The IAM path of the roles IAM Identity Center creates for permission sets (IAM Identity Center User Guide
"Referencing permission sets in resource policies": ``arn:aws:iam::<account>:role/aws-reserved/sso.amazonaws.com/...``).
Only Identity Center starts sessions of these roles (their trust policy admits its SAML provider alone), and it names
each session after the signed-in user, so neither the role nor the session name is the caller's choice."""


def presigned_url_policy(
    scope: Construct, construct_id: str, *, domain: StudioDomain, sign_ins: Mapping[str, str]
) -> iam.ManagedPolicy:
    """Customer-managed policy for people's Identity Center permission sets: ``sagemaker:CreatePresignedDomainUrl``
    on exactly one user profile per statement, for exactly one person: ``sign_ins`` maps profile name -> the
    Identity Center user name, matched as the end of ``aws:userid`` (``<role id>:<session name>``) of a session of an
    Identity Center role (``aws:PrincipalArn``). Both are set by AWS, not by the caller: the earlier attribute-based
    rule compared the profile's tag with a principal tag, which anyone allowed ``sts:TagSession`` on their role can
    set to another person's profile name when assuming it (IAM User Guide "Pass session tags in AWS STS")."""
    stack = Stack.of(scope)
    sso_roles = stack.format_arn(
        service="iam",
        region="",
        resource=IDENTITY_CENTER_ROLES.split("/", 1)[0],
        resource_name=IDENTITY_CENTER_ROLES.split("/", 1)[1],
    )
    statements = []
    for index, (profile, user) in enumerate(sorted(sign_ins.items())):
        statements.append(
            iam.PolicyStatement(
                sid=f"OwnStudioProfile{index}",
                actions=["sagemaker:CreatePresignedDomainUrl"],
                resources=[
                    stack.format_arn(
                        service="sagemaker", resource="user-profile", resource_name=f"{domain.domain_id}/{profile}"
                    )
                ],
                conditions={"StringLike": {"aws:userid": f"*:{user}"}, "ArnLike": {"aws:PrincipalArn": sso_roles}},
            )
        )
    if not statements:  # a managed policy needs a statement: deny the action when there is no profile
        statements.append(
            iam.PolicyStatement(
                sid="NoProfiles",
                effect=iam.Effect.DENY,
                actions=["sagemaker:CreatePresignedDomainUrl"],
                resources=["*"],
            )
        )
    # The description is the one the policy was first created with: Description is create-only on
    # AWS::IAM::ManagedPolicy (CloudFormation reference, "Update requires: Replacement"), and a replacement gets a new
    # generated name, while permission sets attach customer managed policies by name: the old policy would stay
    # attached and fail to delete. The statements (what the description once summarised) change in place.
    return iam.ManagedPolicy(
        scope,
        construct_id,
        statements=statements,
        description=PRESIGNED_URL_POLICY_DESCRIPTION,
    )


class _Pullable(Protocol):
    def grant_pull(self, grantee: iam.IGrantable) -> iam.Grant: ...


class _MlflowClient(Protocol):
    def grant_team_credentials(self, team: str, grantee: iam.IGrantable) -> iam.Grant: ...


class StudioUserProfile(Construct):
    """``AWS::SageMaker::UserProfile`` in ``domain`` with an execution role holding only what a data scientist of
    ``namespace`` needs, and (with ``cluster``) an EKS access entry limited to that namespace.

    The role's permissions (exactly):

    - ``eks:DescribeCluster`` on the platform cluster (``aws eks update-kubeconfig``);
    - (with ``data_bucket``) ``s3:ListBucket`` on the data bucket for keys under ``data_prefix`` only;
      ``s3:GetObject``, ``s3:PutObject``, ``s3:DeleteObject``, ``s3:AbortMultipartUpload`` on
      ``<data bucket>/<data_prefix>*``; ``kms:Decrypt``, ``kms:GenerateDataKey`` on the data key, only through S3;
    - ECR pull of the training image repository (``training_images.grant_pull``);
    - the team's own MLflow credentials, no other team's (``mlflow.grant_team_credentials``);
    - ``logs:CreateLogGroup``, ``logs:CreateLogStream``, ``logs:PutLogEvents`` on ``/aws/sagemaker/studio`` (app and
      lifecycle-configuration logs).

    Kubernetes: no EKS access policy; the access entry carries only the team's Kubernetes group
    (:func:`~k8s_charts.values.team_group`), which the team namespace binds to its ``team-member`` Role
    (k8s_charts/team_namespaces.py ``team_member_rules``: the job kinds, their ConfigMaps and Secrets, read of pods,
    logs and events, exec; no pods, workload controllers, Services, NetworkPolicies, ServiceAccounts or RBAC).
    With access policies, EKS would authorize the union of both (EKS API CreateAccessEntry ``kubernetesGroups``:
    "the principalARN has all permissions assigned in the associated access policies and all permissions in any
    Kubernetes Role or ClusterRole objects that the group names are bound to"), so none is associated.

    Attributes: ``role``, ``profile`` (``CfnUserProfile``), ``access_entry`` (or None).

    :param domain: the Studio domain.
    :param user_profile_name: the profile name (validated by the config).
    :param namespace: the team's Kubernetes namespace.
    :param data_bucket / data_key / data_prefix: the team's S3 prefix of the data bucket and the bucket's key.
        ``data_bucket`` None: no S3 permission at all (existing-cluster mode has no data bucket).
    :param cluster_name: the EKS cluster name (for ``eks:DescribeCluster``).
    :param lifecycle_config_arns: app type (``JupyterLab``, ``CodeEditor``) -> the team's lifecycle configuration,
        attached and run by default.
    :param file_system_path: the FSx directory the user mounts (their team's tree ``/teams/<team>``; the user
        can reach only that directory and below), or None for the domain's default.
    :param posix_uid / posix_gid: the user's uid and gid (their team's gid, so files they write belong to the
        team's group). None: the domain default.
    :param cluster: the EKS cluster for the access entry. Default: none (no Kubernetes access).
    :param training_images: repository to pull from. Default: none.
    :param mlflow: MLflow stack (``grant_team_credentials``). Default: none.
    :param team: the team whose MLflow credentials the user gets. Default: ``namespace`` (a team's namespace is its
        name).
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the
        create that made it rolls back, so a retry finds no orphan): removing a user from the config keeps the profile
        (and never touches their FSx partition or S3 data).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        domain: StudioDomain,
        user_profile_name: str,
        namespace: str,
        data_bucket: s3.IBucket | None,
        data_key: kms.IKey | None,
        data_prefix: str,
        cluster_name: str,
        lifecycle_config_arns: Mapping[str, str],
        file_system_path: str | None = None,
        posix_uid: int | None = None,
        posix_gid: int | None = None,
        cluster: eks.ICluster | None = None,
        training_images: _Pullable | None = None,
        mlflow: _MlflowClient | None = None,
        team: str | None = None,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
        super().__init__(scope, construct_id)
        self.role = self._build_role(user_profile_name=user_profile_name, namespace=namespace)
        self._grant_role(
            cluster_name=cluster_name,
            data_bucket=data_bucket,
            data_key=data_key,
            data_prefix=data_prefix,
            training_images=training_images,
            mlflow=mlflow,
            team=team or namespace,
        )
        self.profile = self._build_profile(
            domain=domain,
            user_profile_name=user_profile_name,
            namespace=namespace,
            lifecycle_config_arns=lifecycle_config_arns,
            file_system_path=file_system_path,
            posix_uid=posix_uid,
            posix_gid=posix_gid,
        )
        self.profile.apply_removal_policy(removal_policy)

        self.access_entry: eks.AccessEntry | None = None
        if cluster is not None:
            self.access_entry = self._build_access_entry(cluster, team or namespace)

    def _build_role(self, *, user_profile_name: str, namespace: str) -> iam.Role:
        """Create the user's SageMaker execution role (its statements come from :meth:`_grant_role`)."""
        return iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"),
            description=f"Studio user {user_profile_name} (team {namespace}): EKS describe, team S3 prefix, ECR pull, "
            f"MLflow client",
        )

    def _grant_role(
        self,
        *,
        cluster_name: str,
        data_bucket: s3.IBucket | None,
        data_key: kms.IKey | None,
        data_prefix: str,
        training_images: _Pullable | None,
        mlflow: _MlflowClient | None,
        team: str,
    ) -> None:
        """Grant the role EKS describe, the team prefix, Studio logs, ECR pull and MLflow, and record its findings."""
        stack = Stack.of(self)
        cluster_arn = stack.format_arn(service="eks", resource="cluster", resource_name=cluster_name)
        self.role.add_to_policy(
            iam.PolicyStatement(sid="DescribePlatformCluster", actions=["eks:DescribeCluster"], resources=[cluster_arn])
        )
        if data_bucket is not None:
            self._grant_team_prefix(data_bucket, data_key, data_prefix)
        log_group_arn = stack.format_arn(
            service="logs",
            resource="log-group",
            resource_name=f"{STUDIO_LOG_GROUP}:*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid="StudioLogs",
                actions=["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[log_group_arn],
            )
        )
        if training_images is not None:
            training_images.grant_pull(self.role)
        if mlflow is not None:
            mlflow.grant_team_credentials(team, self.role)
        self._acknowledge_role(log_group_arn)

    def _acknowledge_role(self, log_group_arn: str) -> None:
        """Record the reviewed wildcard findings of the execution role."""
        Validations.of(self.role).acknowledge(
            Acknowledgment(
                id=f"AwsSolutions::AwsSolutions-IAM5[Resource::{log_group_arn}]",
                reason="SageMaker names the Studio log streams per app at run time, inside the one Studio log group.",
            )
        )
        Validations.of(self.role).acknowledge(
            Acknowledgment(
                id="AwsSolutions::AwsSolutions-IAM5[Resource::*]",
                reason="ecr:GetAuthorizationToken (part of ECR pull) has no resource-level permission.",
            )
        )

    @staticmethod
    def _app_settings(cls: type, *, instance_type: str | None, lifecycle_config_arn: str) -> object:
        """App settings of one Studio app type, with its lifecycle configuration as the default."""
        # Idle shutdown is a domain setting (CloudFormation has no AppLifecycleManagement on user profiles).
        return cls(
            default_resource_spec=UP.ResourceSpecProperty(
                instance_type=instance_type, lifecycle_config_arn=lifecycle_config_arn
            ),
            lifecycle_config_arns=[lifecycle_config_arn],
        )

    def _build_profile(
        self,
        *,
        domain: StudioDomain,
        user_profile_name: str,
        namespace: str,
        lifecycle_config_arns: Mapping[str, str],
        file_system_path: str | None,
        posix_uid: int | None,
        posix_gid: int | None,
    ) -> sagemaker.CfnUserProfile:
        """Create the Studio user profile: execution role, FSx mount, POSIX identity and app settings."""

        def app_settings(cls: type, app_type: str) -> object:
            """The settings of ``app_type`` with the domain's default instance type."""
            return self._app_settings(
                cls, instance_type=domain.default_instance_type, lifecycle_config_arn=lifecycle_config_arns[app_type]
            )

        posix = (
            UP.CustomPosixUserConfigProperty(uid=posix_uid, gid=posix_gid or 1001) if posix_uid is not None else None
        )
        return sagemaker.CfnUserProfile(
            self,
            "Resource",
            domain_id=domain.domain_id,
            user_profile_name=user_profile_name,
            user_settings=UP.UserSettingsProperty(
                execution_role=self.role.role_arn,
                custom_file_system_configs=[
                    UP.CustomFileSystemConfigProperty(
                        f_sx_lustre_file_system_config=UP.FSxLustreFileSystemConfigProperty(
                            file_system_id=domain.file_system_id, file_system_path=file_system_path
                        )
                    )
                ]
                if file_system_path
                else None,
                custom_posix_user_config=posix,
                jupyter_lab_app_settings=app_settings(UP.JupyterLabAppSettingsProperty, "JupyterLab"),
                code_editor_app_settings=app_settings(UP.CodeEditorAppSettingsProperty, "CodeEditor"),
            ),
            tags=[CfnTag(key="platform/team", value=namespace), CfnTag(key=PROFILE_TAG, value=user_profile_name)],
        )

    def _build_access_entry(self, cluster: eks.ICluster, team: str) -> eks.AccessEntry:
        """Create the role's EKS access entry, mapped to the team's Kubernetes group."""
        access_entry = eks.AccessEntry(
            self, "AccessEntry", cluster=cluster, principal=self.role.role_arn, access_policies=[]
        )
        # Kubernetes RBAC only (see the class docstring); the L2 has no property for the groups.
        cast(eks.CfnAccessEntry, access_entry.node.default_child).kubernetes_groups = [team_group(team)]
        return access_entry

    def _grant_team_prefix(self, data_bucket: s3.IBucket, data_key: kms.IKey | None, data_prefix: str) -> None:
        """The team's prefix of the data bucket: list, read, write and delete its objects (and the bucket key through
        S3)."""
        stack = Stack.of(self)
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid="ListTeamPrefix",
                actions=["s3:ListBucket"],
                resources=[data_bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [data_prefix, f"{data_prefix}*"]}},
            )
        )
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid="ReadWriteTeamPrefix",
                actions=["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                resources=[data_bucket.arn_for_objects(f"{data_prefix}*")],
            )
        )
        if data_key is not None:
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="DataKeyThroughS3",
                    actions=["kms:Decrypt", "kms:GenerateDataKey"],
                    resources=[data_key.key_arn],
                    conditions={"StringEquals": {"kms:ViaService": f"s3.{stack.region}.amazonaws.com"}},
                )
            )
        self.node.add_validation(
            _AcknowledgeTeamPrefix(
                self.role,
                f"/{data_prefix}*",
                "The user reads and writes objects under the team's data prefix only; "
                "object keys are the user's choice.",
            )
        )


@jsii.implements(IValidation)
class _AcknowledgeTeamPrefix:
    """Acknowledge IAM5 for the team-prefix object ARN once cross-stack references are resolved (validation runs
    after CDK rewrote the bucket ARN into the producer stack's output), rendered the way cdk-nag prints it."""

    def __init__(self, role: iam.Role, suffix: str, reason: str) -> None:
        self._role, self._suffix, self._reason = role, suffix, reason

    def validate(self) -> list[str]:
        policy = self._role.node.try_find_child("DefaultPolicy")
        if policy is None:
            return [f"{self._role.node.path} has no default policy"]
        document = Stack.of(self._role).resolve(policy.node.default_child.policy_document)
        for statement in document.get("Statement", []):
            resources = statement.get("Resource", [])
            for resource in resources if isinstance(resources, list) else [resources]:
                rendered = _render(resource)
                if rendered.endswith(self._suffix):
                    Validations.of(self._role).acknowledge(
                        Acknowledgment(id=f"AwsSolutions::AwsSolutions-IAM5[Resource::{rendered}]", reason=self._reason)
                    )
        return []


def _render(value: Any) -> str:
    """A policy resource as cdk-nag prints it: strings as they are, intrinsics as compact JSON, joins concatenated."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and list(value) == ["Fn::Join"] and value["Fn::Join"][0] == "":
        return "".join(_render(part) for part in value["Fn::Join"][1])
    return json.dumps(value, separators=(",", ":"))
