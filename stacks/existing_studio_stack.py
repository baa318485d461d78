"""`<Name>-Studio` in existing-cluster mode (issue 36): the Studio stack on a HyperPod cluster, EKS cluster, VPC and
FSx for Lustre file system the platform did not create (config/existing/<name>.yaml, ``cdk synth -c existing=<name>``).

The same :class:`~stacks.studio_stack.StudioStack` (domain, profiles, lifecycle configurations), built on imported
resources plus what this stack creates itself, all of it removed with the stack:

- a Studio security group in the existing VPC: NFS (2049) and Lustre (TCP 988, 1018-1023) from itself (FSx for Lustre
  User Guide, "File system access control with Amazon VPC": "Lustre clients and file system ... TCP 988, 1018-1023");
- the custom resource ``ExistingFileSystemAccess`` that adds that group to the file system's network interfaces
  (lambda/fsx_network_interfaces; on delete it removes exactly that group again): the only change to the file system;
- a KMS key for the domain's volumes and the handlers' logs;
- a kubectl provider (its own role, in the cluster security group, in the configured subnets) with one EKS access entry
  (``AmazonEKSClusterAdminPolicy``, cluster scope) that applies, in namespace ``studio-partitions`` only, a static FSx
  PersistentVolume/claim of the existing file system and the platform's ``FsxDirectories`` Job: the teams' trees
  ``/teams/<team>`` and, in ``per-user`` mode, each user's ``users/<name>`` (0700, the user's uid) exist with their
  owner and mode before any profile is created. A Lambda function cannot mount Lustre (it has no Lustre client); a pod
  on a cluster node can, through the FSx CSI driver that cluster already runs (a prerequisite);
- with ``kubernetes.team_access``: the platform's ``team-member`` Role and its RoleBinding to ``llmft:team:<team>`` in
  each team's namespace (``Team.access_manifest``, cdk_constructs/teams/team.py); otherwise the cluster's owner binds
  that group;
- per user: execution role, profile (``CustomFileSystemConfigs`` = the team's tree) and an EKS access entry carrying the
  team's Kubernetes group, as for an environment.

No MLflow, no observability and no data bucket: those belong to a platform environment; the lifecycle configurations
leave ``MLFLOW_URI`` unset and the profiles' roles get no S3 statements (docs/studio.md).

aws-cdk-lib 2.275.0's ``Cluster.fromClusterAttributes`` does not create a kubectl provider from
``kubectlProviderOptions`` (aws-eks-v2/lib/cluster.js ``ImportedCluster`` reads only ``kubectlProvider``), so the
provider is created here from a first import of the cluster and handed to the import that the manifests use.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import (
    Annotations,
    Aws,
    CfnCondition,
    CfnOutput,
    RemovalPolicy,
)
from aws_cdk import (
    aws_ec2 as ec2,
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
from constructs import Construct

from cdk_constructs.compute.eks_cluster import _kubectl_layer, acknowledge_kubectl_provider
from cdk_constructs.compute.fsx_directories import FsxDirectories
from cdk_constructs.compute.fsx_static_volume import FsxStaticVolume
from cdk_constructs.governance.compliance import annotate_cdk_managed_handlers
from cdk_constructs.governance.function_logs import govern_handler_logs
from cdk_constructs.governance.nag_findings import acknowledge, managed_policy, managed_policy_token
from cdk_constructs.studio.existing_file_system import ExistingFileSystemAccess
from cdk_constructs.teams.team import Team
from config import ExistingClusterConfig
from k8s_charts.team_storage import platform_directories

from ._base import PlatformStack
from .studio_stack import StudioStack

NFS = ec2.Port.tcp(2049)
LUSTRE_PORTS = (ec2.Port.tcp(988), ec2.Port.tcp_range(1018, 1023))
"""FSx for Lustre User Guide, "File system access control with Amazon VPC", "Amazon VPC security groups": Lustre
traffic uses TCP 988 and 1018-1023 between clients and the file system's interfaces."""
LOG_RETENTION_DAYS = 365


class _ImportedFileSystem:
    def __init__(self, file_system_id: str) -> None:
        self.file_system_id = file_system_id


class ExistingClusterStudioStack(StudioStack):
    """Studio on an existing HyperPod cluster (module docstring). Attributes beyond :class:`StudioStack`'s:
    ``vpc``, ``subnets``, ``security_group``, ``key``, ``file_system_access``, ``kubectl_role``,
    ``kubectl_access``, ``cluster`` (imported, with this stack's kubectl provider), ``fsx_directories``."""

    def __init__(self, scope: Construct, construct_id: str, *, config: ExistingClusterConfig, **kwargs: Any) -> None:
        PlatformStack.__init__(
            self,
            scope,
            construct_id,
            config=config,
            stateful=True,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): SageMaker Studio domain on the existing HyperPod "
            f"cluster {config.hyperpod_cluster} and its FSx for Lustre {config.file_system.id}",
        )
        self._import_network(config)
        self._create_studio_group_and_key(config)
        kubectl_logs = self._connect_kubectl(config)
        self._add_partitions(config, kubectl_logs=kubectl_logs)
        self._build(
            config=config,
            vpc=self.vpc,
            subnets=self.subnets,
            studio_security_group=self.security_group,
            encryption_key=self.key,
            data_bucket=None,
            file_system=_ImportedFileSystem(config.file_system.id),
            training_images=None,
            cluster=self.cluster,
            directories_ready=self.fsx_directories.wait_handle,
            mlflow=None,
        )
        self._wait_users_for_access(config)
        self._add_existing_outputs(config)

    def _import_network(self, config: ExistingClusterConfig) -> None:
        """Import the existing VPC and subnets."""
        self.vpc = ec2.Vpc.from_vpc_attributes(
            self, "Vpc", vpc_id=config.vpc_id, availability_zones=list(config.availability_zones)
        )
        self.subnets = [
            ec2.Subnet.from_subnet_attributes(self, f"Subnet{i}", subnet_id=s.id, availability_zone=s.availability_zone)
            for i, s in enumerate(config.subnets)
        ]
        for subnet in self.subnets:  # nothing here reads a route table (Studio and Lambda take subnet IDs only)
            Annotations.of(subnet).acknowledge_warning(
                "@aws-cdk/aws-ec2:noSubnetRouteTableId",
                "Only the subnet ID and AZ are used (Studio domain, kubectl handler); no route is read or added",
            )

    def _create_studio_group_and_key(self, config: ExistingClusterConfig) -> None:
        """Create the Studio security group, the key, and the group's access to the file system's interfaces."""
        self.security_group = ec2.SecurityGroup(
            self,
            "StudioSecurityGroup",
            vpc=self.vpc,
            allow_all_outbound=True,
            description=f"SageMaker Studio apps of {config.resource_prefix}: NFS and Lustre from itself (also on the "
            f"interfaces of {config.file_system.id})",
        )
        self.security_group.add_ingress_rule(
            self.security_group, NFS, "NFS between Studio apps and the domain's home volume"
        )
        for port in LUSTRE_PORTS:
            self.security_group.add_ingress_rule(
                self.security_group, port, "Lustre between Studio apps and the FSx file system's interfaces"
            )

        self.key = kms.Key(
            self,
            "Key",
            alias=f"alias/{config.resource_prefix}-studio",
            enable_key_rotation=True,
            description=f"{config.resource_prefix}: Studio home volumes and handler logs",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchLogs",
                principals=[iam.ServicePrincipal(f"logs.{config.region}.amazonaws.com")],
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": (
                            f"arn:{Aws.PARTITION}:logs:{config.region}:{config.account}:log-group:*"
                        )
                    }
                },
            )
        )

        self.file_system_access = ExistingFileSystemAccess(
            self,
            "FileSystemAccess",
            file_system_id=config.file_system.id,
            security_group=self.security_group,
            vpc=self.vpc,
            encryption_key=self.key,
            log_retention_days=LOG_RETENTION_DAYS,
            revision=config.file_system.access_revision,
        )

    def _connect_kubectl(self, config: ExistingClusterConfig) -> iam.Policy:
        """Reach the existing EKS cluster through this stack's kubectl provider; returns its handler's log policy."""
        kubectl, provider = self._add_kubectl_provider(config)
        self._add_imported_cluster(config, provider)
        self._add_kubectl_acknowledgements(kubectl, provider)
        return self._add_kubectl_log_policy(kubectl)

    def _add_kubectl_provider(self, config: ExistingClusterConfig) -> tuple[Construct, eks.KubectlProvider]:
        """Create the kubectl handler's role and provider; returns their scope and the provider."""
        eks_config = config.eks_cluster
        cluster_group = ec2.SecurityGroup.from_security_group_id(
            self, "ClusterSecurityGroup", eks_config.security_group_id, mutable=False
        )
        reference = eks.Cluster.from_cluster_attributes(
            self, "ClusterReference", cluster_name=config.cluster_name, vpc=self.vpc
        )
        kubectl = Construct(self, "Kubectl")
        self.kubectl_role = iam.Role(
            kubectl,
            "HandlerRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"kubectl handler of {config.resource_prefix}: the Studio partitions on {config.cluster_name}",
        )
        provider = eks.KubectlProvider(
            kubectl,
            "KubectlProvider",
            cluster=reference,
            role=self.kubectl_role,
            kubectl_layer=_kubectl_layer(kubectl, eks_config.kubernetes_version),
            private_subnets=self.subnets,
            security_groups=[cluster_group],
        )
        return kubectl, provider

    def _add_imported_cluster(self, config: ExistingClusterConfig, provider: eks.KubectlProvider) -> None:
        """Import the cluster with the kubectl provider and give the handler's role cluster-admin access."""
        eks_config = config.eks_cluster
        self.cluster = eks.Cluster.from_cluster_attributes(
            self,
            "Cluster",
            cluster_name=config.cluster_name,
            vpc=self.vpc,
            kubectl_provider=provider,
            cluster_security_group_id=eks_config.security_group_id,
        )
        self.kubectl_access = eks.AccessEntry(
            self,
            "KubectlAccess",
            cluster=self.cluster,
            principal=self.kubectl_role.role_arn,
            access_policies=[
                eks.AccessPolicy.from_access_policy_name(
                    "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER
                )
            ],
        )

    def _add_kubectl_acknowledgements(self, kubectl: Construct, provider: eks.KubectlProvider) -> None:
        """Acknowledge the AWS-managed policies that the kubectl provider attaches to its handler's role."""
        has_ecr_public = next(c for c in kubectl.node.children if isinstance(c, CfnCondition))
        acknowledge_kubectl_provider(provider, has_ecr_public)
        acknowledge(
            self.kubectl_role,
            "aws_eks_v2's KubectlProvider attaches the AWS-managed VPC execution and ECR "
            "read-only policies to its handler's role (in the VPC, pulls its layers)",
            managed_policy("service-role/AWSLambdaVPCAccessExecutionRole"),
            managed_policy("AmazonEC2ContainerRegistryReadOnly"),
            managed_policy_token(
                {
                    "Fn::If": [
                        self.get_logical_id(has_ecr_public),
                        {
                            "Fn::Join": [
                                "",
                                [
                                    "arn:",
                                    {"Ref": "AWS::Partition"},
                                    ":iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly",
                                ],
                            ]
                        },
                        {"Ref": "AWS::NoValue"},
                    ]
                }
            ),
        )

    def _add_kubectl_log_policy(self, kubectl: Construct) -> iam.Policy:
        """Govern the kubectl handlers' log groups; returns the policy that lets the handler write to them."""
        groups = govern_handler_logs(self, kubectl, retention_days=LOG_RETENTION_DAYS, encryption_key=self.key)
        annotate_cdk_managed_handlers(self, kubectl)
        # The role was passed in, so Lambda's basic execution policy is not attached: it writes to its own groups
        # only. A policy of its own, not the role's default policy: the library's log group is named after the
        # function, which depends on the default policy (a cycle); what invokes the handler waits for this policy.
        return iam.Policy(
            kubectl,
            "WriteItsLogs",
            roles=[self.kubectl_role],
            statements=[
                iam.PolicyStatement(
                    sid="WriteItsLogs",
                    actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                    resources=[group.get_att("Arn").to_string() for group in groups],
                )
            ],
        )

    def _add_partitions(self, config: ExistingClusterConfig, *, kubectl_logs: iam.Policy) -> None:
        """Add the static PV/claim of the existing FSx, the FsxDirectories Job and, optionally, the teams' access."""
        fs = config.file_system
        volume = FsxStaticVolume(
            self,
            "FsxVolume",
            cluster=self.cluster,
            file_system_id=fs.id,
            dns_name=fs.dns_name,
            mount_name=fs.mount_name,
            storage_capacity_gib=fs.storage_capacity_gib,
        )
        self.fsx_directories = FsxDirectories(
            self,
            "FsxDirectories",
            cluster=self.cluster,
            directories=platform_directories(config),
            volume=lambda ns: [volume.persistent_volume(ns), volume.persistent_volume_claim(ns)],
            image=config.studio.partition_job_image,
            node_selector=config.partition_job_node_selector or None,
            revision=config.studio.partition_job_revision,
            after=[self.kubectl_access, kubectl_logs, self.file_system_access.resource],
        )

        # --- optional: the teams' Role and RoleBinding for the group the users' access entries carry ------------
        self.team_access: dict[str, eks.KubernetesManifest] = {}
        if config.kubernetes.team_access:
            for team in Team.all(config.kubernetes.teams):
                manifest = team.access_manifest(self, cluster=self.cluster)
                manifest.node.add_dependency(self.kubectl_access, kubectl_logs)
                self.team_access[team.name] = manifest

    def _wait_users_for_access(self, config: ExistingClusterConfig) -> None:
        """Make every user profile wait for the file system access and its team's binding."""
        teams = {p.name: p.team for p in config.studio.user_profiles}
        for name, user in self.user_profiles.items():  # apps mount the file system through the group's interfaces
            user.node.add_dependency(self.file_system_access.resource)
            if teams[name] in self.team_access:  # and find their team's binding on first start
                user.node.add_dependency(self.team_access[teams[name]])

    def _add_existing_outputs(self, config: ExistingClusterConfig) -> None:
        """Output the HyperPod cluster, the Studio group, the file system's interfaces and the kubectl role."""
        fs = config.file_system
        CfnOutput(
            self,
            "HyperPodCluster",
            value=config.hyperpod_cluster,
            description="The existing HyperPod cluster this Studio domain works with (not modified)",
        )
        CfnOutput(
            self,
            "StudioSecurityGroupId",
            value=self.security_group.security_group_id,
            description=f"Added to the network interfaces of {fs.id} by the FsxNetworkInterfaces custom "
            f"resource (removed again when the stack is deleted)",
        )
        CfnOutput(
            self,
            "FileSystemInterfaces",
            value=self.file_system_access.resource.get_att_string("NetworkInterfaceIds"),
            description=f"Network interfaces of {fs.id} that carry the Studio group",
        )
        CfnOutput(
            self,
            "KubectlRoleArn",
            value=self.kubectl_role.role_arn,
            description=f"Role with an EKS access entry (cluster admin) on {config.cluster_name}, removed with "
            f"the stack",
        )
