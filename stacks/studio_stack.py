"""`<Env>-Studio`: SageMaker Studio domain on the cluster's FSx for Lustre, user profiles with team-scoped roles and
EKS access entries, lifecycle configurations that leave a working kube context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from aws_cdk import CfnOutput, IgnoreMode
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from cdk_constructs.studio.studio_domain import StudioDomain
from cdk_constructs.studio.studio_lifecycle_configs import StudioLifecycleConfigs
from cdk_constructs.studio.studio_user_profile import StudioUserProfile, presigned_url_policy
from cdk_constructs.teams.team import Team
from config import EnvironmentConfig, StudioConfig

from ._base import PlatformStack

REPO_ROOT = Path(__file__).resolve().parents[1]
# What the `llmft` asset holds: the CLI and the packages it renders jobs with (GLOB ignore: exclude everything,
# then re-include these).
CLI_ASSET_EXCLUDE = (
    "*",
    "!llmft",
    "!llmft/**",
    "!config",
    "!config/**",
    "!k8s_charts",
    "!k8s_charts/**",
    "!training",
    "training/*",
    "!training/llm_platform",
    "!training/llm_platform/**",
    "!requirements-cli.txt",
    "**/__pycache__",
    "**/__pycache__/**",
)


class _FileSystem(Protocol):
    file_system_id: str


class StudioEnvironment(Protocol):
    """What the Studio stack reads of its configuration: an environment (config/<name>.yaml, EnvironmentConfig) or
    an existing-cluster deployment (config/existing/<name>.yaml, ExistingClusterConfig)."""

    name: str
    region: str
    studio: StudioConfig
    kubernetes: Any  # .teams: the teams of kubernetes.teams

    @property
    def resource_prefix(self) -> str: ...

    @property
    def cluster_name(self) -> str: ...

    @property
    def kubernetes_version(self) -> str: ...


class _Pullable(Protocol):
    def grant_pull(self, grantee: iam.IGrantable) -> iam.Grant: ...


class _Mlflow(Protocol):
    tracking_uri: str
    team_credentials_secrets: Mapping[str, Any]

    def grant_team_credentials(self, team: str, grantee: iam.IGrantable) -> iam.Grant: ...


class StudioStack(PlatformStack):
    """Studio for data scientists, next to the cluster.

    - Domain (VPC-only, private subnets, IAM auth, KMS, idle shutdown) with the Studio security group.
    - No change to the file system's interfaces: the FSx security group admits the Studio group on the Lustre
      ports (network stack), which is all a Lustre client needs (tests/test_api_reachability.py).
    - Every profile mounts its team's FSx tree ``/teams/<team>`` (what the team's jobs see at ``/fsx``) with its
      uid and the team's gid (k8s_charts/team_storage.py); in ``per-user`` mode its private ``users/<name>/`` is
      there too. Profiles wait for ``directories_ready`` (the compute stack's ``FsxDirectories`` Job).
    - Per team: lifecycle configurations for JupyterLab and Code Editor (kube context in the team namespace).
    - Per user: profile + execution role + access entry scoped to the team namespace (needs ``cluster``).

    ``cluster``, ``directories_ready``, ``mlflow`` are optional so the stack also synthesizes before the compute and
    MLflow stacks exist; without ``cluster`` there are no access entries.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        studio_security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        data_bucket: s3.IBucket | None,
        file_system: _FileSystem,
        training_images: _Pullable | None = None,
        cluster: eks.ICluster | None = None,
        directories_ready: Construct | None = None,
        mlflow: _Mlflow | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            config=config,
            stateful=True,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): SageMaker Studio domain on the "
            f"cluster's FSx for Lustre",
        )
        self._build(
            config=config,
            vpc=vpc,
            subnets=subnets,
            studio_security_group=studio_security_group,
            encryption_key=encryption_key,
            data_bucket=data_bucket,
            file_system=file_system,
            training_images=training_images,
            cluster=cluster,
            directories_ready=directories_ready,
            mlflow=mlflow,
        )

    def _build(
        self,
        *,
        config: StudioEnvironment,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        studio_security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        data_bucket: s3.IBucket | None,
        file_system: _FileSystem,
        training_images: _Pullable | None,
        cluster: eks.ICluster | None,
        directories_ready: Construct | None,
        mlflow: _Mlflow | None,
    ) -> None:
        """Everything but the stack itself (a subclass that imports its inputs inside the stack calls this after
        creating them: stacks/existing_studio_stack.py)."""
        teams = {t.name: t for t in Team.all(config.kubernetes.teams)}
        self._add_domain(
            config=config,
            vpc=vpc,
            subnets=subnets,
            studio_security_group=studio_security_group,
            encryption_key=encryption_key,
            file_system=file_system,
        )
        # --- FSx: every user works in the team's tree, created by the compute stack's FsxDirectories Job ---------
        self.directories_ready = directories_ready
        self._add_lifecycle_configs(config, teams, mlflow=mlflow)
        self._add_user_profiles(
            config,
            teams,
            data_bucket=data_bucket,
            encryption_key=encryption_key,
            training_images=training_images,
            cluster=cluster,
            directories_ready=directories_ready,
            mlflow=mlflow,
        )
        self._add_studio_outputs(config)

    def _add_domain(
        self,
        *,
        config: StudioEnvironment,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        studio_security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        file_system: _FileSystem,
    ) -> None:
        """The Studio domain on the cluster's file system."""
        st = config.studio
        self.domain = StudioDomain(
            self,
            "Domain",
            domain_name=f"{config.resource_prefix}-studio",
            vpc=vpc,
            subnets=subnets,
            security_group=studio_security_group,
            encryption_key=encryption_key,
            file_system_id=file_system.file_system_id,
            shared_path=None,  # each profile mounts its team's tree
            posix_uid=st.posix_uid,
            posix_gid=st.posix_gid,
            idle_timeout_minutes=st.idle_timeout_minutes,
            max_idle_timeout_minutes=st.max_idle_timeout_minutes,
            default_instance_type=st.default_instance_type,
        )

    def _add_lifecycle_configs(
        self, config: StudioEnvironment, teams: Mapping[str, Team], *, mlflow: _Mlflow | None
    ) -> None:
        """The `llmft` CLI asset and one pair of lifecycle configurations per team with users."""
        self.lifecycle_configs: dict[str, StudioLifecycleConfigs] = {}
        # The `llmft` CLI's code, installed by the lifecycle configuration (studio_lifecycle/kube_context.sh).
        self.cli_asset = s3_assets.Asset(
            self, "LlmftCli", path=str(REPO_ROOT), exclude=list(CLI_ASSET_EXCLUDE), ignore_mode=IgnoreMode.GLOB
        )
        for team_name in sorted({p.team for p in config.studio.user_profiles}):
            team = teams[team_name]
            secret = mlflow.team_credentials_secrets.get(team_name) if mlflow is not None else None
            settings = team.studio_settings(
                environment=config.name,
                region=config.region,
                cluster_name=config.cluster_name,
                kubernetes_version=config.kubernetes_version,
                cli_s3_uri=self.cli_asset.s3_object_url,
                mlflow_uri=mlflow.tracking_uri if mlflow is not None else None,
                mlflow_secret_arn=secret.secret_arn if secret is not None else None,
            )
            self.lifecycle_configs[team_name] = team.studio_lifecycle(
                self, resource_prefix=config.resource_prefix, settings=settings
            )

    def _add_user_profiles(
        self,
        config: StudioEnvironment,
        teams: Mapping[str, Team],
        *,
        data_bucket: s3.IBucket | None,
        encryption_key: kms.IKey,
        training_images: _Pullable | None,
        cluster: eks.ICluster | None,
        directories_ready: Construct | None,
        mlflow: _Mlflow | None,
    ) -> None:
        """One profile per configured user, with its team's role, lifecycle configurations and CLI access."""
        st = config.studio
        self.user_profiles: dict[str, StudioUserProfile] = {}
        for p in st.user_profiles:
            user = teams[p.team].studio_profile(
                self,
                user=p.name,
                posix_uid=st.uid_of(p),
                domain=self.domain,
                data_bucket=data_bucket,
                data_key=encryption_key,
                cluster_name=config.cluster_name,
                lifecycle_config_arns=self.lifecycle_configs[p.team].arns,
                cluster=cluster,
                training_images=training_images,
                mlflow=mlflow,
            )
            if directories_ready is not None:
                user.node.add_dependency(directories_ready)
            self.user_profiles[p.name] = user
            # read exactly the CLI asset object (grant_read would allow List*/GetObject* on the whole assets bucket)
            user.role.add_to_policy(
                iam.PolicyStatement(
                    sid="ReadLlmftCli",
                    actions=["s3:GetObject"],
                    resources=[self.cli_asset.bucket.arn_for_objects(self.cli_asset.s3_object_key)],
                )
            )

    def _add_studio_outputs(self, config: StudioEnvironment) -> None:
        """The domain ID, the own-profile presigned-URL policy and the FSx mode."""
        st = config.studio
        CfnOutput(self, "DomainId", value=self.domain.domain_id, description="SageMaker Studio domain ID")
        # Who may open which profile (docs/studio.md "SageMaker Studio"): attach to people's Identity Center permission
        # sets; a profile opens only for the Identity Center user named by its sign-in name.
        self.presigned_url_policy = presigned_url_policy(
            self,
            "OwnProfilePresignedUrl",
            domain=self.domain,
            sign_ins={p.name: p.session_name for p in st.user_profiles},
        )
        CfnOutput(
            self,
            "OwnProfilePresignedUrlPolicyArn",
            value=self.presigned_url_policy.managed_policy_arn,
            description="Managed policy: sagemaker:CreatePresignedDomainUrl for one's own Studio profile only",
        )
        CfnOutput(
            self,
            "FsxMode",
            value=st.fsx_mode,
            description="Users work in /teams/<team>; per-user: also a private users/<name>/",
        )
