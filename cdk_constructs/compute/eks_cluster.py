"""The platform's EKS cluster: native `AWS::EKS::Cluster` (aws_eks_v2), access entries only, pinned add-ons and a
small managed node group for the controllers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import (
    CfnCondition,
    RemovalPolicy,
    Stack,
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
from aws_cdk import (
    aws_lambda as lambda_,
)
from aws_cdk import (
    aws_logs as logs,
)
from constructs import Construct

from cdk_constructs.governance.compliance import ignore_cfn_lint
from cdk_constructs.governance.nag_findings import (
    acknowledge,
    asset_bucket_objects,
    attribute,
    managed_policy,
    managed_policy_token,
    wildcard_actions,
    wildcard_resources,
)

ALL_LOG_TYPES = [
    eks.ClusterLoggingTypes.API,
    eks.ClusterLoggingTypes.AUDIT,
    eks.ClusterLoggingTypes.AUTHENTICATOR,
    eks.ClusterLoggingTypes.CONTROLLER_MANAGER,
    eks.ClusterLoggingTypes.SCHEDULER,
]

SYSTEM_NODE_LABEL = ("llmft.io/node-role", "system")
"""Label of the system node group; controllers select it with a nodeSelector."""

NODE_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)
"""AWS-managed policies of an EKS node role (system nodes and Karpenter nodes)."""

_ADDON_NAMES = {
    "vpc_cni": "vpc-cni",
    "coredns": "coredns",
    "kube_proxy": "kube-proxy",
    "eks_pod_identity_agent": "eks-pod-identity-agent",
    "aws_fsx_csi_driver": "aws-fsx-csi-driver",
}


def _kubectl_layer(scope: Construct, version: str) -> lambda_.ILayerVersion:
    """The kubectl/helm Lambda layer matching the Kubernetes minor version (pinned packages in requirements.txt)."""
    if version == "1.34":
        from aws_cdk.lambda_layer_kubectl_v34 import KubectlV34Layer

        return KubectlV34Layer(scope, "KubectlLayer")
    if version == "1.33":
        from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer

        return KubectlV33Layer(scope, "KubectlLayer")
    raise ValueError(
        f"no kubectl layer pinned for Kubernetes {version}; add aws-cdk.lambda-layer-kubectl-v"
        f"{version.replace('1.', '')} to requirements.txt and map it here"
    )


class PlatformEksCluster(Construct):
    """An EKS cluster ready for SageMaker HyperPod: authentication mode API (access entries only, cluster-creator
    admin off), private endpoint (public only for explicit CIDRs), all five control-plane log types, secrets
    envelope-encrypted with ``encryption_key``, EKS add-ons pinned by version, and a managed system node group.

    Attributes: ``cluster`` (``eks.Cluster``), ``addons`` (add-on name -> ``eks.Addon``), ``system_nodegroup``,
    ``node_role`` (role of the system nodes), ``cluster_security_group`` (EKS-created, on the control-plane ENIs; see
    :meth:`allow_api_from`).

    :param cluster_name: the EKS cluster name (also the Karpenter discovery tag value).
    :param version: Kubernetes minor version, e.g. ``"1.34"``.
    :param vpc: the platform VPC.
    :param subnets: subnets of the control-plane ENIs and the system nodes (private with egress).
    :param control_plane_security_group: additional security group of the control-plane ENIs (the nodes' group,
        which allows all traffic from itself and from the HyperPod/EFA nodes).
    :param encryption_key: KMS key for envelope encryption of Kubernetes secrets.
    :param addon_versions: add-on name (``vpc-cni``, ``coredns``, ``kube-proxy``, ``eks-pod-identity-agent``,
        ``aws-fsx-csi-driver``) -> pinned version. Required.
    :param admin_role_arns: IAM roles given ``AmazonEKSClusterAdminPolicy`` access entries. Default: none.
    :param public_access_cidrs: turn on the public endpoint for these CIDRs only. Default: private only.
    :param system_instance_types: default ``["m7i.xlarge"]``.
    :param system_min_size / system_desired_size / system_max_size: default 2 / 2 / 4.
    :param system_disk_size_gib: encrypted gp3 root volume of the system nodes, default 50.
    :param log_encryption_key: KMS key of the control-plane log group (its policy must admit CloudWatch Logs).
        Default: CloudWatch Logs' own encryption.
    :param log_retention: retention of the control-plane log group, default one month.
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the
        create that made it rolls back, so a retry finds no orphan) (the cluster holds every workload's state).

    The control-plane log group ``/aws/eks/<cluster_name>/cluster`` (``control_plane_log_group``) is created before
    the cluster: EKS writes into an existing group of that name and would otherwise create one without encryption or
    retention ("Send control plane logs to CloudWatch Logs", EKS User Guide).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster_name: str,
        version: str,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        control_plane_security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        addon_versions: Mapping[str, str],
        admin_role_arns: Sequence[str] = (),
        public_access_cidrs: Sequence[str] = (),
        system_instance_types: Sequence[str] = ("m7i.xlarge",),
        system_min_size: int = 2,
        system_desired_size: int = 2,
        system_max_size: int = 4,
        system_disk_size_gib: int = 50,
        log_encryption_key: kms.IKey | None = None,
        log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
        super().__init__(scope, construct_id)
        self._build_cluster(
            cluster_name=cluster_name,
            version=version,
            vpc=vpc,
            subnets=subnets,
            control_plane_security_group=control_plane_security_group,
            encryption_key=encryption_key,
            admin_role_arns=admin_role_arns,
            public_access_cidrs=public_access_cidrs,
            log_encryption_key=log_encryption_key,
            log_retention=log_retention,
            removal_policy=removal_policy,
        )
        self._build_addons(addon_versions)
        self._build_system_nodes(
            cluster_name=cluster_name,
            subnets=subnets,
            control_plane_security_group=control_plane_security_group,
            instance_types=system_instance_types,
            min_size=system_min_size,
            desired_size=system_desired_size,
            max_size=system_max_size,
            disk_size_gib=system_disk_size_gib,
        )

    def _build_cluster(
        self,
        *,
        cluster_name: str,
        version: str,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        control_plane_security_group: ec2.ISecurityGroup,
        encryption_key: kms.IKey,
        admin_role_arns: Sequence[str],
        public_access_cidrs: Sequence[str],
        log_encryption_key: kms.IKey | None,
        log_retention: logs.RetentionDays,
        removal_policy: RemovalPolicy,
    ) -> None:
        """The control-plane log group, the cluster and the admins' access entries."""
        self.control_plane_log_group = logs.LogGroup(
            self,
            "ControlPlaneLogs",
            log_group_name=f"/aws/eks/{cluster_name}/cluster",
            retention=log_retention,
            encryption_key=log_encryption_key,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        endpoint = (
            eks.EndpointAccess.PUBLIC_AND_PRIVATE.only_from(*public_access_cidrs)
            if public_access_cidrs
            else eks.EndpointAccess.PRIVATE
        )
        self.cluster = eks.Cluster(
            self,
            "Cluster",
            cluster_name=cluster_name,
            version=eks.KubernetesVersion.of(version),
            vpc=vpc,
            vpc_subnets=[ec2.SubnetSelection(subnets=list(subnets))],
            security_group=control_plane_security_group,
            endpoint_access=endpoint,
            default_capacity=0,
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
            bootstrap_cluster_creator_admin_permissions=False,
            bootstrap_self_managed_addons=False,  # the EKS add-ons below replace them, at pinned versions
            secrets_encryption_key=encryption_key,
            cluster_logging=ALL_LOG_TYPES,
            kubectl_provider_options=eks.KubectlProviderOptions(
                kubectl_layer=_kubectl_layer(self, version),
                private_subnets=list(subnets),
            ),
            removal_policy=removal_policy,
        )
        self.cluster.node.add_dependency(self.control_plane_log_group)
        self._acknowledge_kubectl_provider()

        for i, arn in enumerate(admin_role_arns):
            eks.AccessEntry(
                self,
                f"Admin{i}",
                cluster=self.cluster,
                principal=arn,
                access_policies=[
                    eks.AccessPolicy.from_access_policy_name(
                        "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER
                    )
                ],
            )

    def _build_addons(self, addon_versions: Mapping[str, str]) -> None:
        """The EKS add-ons at their pinned versions (``addons`` by EKS name)."""
        self.addons: dict[str, eks.Addon] = {}
        for field, name in _ADDON_NAMES.items():
            version_ = addon_versions[name] if name in addon_versions else addon_versions[field]
            self.addons[name] = eks.Addon(
                self,
                f"Addon{''.join(p.title() for p in name.split('-'))}",
                cluster=self.cluster,
                addon_name=name,
                addon_version=version_,
                preserve_on_delete=False,
                configuration_values={"enableNetworkPolicy": "true"} if name == "vpc-cni" else None,
            )

    def _build_system_nodes(
        self,
        *,
        cluster_name: str,
        subnets: Sequence[ec2.ISubnet],
        control_plane_security_group: ec2.ISecurityGroup,
        instance_types: Sequence[str],
        min_size: int,
        desired_size: int,
        max_size: int,
        disk_size_gib: int,
    ) -> None:
        """The system node group (controllers) with its role and launch template, ordered against the add-ons."""
        self.node_role = iam.Role(
            self,
            "SystemNodeRole",
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            description=f"{cluster_name}: EKS system node group (controllers)",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in NODE_POLICIES],
        )
        acknowledge(
            self.node_role,
            "EKS worker nodes need the AWS-managed node, CNI, ECR pull and SSM policies that "
            "EKS documents for managed node groups; AWS keeps them current.",
            *(managed_policy(n) for n in NODE_POLICIES),
        )
        launch_template = ec2.LaunchTemplate(
            self,
            "SystemNodeTemplate",
            require_imdsv2=True,
            http_put_response_hop_limit=1,  # pods cannot reach the node role through IMDS
            block_devices=[
                ec2.BlockDevice(
                    device_name="/dev/xvda",
                    volume=ec2.BlockDeviceVolume.ebs(
                        disk_size_gib,
                        encrypted=True,
                        volume_type=ec2.EbsDeviceVolumeType.GP3,
                        delete_on_termination=True,
                    ),
                )
            ],
            security_group=control_plane_security_group,
        )
        self.cluster_security_group = ec2.SecurityGroup.from_security_group_id(
            self, "ClusterSecurityGroup", self.cluster.cluster_security_group_id
        )
        launch_template.add_security_group(self.cluster_security_group)
        self.system_nodegroup = self.cluster.add_nodegroup_capacity(
            "SystemNodes",
            instance_types=[ec2.InstanceType(t) for t in instance_types],
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD,
            min_size=min_size,
            desired_size=desired_size,
            max_size=max_size,
            subnets=ec2.SubnetSelection(subnets=list(subnets)),
            labels=dict([SYSTEM_NODE_LABEL]),
            node_role=self.node_role,
            launch_template_spec=eks.LaunchTemplateSpec(
                id=launch_template.launch_template_id or "", version=launch_template.latest_version_number
            ),
            enable_node_auto_repair=True,
        )
        # The CNI must run before nodes can become Ready. Add-ons with Deployments (CoreDNS, the FSx CSI controller)
        # or node agents only become ACTIVE once a node runs them, so they wait for the system nodes.
        self.system_nodegroup.node.add_dependency(self.addons["vpc-cni"], self.addons["kube-proxy"])
        for name in ("coredns", "eks-pod-identity-agent", "aws-fsx-csi-driver"):
            self.addons[name].node.add_dependency(self.system_nodegroup)

    def allow_api_from(self, client: ec2.ISecurityGroup, description: str) -> None:
        """Admit ``client`` to the private API endpoint: HTTPS to the cluster security group EKS puts on the
        control-plane ENIs (it admits only itself by default; https://docs.aws.amazon.com/eks/latest/userguide/
        sec-group-reqs.html)."""
        self.cluster_security_group.add_ingress_rule(client, ec2.Port.tcp(443), description)

    @property
    def cluster_name(self) -> str:
        return self.cluster.cluster_name

    @property
    def system_node_selector(self) -> dict[str, str]:
        """nodeSelector of the controllers (Karpenter, KubeRay, operators)."""
        return dict([SYSTEM_NODE_LABEL])

    def _acknowledge_kubectl_provider(self) -> None:
        """Findings on resources aws_eks_v2 creates for the cluster itself (role, kubectl provider)."""
        acknowledge(
            self.cluster.role,
            "EKS requires AmazonEKSClusterPolicy on the cluster role; AWS maintains it "
            "as the control plane gains features.",
            managed_policy("AmazonEKSClusterPolicy"),
        )
        provider = self.cluster.kubectl_provider
        if provider is None:  # pragma: no cover - always created by aws_eks_v2.Cluster
            return
        handler = provider.node.find_child("Handler")
        acknowledge_kubectl_provider(provider, next(c for c in handler.node.children if isinstance(c, CfnCondition)))


def acknowledge_kubectl_provider(provider: Construct, has_ecr_public: CfnCondition) -> None:
    """Findings on the resources of an aws_eks_v2 ``KubectlProvider`` (its handler, role and provider framework),
    whether the cluster created it or a stack made one for an imported cluster. ``has_ecr_public``: the
    ``HasEcrPublic`` condition aws-cdk-lib creates beside the handler's role (in the role's scope)."""
    stack = Stack.of(provider)
    handler = provider.node.find_child("Handler")
    acknowledge(
        provider,
        "The kubectl provider Lambda functions of aws_eks_v2 run in the VPC and pull the kubectl/helm layer; "
        "they use the AWS-managed Lambda basic/VPC execution and ECR read-only policies the library attaches.",
        managed_policy("service-role/AWSLambdaBasicExecutionRole"),
        managed_policy("service-role/AWSLambdaVPCAccessExecutionRole"),
        managed_policy("AmazonEC2ContainerRegistryReadOnly"),
        managed_policy_token(
            {
                "Fn::If": [
                    stack.get_logical_id(has_ecr_public),
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
    acknowledge(
        provider,
        "The kubectl handler reads chart and manifest assets by object key from the CDK asset bucket, and its "
        "provider framework invokes any version of the handler function (ARN suffix :*).",
        *wildcard_actions("s3:GetBucket*", "s3:GetObject*", "s3:List*"),
        *wildcard_resources(asset_bucket_objects(stack), f"{attribute(handler)}:*"),
    )
    for function in (handler, provider.node.find_child("Provider").node.find_child("framework-onEvent")):
        ignore_cfn_lint(
            function,
            "W3005",
            "aws-cdk-lib adds DependsOn on the function's service role next to the "
            "GetAtt; harmless and not editable from here.",
        )
    acknowledge(
        provider,
        "The kubectl handler runtime is chosen by aws-cdk-lib to match the kubectl/helm layer "
        "build; it moves forward with aws-cdk-lib upgrades.",
        "L1",
    )
