"""A SageMaker HyperPod cluster orchestrated by EKS, with its execution role and lifecycle scripts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from aws_cdk import (
    CfnResource,
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
    aws_s3 as s3,
)
from aws_cdk import (
    aws_s3_deployment as s3deploy,
)
from aws_cdk import (
    aws_sagemaker as sagemaker,
)
from constructs import Construct, IDependable

from cdk_constructs.governance.compliance import skip_checkov
from cdk_constructs.governance.nag_findings import acknowledge, attribute, managed_policy, wildcard_resources
from cdk_constructs.governance.trust_conditions import exempt_from_trust_conditions
from cdk_constructs.storage.secure_bucket import SecureBucket

LIFECYCLE_SCRIPTS_DIR = Path(__file__).resolve().parents[2] / "lifecycle_scripts"
ON_CREATE = "on_create.sh"
LIFECYCLE_PREFIX = "lifecycle-scripts/"

HYPERPOD_LABEL = ("node-type", "hyperpod")
HYPERPOD_TAINT = ("dedicated", "hyperpod", "NoSchedule")
DEEP_HEALTH_CHECKS = ["InstanceStress", "InstanceConnectivity"]
VPC_ACTIONS_WITHOUT_RESOURCE_LEVEL = (
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeVpcs",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeNetworkInterfaces",
    "cloudwatch:DescribeAlarms",
)
EXECUTION_ROLE_POLICIES = (
    "AmazonSageMakerClusterInstanceRolePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
)


@dataclass(frozen=True)
class InstanceGroup:
    """One HyperPod instance group (see config.compute.InstanceGroupConfig for the rules)."""

    name: str
    instance_type: str
    count: int
    gpu_type: str
    threads_per_core: int = 1
    ebs_volume_size_gb: int = 500
    deep_health_checks: bool = False
    training_plan_arn: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)


class HyperPodCluster(Construct):
    """`AWS::SageMaker::Cluster` with ``Orchestrator.Eks``, node recovery, continuous provisioning.

    - ``execution_role``: ``AmazonSageMakerClusterInstanceRolePolicy`` plus what the nodes need: the EKS CNI policy,
      ECR pull, read of the lifecycle scripts, ``fsx:DescribeFileSystems`` (without it the Lustre client silently
      falls back from EFA to TCP) and ``eks-auth:AssumeRoleForPodIdentity``. Data access belongs to the pods (EKS
      Pod Identity), not to the node role every pod on the node could borrow;
    - ``lifecycle_bucket``: a ``sagemaker-*`` bucket (the managed policy only reads buckets named so) holding
      ``lifecycle_scripts/`` under :data:`LIFECYCLE_PREFIX`, deployed before the cluster is created;
    - ``cluster``: the ``CfnCluster``. Every instance group gets label ``node-type: hyperpod``, ``gpu-type: <...>``
      and taint ``dedicated=hyperpod:NoSchedule``; GPU groups run the on-start deep health checks.

    :param cluster_name: HyperPod cluster name.
    :param eks_cluster: the orchestrating EKS cluster.
    :param subnet: the HyperPod subnet (secondary CIDR, GPU AZ).
    :param security_group: the EFA security group.
    :param instance_groups: at least one group.
    :param bucket_name: name of the lifecycle bucket; must start with ``sagemaker-``.
    :param node_recovery: ``Automatic`` (default) or ``None``.
    :param prerequisites: what must exist on the EKS cluster before HyperPod is created (a CloudFormation
        dependency is added on each).
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the
        create that made it rolls back, so a retry finds no orphan) (nodes hold running jobs; deleting the stack must
        not kill them).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster_name: str,
        eks_cluster: eks.ICluster,
        subnet: ec2.ISubnet,
        security_group: ec2.ISecurityGroup,
        instance_groups: Sequence[InstanceGroup],
        bucket_name: str,
        node_recovery: str = "Automatic",
        prerequisites: Sequence[IDependable] = (),
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
        super().__init__(scope, construct_id)
        if not instance_groups:
            raise ValueError("HyperPodCluster needs at least one instance group")
        if not bucket_name.startswith("sagemaker-"):
            raise ValueError(
                f"lifecycle bucket {bucket_name!r} must start with 'sagemaker-' so that "
                f"AmazonSageMakerClusterInstanceRolePolicy lets the nodes read it"
            )

        self._build_lifecycle_scripts(bucket_name)
        self._build_execution_role(cluster_name, eks_cluster)

        # --- the cluster --------------------------------------------------------------------------------------
        source = f"s3://{bucket_name}/{LIFECYCLE_PREFIX}"
        self.cluster = sagemaker.CfnCluster(
            self,
            "Cluster",
            cluster_name=cluster_name,
            orchestrator=sagemaker.CfnCluster.OrchestratorProperty(
                eks=sagemaker.CfnCluster.ClusterOrchestratorEksConfigProperty(cluster_arn=eks_cluster.cluster_arn)
            ),
            vpc_config=sagemaker.CfnCluster.VpcConfigProperty(
                security_group_ids=[security_group.security_group_id], subnets=[subnet.subnet_id]
            ),
            node_recovery=node_recovery,
            node_provisioning_mode="Continuous",
            instance_groups=[self._group(g, source) for g in instance_groups],
        )
        self.cluster.apply_removal_policy(removal_policy)
        # The role itself is referenced (GetAtt); its inline policy must exist too before nodes read the scripts.
        self.cluster.node.add_dependency(
            self.lifecycle_deployment, self.execution_role.node.find_child("DefaultPolicy"), *prerequisites
        )

    def _build_lifecycle_scripts(self, bucket_name: str) -> None:
        """The ``sagemaker-*`` bucket and the deployment of lifecycle_scripts/ into it."""
        self.lifecycle_bucket = SecureBucket(self, "LifecycleScripts").bucket
        cast(s3.CfnBucket, self.lifecycle_bucket.node.default_child).bucket_name = bucket_name
        acknowledge(
            self.lifecycle_bucket,
            "The bucket holds only the HyperPod lifecycle scripts, which are versioned "
            "in git and deployed by CloudFormation; no user data to audit access to.",
            "S1",
        )
        skip_checkov(
            self.lifecycle_bucket,
            "CKV_AWS_18",
            "Holds only the HyperPod lifecycle scripts deployed by CloudFormation; logging into the storage "
            "stack's log bucket would make that stack depend on this one (a cycle)",
        )
        self.lifecycle_deployment = s3deploy.BucketDeployment(
            self,
            "DeployLifecycleScripts",
            sources=[s3deploy.Source.asset(str(LIFECYCLE_SCRIPTS_DIR))],
            destination_bucket=self.lifecycle_bucket,
            destination_key_prefix=LIFECYCLE_PREFIX,
            prune=True,
            retain_on_delete=False,
        )
        # The deployment's singleton handler (aws-cdk-lib) logs to a log group named after the function, Retain by
        # default: a rolled-back first deploy would leave it behind.
        for singleton in Stack.of(self).node.children:
            if singleton.node.id.startswith("Custom::CDKBucketDeployment"):
                for node in singleton.node.find_all():
                    if isinstance(node, CfnResource) and node.cfn_resource_type == "AWS::Logs::LogGroup":
                        node.apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)

    def _build_execution_role(self, cluster_name: str, eks_cluster: eks.ICluster) -> None:
        """The instance role of the HyperPod nodes: the managed instance, CNI and ECR policies, the lifecycle
        scripts, Pod Identity and the network interfaces HyperPod attaches in our subnet."""
        self.execution_role = iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"),
            description=f"{cluster_name}: SageMaker HyperPod instance role",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in EXECUTION_ROLE_POLICIES],
        )
        exempt_from_trust_conditions(
            self.execution_role,
            "HyperPod nodes take this role like an EC2 instance profile; SageMaker documents aws:SourceArn/"
            "aws:SourceAccount for jobs, endpoints and Studio, not for cluster instances, and a key the service does "
            "not send would keep every node from getting credentials.",
        )
        self._grant_node_access(eks_cluster)
        network_interfaces = self._grant_network_interfaces()
        self._acknowledge_execution_role(network_interfaces)

    def _grant_node_access(self, eks_cluster: eks.ICluster) -> None:
        """Let the nodes read the lifecycle scripts, discover FSx and take Pod Identity roles."""
        self.execution_role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="ReadLifecycleScripts",
                actions=["s3:GetObject"],
                resources=[self.lifecycle_bucket.arn_for_objects(f"{LIFECYCLE_PREFIX}*")],
            )
        )
        self.execution_role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="ListLifecycleScripts",
                actions=["s3:ListBucket"],
                resources=[self.lifecycle_bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{LIFECYCLE_PREFIX}*"]}},
            )
        )
        self.execution_role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="FsxLustreClientDiscovery",
                actions=["fsx:DescribeFileSystems"],  # the Lustre client checks EFA support; without it: TCP
                resources=["*"],
            )
        )
        self.execution_role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="PodIdentity",
                actions=["eks-auth:AssumeRoleForPodIdentity"],
                resources=[eks_cluster.cluster_arn],
            )
        )

    def _grant_network_interfaces(self) -> str:
        """Let HyperPod attach network interfaces in our subnet; returns their ARN pattern."""
        # With a VpcConfig, HyperPod attaches network interfaces in our subnet to its instances through this role.
        # AWS's reference execution role (aws-samples/awsome-distributed-training, 1.architectures/
        # 7.sagemaker-hyperpod-eks/cfn-templates/nested-stacks/sagemaker-iam-role-stack.yaml, commit 7217859) grants
        # these on top of the instance-role, CNI and ECR managed policies (tests/test_compute.py
        # test_execution_role_covers_the_reference_role diffs the two). Describe*, DeleteNetworkInterfacePermission
        # and DescribeAlarms on "*" as there, held to this region. Left out: ecr:BatchCheckLayerAvailability, which
        # only pushes use (AmazonEC2ContainerRegistryPullOnly omits it).
        stack = Stack.of(self)
        region_only = {"StringEquals": {"aws:RequestedRegion": stack.region}}
        network_interfaces = stack.format_arn(service="ec2", resource="network-interface", resource_name="*")
        self.execution_role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="VpcNetworkInterfacePermissions",
                actions=["ec2:CreateNetworkInterfacePermission"],
                resources=[network_interfaces],
            )
        )
        self.execution_role.add_to_principal_policy(
            iam.PolicyStatement(
                sid="VpcDiscovery",
                actions=[*VPC_ACTIONS_WITHOUT_RESOURCE_LEVEL],
                resources=["*"],
                conditions=region_only,
            )
        )
        return network_interfaces

    def _acknowledge_execution_role(self, network_interfaces: str) -> None:
        """Record the reviewed wildcard and managed-policy findings of the execution role."""
        acknowledge(
            self.execution_role,
            "HyperPod creates the network interfaces of its instances in our subnet at "
            "run time (IDs unknown in advance); the Describe, DeleteNetworkInterfacePermission "
            "and DescribeAlarms calls name no resource in advance and are region-bound.",
            *wildcard_resources(network_interfaces),
        )
        acknowledge(
            self.execution_role,
            "HyperPod requires AmazonSageMakerClusterInstanceRolePolicy on the instance "
            "role; the CNI and ECR pull managed policies are what every EKS node needs.",
            *(managed_policy(n) for n in EXECUTION_ROLE_POLICIES),
        )
        acknowledge(
            self.execution_role,
            "Nodes read every lifecycle script under the scripts prefix; "
            "fsx:DescribeFileSystems has no resource-level permissions.",
            *wildcard_resources("*", f"{attribute(self.lifecycle_bucket)}/{LIFECYCLE_PREFIX}*"),
        )

    def _group(self, group: InstanceGroup, source: str) -> sagemaker.CfnCluster.ClusterInstanceGroupProperty:
        labels = {**group.labels, HYPERPOD_LABEL[0]: HYPERPOD_LABEL[1], "gpu-type": group.gpu_type}
        key, value, effect = HYPERPOD_TAINT
        return sagemaker.CfnCluster.ClusterInstanceGroupProperty(
            instance_group_name=group.name,
            instance_type=group.instance_type,
            instance_count=group.count,
            execution_role=self.execution_role.role_arn,
            threads_per_core=group.threads_per_core,
            life_cycle_config=sagemaker.CfnCluster.ClusterLifeCycleConfigProperty(
                source_s3_uri=source, on_create=ON_CREATE
            ),
            instance_storage_configs=[
                sagemaker.CfnCluster.ClusterInstanceStorageConfigProperty(
                    ebs_volume_config=sagemaker.CfnCluster.ClusterEbsVolumeConfigProperty(
                        volume_size_in_gb=group.ebs_volume_size_gb
                    )
                )
            ],
            on_start_deep_health_checks=list(DEEP_HEALTH_CHECKS) if group.deep_health_checks else None,
            training_plan_arn=group.training_plan_arn,
            kubernetes_config=sagemaker.CfnCluster.ClusterKubernetesConfigProperty(
                labels=labels,
                taints=[sagemaker.CfnCluster.ClusterKubernetesTaintProperty(key=key, value=value, effect=effect)],
            ),
        )

    @property
    def cluster_arn(self) -> str:
        return self.cluster.attr_cluster_arn
