"""One home for what a team gets (:class:`Team`).

Like cdk-eks-blueprints' ``Team`` (an object per team that the platform asks to set itself up: namespace, quotas,
IAM), one object per ``kubernetes.teams[]`` entry knows every part of a team. Unlike a blueprint, a team's parts live
in several stacks (its S3 link in Storage, its MLflow user in MLflow, its role and namespace in Compute, its Studio
profiles in Studio), so the stacks do not hand the team a cluster to set itself up in: each stack asks the team for
its part, and the part's construct id stays the one the stack always used (logical IDs unchanged).

===============================  =======================  ====================================================
part                             stack                    method
===============================  =======================  ====================================================
FSx <-> S3 link of its tree      Storage                  :meth:`Team.data_repository`
MLflow user                      MLflow                   :meth:`Team.mlflow_user`
storage tree ``/teams/<team>``   Compute (FsxDirectories)  :meth:`Team.storage_tree`
EKS Pod Identity role            Compute                  :meth:`Team.pod_identity_role`
namespace, quota, RBAC           Compute (charts)         :meth:`Team.namespace` (k8s_charts/team_namespaces.py)
Kueue queues                     Compute (charts)         :meth:`Team.cluster_queues`, :meth:`Team.local_queues`
GitOps project                   Compute (Argo CD)        :meth:`Team.gitops_project`
Studio lifecycle and profiles    Studio                   :meth:`Team.studio_lifecycle`, :meth:`Team.studio_profile`
Kubernetes access (existing)     Studio (existing)        :meth:`Team.access_manifest`
===============================  =======================  ====================================================

The Kubernetes objects are rendered by k8s_charts (a lower layer: ``python -m k8s_charts`` renders them for Argo CD
without CDK), which therefore cannot call this class; the methods here return those renderings for one team, so the
list above stays the one place that says what a team gets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Stack
from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_secretsmanager as sm
from constructs import Construct

from cdk_constructs.governance.nag_findings import acknowledge_prefix_wildcard
from cdk_constructs.mlflow.generated_credential import GeneratedCredential
from cdk_constructs.storage.shared_file_system import SharedFileSystem
from cdk_constructs.studio.studio_lifecycle_configs import StudioLifecycleConfigs
from cdk_constructs.studio.studio_user_profile import StudioUserProfile
from config import TeamConfig
from k8s_charts.gitops import team_project_name
from k8s_charts.queues import cluster_queue_name, local_queue_name
from k8s_charts.team_namespaces import TeamNamespace, team_access_manifests
from k8s_charts.team_storage import Directory, team_directories, team_fs_path
from k8s_charts.values import TEAM_SERVICE_ACCOUNT, PlatformValues

TEAM_USER_PREFIX = "team-"
"""MLflow users of teams are ``team-<team>``; the MLflow entry point owns every user with this prefix (the same
prefix as mlflow_image/entrypoint.py and training/llm_platform/team_names.py, tests/test_mlflow_image.py)."""


def team_username(team: str) -> str:
    """The MLflow user of ``team``."""
    return f"{TEAM_USER_PREFIX}{team}"


def pascal(name: str) -> str:
    """``ml-research`` -> ``MlResearch`` (construct ids of per-team and per-user constructs)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("-"))


class Team:
    """Everything team ``config`` gets, each part created (AWS) or rendered (Kubernetes) on request.

    :param config: the team's entry of ``kubernetes.teams``. Required.
    """

    def __init__(self, config: TeamConfig) -> None:
        self.config = config

    @classmethod
    def all(cls, teams: Sequence[TeamConfig]) -> list[Team]:
        """One :class:`Team` per entry of ``teams`` (``config.kubernetes.teams``), in their order."""
        return [cls(t) for t in teams]

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def namespace_name(self) -> str:
        return self.config.namespace

    @property
    def data_prefix(self) -> str:
        """The team's prefix of the data bucket (``teams/<team>/`` unless configured)."""
        return self.config.data_prefix

    @property
    def file_system_path(self) -> str:
        """The team's tree on the shared file system, ``/teams/<team>``."""
        return team_fs_path(self.config)

    # --- Storage stack ----------------------------------------------------------------------------------------------
    def data_repository(self, file_system: SharedFileSystem) -> Construct:
        """Link the team's tree to its S3 prefix of the data bucket (``DataRepository<Team>`` on ``file_system``)."""
        return file_system.add_data_repository(
            f"DataRepository{''.join(p.title() for p in self.name.split('-'))}",
            file_system_path=self.file_system_path,
            s3_prefix=self.data_prefix,
        )

    def storage_tree(self, *, users: Mapping[str, int] | None = None) -> list[Directory]:
        """The team's directories (owner, mode) the compute stack's FsxDirectories Job creates; ``users``: Studio
        user name -> uid of the private directories in ``per-user`` mode. Default: none."""
        return team_directories(self.config, users=dict(users) if users is not None else None)

    # --- MLflow stack -----------------------------------------------------------------------------------------------
    @property
    def mlflow_username(self) -> str:
        return team_username(self.name)

    def mlflow_user(
        self, scope: Construct, *, encryption_key: kms.IKey, environment: str, rotation_reason: str
    ) -> GeneratedCredential:
        """The team's MLflow user (``Team<Team>Credentials`` in ``scope``): a generated credential the MLflow entry
        point reconciles into its user store."""
        return GeneratedCredential(
            scope,
            f"Team{pascal(self.name)}Credentials",
            encryption_key=encryption_key,
            username=self.mlflow_username,
            description=f"MLflow {environment}: MLflow user of team {self.name} (its jobs and Studio users)",
            rotation_reason=rotation_reason,
        )

    # --- Compute stack ----------------------------------------------------------------------------------------------
    def pod_identity_role(
        self,
        scope: Construct,
        *,
        cluster: eks.ICluster,
        data_bucket: s3.IBucket,
        mlflow_secret: sm.ISecret | None = None,
    ) -> iam.Role:
        """The role the team's pods get through EKS Pod Identity (namespace ``<team>``, service account
        ``training``), as ``<scope>/Team-<team>/Role`` with the association ``PodIdentity`` beside it.

        Read/write under the team's prefix of ``data_bucket`` only (list restricted to the prefix, its KMS key only
        through S3) and, with ``mlflow_secret``, read of that team's own MLflow credentials (no other team's): the
        Secrets Store CSI driver fetches it with the pod's identity into the namespace's Secret
        ``mlflow-credentials``. Default: no MLflow secret.
        """
        container = Construct(scope, f"Team-{self.name}")
        region = Stack.of(scope).region
        prefix = self.data_prefix
        role = iam.Role(
            container,
            "Role",
            assumed_by=iam.SessionTagsPrincipal(iam.ServicePrincipal("pods.eks.amazonaws.com")),
            description=f"EKS Pod Identity of team {self.name} (namespace {self.namespace_name}, service account "
            f"{TEAM_SERVICE_ACCOUNT}): s3://<data bucket>/{prefix}",
        )
        self._grant_data(role, data_bucket, region)
        if mlflow_secret is not None:
            self._grant_mlflow_secret(role, mlflow_secret, region)
        acknowledge_prefix_wildcard(
            role,
            bucket_arn=data_bucket.bucket_arn,
            suffix=f"/{prefix}*",
            reason=f"Team {self.name} reads and writes every object under its own prefix {prefix} of the data bucket "
            f"(datasets, checkpoints); the prefix, not object names, is the access boundary.",
        )
        eks_l1.CfnPodIdentityAssociation(
            container,
            "PodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=self.namespace_name,
            service_account=TEAM_SERVICE_ACCOUNT,
            role_arn=role.role_arn,
        )
        return role

    def _grant_data(self, role: iam.Role, bucket: s3.IBucket, region: str) -> None:
        prefix = self.data_prefix
        role.add_to_policy(
            iam.PolicyStatement(
                sid="ListTeamPrefix",
                actions=["s3:ListBucket"],
                resources=[bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [prefix, f"{prefix}*"]}},
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                sid="ReadWriteTeamObjects",
                resources=[bucket.arn_for_objects(f"{prefix}*")],
                actions=[
                    "s3:GetObject",
                    "s3:PutObject",
                    "s3:DeleteObject",
                    "s3:AbortMultipartUpload",
                    "s3:ListMultipartUploadParts",
                ],
            )
        )
        if bucket.encryption_key is not None:
            role.add_to_policy(
                iam.PolicyStatement(
                    sid="DataKeyThroughS3",
                    actions=["kms:Decrypt", "kms:GenerateDataKey"],
                    resources=[bucket.encryption_key.key_arn],
                    conditions={"StringEquals": {"kms:ViaService": f"s3.{region}.amazonaws.com"}},
                )
            )

    @staticmethod
    def _grant_mlflow_secret(role: iam.Role, secret: sm.ISecret, region: str) -> None:
        # Written on the role only: `grant_read` would also edit the key policy in the MLflow stack, which would
        # then depend on the compute stack while the compute stack depends on the secret (a cycle).
        role.add_to_policy(
            iam.PolicyStatement(
                sid="ReadTeamMlflowCredentials",
                resources=[secret.secret_arn],
                actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
            )
        )
        if secret.encryption_key is not None:
            # Secrets Manager decrypts with the encryption context {"SecretARN": <arn>}: this secret only.
            role.add_to_policy(
                iam.PolicyStatement(
                    sid="MlflowSecretKeyThroughSecretsManager",
                    actions=["kms:Decrypt"],
                    resources=[secret.encryption_key.key_arn],
                    conditions={
                        "StringEquals": {
                            "kms:ViaService": f"secretsmanager.{region}.amazonaws.com",
                            "kms:EncryptionContext:SecretARN": secret.secret_arn,
                        }
                    },
                )
            )

    def namespace(self, scope: Construct, *, values: PlatformValues) -> TeamNamespace:
        """The team's namespace objects in cdk8s ``scope``: namespace, ResourceQuota and LimitRange, RBAC, service
        accounts, NetworkPolicies, its FSx volume and claim, the MLflow wiring (k8s_charts/team_namespaces.py
        ``TeamNamespace``, which ``TeamNamespacesChart`` renders for every team)."""
        return TeamNamespace(scope, self.name, team=self.config, values=values)

    def cluster_queues(self) -> tuple[str, ...]:
        """The team's Kueue ClusterQueues, one per allowed tier (k8s_charts/queueing.py renders them)."""
        return tuple(cluster_queue_name(self.name, tier) for tier in self.config.allowed_tiers)

    def local_queues(self) -> tuple[str, ...]:
        """The LocalQueues of its namespace, one per allowed tier (what jobs name in ``kueue.x-k8s.io/queue-name``)."""
        return tuple(local_queue_name(tier) for tier in self.config.allowed_tiers)

    def gitops_project(self) -> str:
        """The Argo CD AppProject of the team (delivery mode ``argocd``; k8s_charts/gitops.py renders it)."""
        return team_project_name(self.name)

    # --- Studio stacks ----------------------------------------------------------------------------------------------
    def studio_settings(
        self,
        *,
        environment: str,
        region: str,
        cluster_name: str,
        kubernetes_version: str,
        cli_s3_uri: str,
        mlflow_uri: str | None = None,
        mlflow_secret_arn: str | None = None,
    ) -> dict[str, str]:
        """What the team's Studio lifecycle configuration exports (``PLATFORM_*``; with MLflow its URI and, with
        ``mlflow_secret_arn``, the team's own MLflow user). Default: no MLflow."""
        settings = {
            "PLATFORM_ENV": environment,
            "PLATFORM_CLI_S3_URI": cli_s3_uri,
            "PLATFORM_REGION": region,
            "PLATFORM_CLUSTER_NAME": cluster_name,
            "PLATFORM_NAMESPACE": self.namespace_name,
            "PLATFORM_KUBERNETES_VERSION": kubernetes_version,
        }
        if mlflow_uri is not None:
            settings["MLFLOW_URI"] = mlflow_uri
            if mlflow_secret_arn is not None:  # exported as MLFLOW_TRACKING_USERNAME/PASSWORD
                settings["MLFLOW_CREDENTIALS_SECRET_ARN"] = mlflow_secret_arn
        return settings

    def studio_lifecycle(
        self, scope: Construct, *, resource_prefix: str, settings: Mapping[str, str]
    ) -> StudioLifecycleConfigs:
        """The team's Studio lifecycle configurations (``Lifecycle<Team>`` in ``scope``) with ``settings``
        (:meth:`studio_settings`)."""
        return StudioLifecycleConfigs(
            scope,
            f"Lifecycle{pascal(self.name)}",
            name_prefix=f"{resource_prefix}-{self.name}"[:51],
            settings=dict(settings),
        )

    def studio_profile(self, scope: Construct, *, user: str, posix_uid: int, **props: Any) -> StudioUserProfile:
        """A Studio user profile of the team (``User<Name>`` in ``scope``): the team decides its namespace, data
        prefix, file system tree and gid; ``props`` are the domain-wide ones (domain, cluster, keys, images, MLflow,
        lifecycle configurations) of :class:`StudioUserProfile`."""
        return StudioUserProfile(
            scope,
            f"User{pascal(user)}",
            user_profile_name=user,
            namespace=self.namespace_name,
            data_prefix=self.data_prefix,
            file_system_path=self.file_system_path,
            posix_uid=posix_uid,
            posix_gid=self.config.posix_gid,
            team=self.name,
            **props,
        )

    def access_manifest(self, scope: Construct, *, cluster: eks.ICluster) -> eks.KubernetesManifest:
        """The team's Role and RoleBinding for the group its users' access entries carry (``TeamAccess<Team>`` in
        ``scope``; existing-cluster mode with ``kubernetes.team_access``)."""
        return eks.KubernetesManifest(
            scope,
            f"TeamAccess{pascal(self.name)}",
            cluster=cluster,
            overwrite=True,
            manifest=team_access_manifests(
                self.namespace_name, labels={"app.kubernetes.io/part-of": "llm-platform", "platform/team": self.name}
            ),
        )
