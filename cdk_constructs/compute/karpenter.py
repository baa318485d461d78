"""Karpenter: controller (Helm, OCI), its IAM through EKS Pod Identity, the node role and the interruption queue."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from aws_cdk import (
    Aws,
    Duration,
)
from aws_cdk import (
    aws_eks_v2 as eks,
)
from aws_cdk import (
    aws_events as events,
)
from aws_cdk import (
    aws_events_targets as targets,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_sqs as sqs,
)
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnSite, SystemPod, register, requests_of
from cdk_constructs.compute.eks_cluster import NODE_POLICIES
from cdk_constructs.governance.compliance import skip_checkov
from cdk_constructs.governance.nag_findings import acknowledge, managed_policy, wildcard_actions, wildcard_resources
from config.charts import KARPENTER_CHART_VERSION

KARPENTER_REGISTRY = "oci://public.ecr.aws/karpenter"
"""ECR Public namespace of Karpenter's charts: ``<registry>/karpenter`` and ``<registry>/karpenter-crd``
(https://karpenter.sh/docs/getting-started/getting-started-with-karpenter/ installs
``oci://public.ecr.aws/karpenter/karpenter``). aws_eks_v2's Helm handler runs ``helm pull <Repository> --version
<Version> --untar`` for ``oci://`` repositories and ignores ``Chart``, so ``repository`` must be the chart's full
OCI path (see tests/test_helm_targets.py)."""
KARPENTER_VERSION = KARPENTER_CHART_VERSION
"""Default chart version (config/charts.py; per environment: ``compute.charts.karpenter``)."""

KARPENTER_NAMESPACE = "kube-system"
KARPENTER_SERVICE_ACCOUNT = "karpenter"


def helm_values(
    *,
    cluster_name: str,
    interruption_queue_name: str,
    replicas: int = 2,
    node_selector: Mapping[str, str] | None = None,
) -> dict:
    """Controller chart values: replicas on ``node_selector`` with requests, the service account its Pod Identity
    association names, the cluster and the interruption queue."""
    return {
        "replicas": replicas,
        "serviceAccount": {"name": KARPENTER_SERVICE_ACCOUNT},
        "settings": {"clusterName": cluster_name, "interruptionQueue": interruption_queue_name},
        "nodeSelector": dict(node_selector or {}),
        "controller": {"resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}},
    }


def install(site: AddOnSite, _addon: AddOn) -> Karpenter:
    """Both declarations at once, as construct ``Karpenter``: the controller's values name the interruption queue
    the construct creates."""
    karpenter = Karpenter(
        site.scope,
        "Karpenter",
        cluster=site.cluster,
        cluster_name=site.config.cluster_name,
        volume_encryption_key=site.encryption_key,
        node_selector=site.node_selector,
        replicas=site.config.compute.karpenter.replicas,
        after=site.installed.after_all(Karpenter.addons),
        version=KARPENTER.version_in(site.config),
    )
    site.installed.add(KARPENTER_CRD, [karpenter.crd_release])
    site.installed.add(KARPENTER, [karpenter.release])
    return karpenter


def system_pods(values: Mapping[str, Any]) -> list[SystemPod]:
    """The controller's replicas (:func:`helm_values` sets both ``replicas`` and the requests)."""
    return [SystemPod("karpenter", requests_of(values["controller"]["resources"]), values["replicas"])]


KARPENTER_CRD = register(
    AddOn(
        name="karpenter-crd",
        chart="karpenter-crd",
        release="karpenter-crd",
        namespace=KARPENTER_NAMESPACE,
        repository=f"{KARPENTER_REGISTRY}/karpenter-crd",
        version=KARPENTER_CHART_VERSION,
        version_setting="karpenter",
        needs=(SYSTEM_NODES, "eks-pod-identity-agent"),
        wait=None,
        provides_platform_crds=True,
        installer=install,
    )
)
"""Karpenter's CRDs (NodePool, EC2NodeClass, NodeClaim), a chart of their own so that upgrades upgrade them."""
KARPENTER = register(
    AddOn(
        name="karpenter",
        chart="karpenter",
        release="karpenter",
        namespace=KARPENTER_NAMESPACE,
        repository=f"{KARPENTER_REGISTRY}/karpenter",
        version=KARPENTER_CHART_VERSION,
        version_setting="karpenter",
        needs=(SYSTEM_NODES, "eks-pod-identity-agent", "karpenter-crd"),
        skip_crds=True,
        provides_platform_crds=True,
        installer=install,
        system_pods=system_pods,
    )
)
"""The controller; its values name the interruption queue the :class:`Karpenter` construct creates, so only that
construct installs it."""

CREATED_EC2 = (
    "fleet/*",
    "instance/*",
    "volume/*",
    "network-interface/*",
    "launch-template/*",
    "spot-instances-request/*",
)
"""EC2 resources Karpenter creates (ARNs scoped to the account; everything else it uses may be shared)."""


def _ec2_arn(resource: str) -> str:
    """The EC2 ARN of ``resource`` in this region: the account's own for what Karpenter creates, any account's for
    images, snapshots, security groups, subnets and capacity reservations."""
    region, account, partition = Aws.REGION, Aws.ACCOUNT_ID, Aws.PARTITION
    if resource.startswith(
        ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
    ):
        return f"arn:{partition}:ec2:{region}:{account}:{resource}"
    return f"arn:{partition}:ec2:{region}:*:{resource}"


SPOT_SERVICE = "spot.amazonaws.com"
SPOT_SERVICE_LINKED_ROLE = "AWSServiceRoleForEC2Spot"

INTERRUPTION_EVENTS: dict[str, tuple[str, str]] = {
    "ScheduledChange": ("aws.health", "AWS Health Event"),
    "SpotInterruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "Rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "InstanceStateChange": ("aws.ec2", "EC2 Instance State-change Notification"),
}
"""EventBridge rule id -> (source, detail-type) that Karpenter's interruption handling consumes."""


class Karpenter(Construct):
    """Karpenter v1 on the system nodes of ``cluster``.

    - ``node_role``: role of the nodes Karpenter launches (EC2NodeClass ``role``), with an access entry of type
      ``EC2_LINUX`` so they can join the cluster;
    - ``controller_role``: the controller's role, bound to service account ``kube-system/karpenter`` by an EKS Pod
      Identity association; EC2 actions are scoped by the cluster's tags;
    - ``interruption_queue`` with EventBridge rules for spot interruption, rebalance recommendation, instance state
      change and AWS Health scheduled change;
    - ``crd_release`` (:data:`KARPENTER_CRD`) and ``release`` (:data:`KARPENTER`), both pinned to ``version``
      from ECR Public.

    NodePools and EC2NodeClasses are not created here: they select subnets and security groups by the tag
    ``karpenter.sh/discovery: <cluster name>`` (:attr:`discovery_tag`).

    :param cluster: the EKS cluster (native, authentication mode API).
    :param cluster_name: its name (a plain string: used in IAM conditions and the chart settings).
    :param volume_encryption_key: KMS key the EC2NodeClasses may use for node volumes. Default: none.
    :param node_selector: nodeSelector of the controller pods. Default: any node.
    :param replicas: controller replicas, default 2.
    :param after: constructs to install after (system node group, pod identity agent add-on).
    :param version: chart version of both charts. Default :data:`KARPENTER_VERSION`.
    """

    addons = (KARPENTER_CRD, KARPENTER)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        cluster_name: str,
        volume_encryption_key: kms.IKey | None = None,
        node_selector: Mapping[str, str] | None = None,
        replicas: int = 2,
        after: Sequence[IDependable] = (),
        version: str = KARPENTER_VERSION,
    ) -> None:
        super().__init__(scope, construct_id)
        self.cluster_name = cluster_name
        self.namespace = KARPENTER_NAMESPACE
        self.service_account = KARPENTER_SERVICE_ACCOUNT

        self._build_nodes(cluster)
        self._build_interruption_queue()
        self._build_controller_iam(cluster, volume_encryption_key)
        self._install(cluster=cluster, version=version, replicas=replicas, node_selector=node_selector, after=after)

    def _build_nodes(self, cluster: eks.Cluster) -> None:
        """Create the role of the nodes Karpenter launches and its EC2_LINUX access entry."""
        self.node_role = iam.Role(
            self,
            "NodeRole",
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            description=f"{self.cluster_name}: nodes launched by Karpenter",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in NODE_POLICIES],
        )
        acknowledge(
            self.node_role,
            "Karpenter nodes are EKS worker nodes: they need the AWS-managed worker, CNI, ECR "
            "pull and SSM policies the Karpenter and EKS guides prescribe for node roles.",
            *(managed_policy(n) for n in NODE_POLICIES),
        )
        self.node_access_entry = eks.AccessEntry(
            self,
            "NodeAccessEntry",
            cluster=cluster,
            principal=self.node_role.role_arn,
            access_entry_type=eks.AccessEntryType.EC2_LINUX,
            access_policies=[],
        )
        # EC2_LINUX entries take no access policies: EKS puts the nodes in system:nodes itself.
        cast(eks.CfnAccessEntry, self.node_access_entry.node.default_child).add_property_deletion_override(
            "AccessPolicies"
        )

    def _build_interruption_queue(self) -> None:
        """Create the interruption queue and the EventBridge rules that feed it."""
        self.interruption_queue = sqs.Queue(
            self,
            "InterruptionQueue",
            retention_period=Duration.minutes(5),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )
        skip_checkov(
            self.interruption_queue,
            "CKV_AWS_27",
            "Encrypted with SQS-managed SSE (SqsManagedSseEnabled); this checkov version only recognizes a "
            "KMS key, which would need EventBridge grants for notices that carry no sensitive data",
        )
        acknowledge(
            self.interruption_queue,
            "Interruption notices are only useful for minutes; Karpenter deletes "
            "what it handles, so a dead-letter queue would only collect stale events.",
            "SQS3",
        )
        self.rules: dict[str, events.Rule] = {}
        for rule_id, (source, detail_type) in INTERRUPTION_EVENTS.items():
            rule = events.Rule(
                self,
                f"{rule_id}Rule",
                description=f"Karpenter ({self.cluster_name}): {detail_type}",
                event_pattern=events.EventPattern(source=[source], detail_type=[detail_type]),
            )
            rule.add_target(targets.SqsQueue(self.interruption_queue))
            self.rules[rule_id] = rule

    def _build_controller_iam(self, cluster: eks.Cluster, volume_encryption_key: kms.IKey | None) -> None:
        """Create the controller's role and policy and bind them to its service account (EKS Pod Identity)."""
        self.controller_role = iam.Role(
            self,
            "ControllerRole",
            assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags(),
            description=f"{self.cluster_name}: Karpenter controller (EKS Pod Identity)",
        )
        self._controller_policy(cluster, volume_encryption_key)
        self.pod_identity = eks.CfnPodIdentityAssociation(
            self,
            "PodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=self.namespace,
            service_account=self.service_account,
            role_arn=self.controller_role.role_arn,
        )

    def _install(
        self,
        *,
        cluster: eks.Cluster,
        version: str,
        replicas: int,
        node_selector: Mapping[str, str] | None,
        after: Sequence[IDependable],
    ) -> None:
        """Install the CRD and controller Helm releases after ``after``."""
        self.crd_release = KARPENTER_CRD.helm_chart(self, "Crds", cluster=cluster, version=version)
        self.release = KARPENTER.helm_chart(
            self,
            "Controller",
            cluster=cluster,
            version=version,
            values=helm_values(
                cluster_name=self.cluster_name,
                interruption_queue_name=self.interruption_queue.queue_name,
                replicas=replicas,
                node_selector=node_selector,
            ),
            after=[self.crd_release, self.pod_identity, self.node_access_entry],
        )
        for release in (self.crd_release, self.release):
            release.node.add_dependency(*after)

    @property
    def discovery_tag(self) -> dict[str, str]:
        """Tag on the private subnets and the node security group that EC2NodeClasses select by."""
        return {"karpenter.sh/discovery": self.cluster_name}

    def _controller_policy(self, cluster: eks.Cluster, key: kms.IKey | None) -> None:
        """The controller's managed policy: Karpenter's reference policy (EC2, its own services, instance
        profiles), plus node volume encryption with ``key`` when given."""
        name, region = self.cluster_name, Aws.REGION
        shared_arns = [
            f"arn:<AWS::Partition>:ec2:<AWS::Region>:{r}"
            for r in (":image/*", ":snapshot/*", "*:security-group/*", "*:subnet/*", "*:capacity-reservation/*")
        ]
        created_arns = {r: f"arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:{r}" for r in CREATED_EC2}
        instance_profiles = "arn:<AWS::Partition>:iam::<AWS::AccountId>:instance-profile/*"
        ssm_parameters = "arn:<AWS::Partition>:ssm:<AWS::Region>::parameter/aws/service/*"
        statements = [*self._ec2_statements(), *self._service_statements(), *self._instance_profile_statements(cluster)]
        if key is not None:
            statements.append(
                iam.PolicyStatement(
                    sid="AllowNodeVolumeEncryption",
                    actions=[
                        "kms:Encrypt",
                        "kms:Decrypt",
                        "kms:ReEncrypt*",
                        "kms:GenerateDataKey*",
                        "kms:DescribeKey",
                        "kms:CreateGrant",
                    ],
                    resources=[key.key_arn],
                    conditions={"StringEquals": {"kms:ViaService": f"ec2.{region}.amazonaws.com"}},
                )
            )
        policy = iam.ManagedPolicy(
            self, "ControllerPolicy", statements=statements, description=f"{name}: Karpenter controller"
        )
        self.controller_role.add_managed_policy(policy)
        instance_scoped = [created_arns[r] for r in CREATED_EC2]
        acknowledge(
            policy,
            "Karpenter creates instances, fleets, launch templates and instance profiles whose IDs are not known in "
            "advance; each wildcard is narrowed by the cluster's ownership tags, the nodepool tag or the region as in "
            "Karpenter's reference policy; Describe and pricing APIs have no resource-level permissions.",
            *wildcard_resources("*", *shared_arns, *instance_scoped, instance_profiles, ssm_parameters),
            *(wildcard_actions("kms:GenerateDataKey*", "kms:ReEncrypt*") if key is not None else ()),
        )

    def _ec2_statements(self) -> list[iam.PolicyStatement]:
        """Launching, tagging and deleting the cluster's instances and launch templates; regional reads."""
        return [*self._ec2_launch_statements(), *self._ec2_tag_and_delete_statements(), self._ec2_read_statement()]

    def _ec2_launch_statements(self) -> list[iam.PolicyStatement]:
        """Launching instances and fleets from shared resources and the cluster's launch templates."""
        name, region, partition = self.cluster_name, Aws.REGION, Aws.PARTITION
        ec2 = _ec2_arn
        owned = {f"aws:RequestTag/kubernetes.io/cluster/{name}": "owned", "aws:RequestTag/eks:eks-cluster-name": name}
        return [
            iam.PolicyStatement(
                sid="AllowScopedEC2InstanceAccessActions",
                actions=["ec2:RunInstances", "ec2:CreateFleet"],
                resources=[
                    f"arn:{partition}:ec2:{region}::image/*",
                    f"arn:{partition}:ec2:{region}::snapshot/*",
                    ec2("security-group/*"),
                    ec2("subnet/*"),
                    ec2("capacity-reservation/*"),
                ],
            ),
            iam.PolicyStatement(
                sid="AllowScopedEC2LaunchTemplateAccessActions",
                actions=["ec2:RunInstances", "ec2:CreateFleet"],
                resources=[ec2("launch-template/*")],
                conditions={
                    "StringEquals": {f"aws:ResourceTag/kubernetes.io/cluster/{name}": "owned"},
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                },
            ),
            iam.PolicyStatement(
                sid="AllowScopedEC2InstanceActionsWithTags",
                actions=["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
                resources=[ec2(r) for r in CREATED_EC2],
                conditions={"StringEquals": owned, "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}},
            ),
        ]

    def _ec2_tag_and_delete_statements(self) -> list[iam.PolicyStatement]:
        """Tagging what Karpenter creates and deleting the cluster's instances and launch templates."""
        name = self.cluster_name
        ec2 = _ec2_arn
        owned = {f"aws:RequestTag/kubernetes.io/cluster/{name}": "owned", "aws:RequestTag/eks:eks-cluster-name": name}
        return [
            iam.PolicyStatement(
                sid="AllowScopedResourceCreationTagging",
                actions=["ec2:CreateTags"],
                resources=[ec2(r) for r in CREATED_EC2],
                conditions={
                    "StringEquals": {
                        **owned,
                        "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                    },
                    "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
                },
            ),
            iam.PolicyStatement(
                sid="AllowScopedResourceTagging",
                actions=["ec2:CreateTags"],
                resources=[ec2("instance/*")],
                conditions={
                    "StringEquals": {f"aws:ResourceTag/kubernetes.io/cluster/{name}": "owned"},
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                    "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": name},
                    "ForAllValues:StringEquals": {
                        "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                    },
                },
            ),
            iam.PolicyStatement(
                sid="AllowScopedDeletion",
                actions=["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
                resources=[ec2("instance/*"), ec2("launch-template/*")],
                conditions={
                    "StringEquals": {f"aws:ResourceTag/kubernetes.io/cluster/{name}": "owned"},
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                },
            ),
        ]

    @staticmethod
    def _ec2_read_statement() -> iam.PolicyStatement:
        """EC2 Describe calls, limited to the stack's region."""
        return iam.PolicyStatement(
            sid="AllowRegionalReadActions",
            actions=[
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
                "ec2:DescribeAvailabilityZones",
            ],
            resources=["*"],
            conditions={"StringEquals": {"aws:RequestedRegion": Aws.REGION}},
        )

    def _service_statements(self) -> list[iam.PolicyStatement]:
        """SSM (AMI parameters), pricing, the interruption queue and passing the node role."""
        region, partition = Aws.REGION, Aws.PARTITION
        return [
            iam.PolicyStatement(
                sid="AllowSSMReadActions",
                actions=["ssm:GetParameter"],
                resources=[f"arn:{partition}:ssm:{region}::parameter/aws/service/*"],
            ),
            iam.PolicyStatement(sid="AllowPricingReadActions", actions=["pricing:GetProducts"], resources=["*"]),
            iam.PolicyStatement(
                sid="AllowInterruptionQueueActions",
                actions=["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
                resources=[self.interruption_queue.queue_arn],
            ),
            iam.PolicyStatement(
                sid="AllowPassingInstanceRole",
                actions=["iam:PassRole"],
                resources=[self.node_role.role_arn],
                conditions={"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com"]}},
            ),
        ]

    def _instance_profile_statements(self, cluster: eks.Cluster) -> list[iam.PolicyStatement]:
        """Instance profiles of the cluster's EC2NodeClasses, API server discovery, the Spot service-linked role."""
        name, region, account, partition = self.cluster_name, Aws.REGION, Aws.ACCOUNT_ID, Aws.PARTITION
        owned = {f"aws:RequestTag/kubernetes.io/cluster/{name}": "owned", "aws:RequestTag/eks:eks-cluster-name": name}
        return [
            iam.PolicyStatement(
                sid="AllowScopedInstanceProfileCreationActions",
                actions=["iam:CreateInstanceProfile"],
                resources=[f"arn:{partition}:iam::{account}:instance-profile/*"],
                conditions={
                    "StringEquals": {**owned, "aws:RequestTag/topology.kubernetes.io/region": region},
                    "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
                },
            ),
            iam.PolicyStatement(
                sid="AllowScopedInstanceProfileActions",
                actions=[
                    "iam:AddRoleToInstanceProfile",
                    "iam:RemoveRoleFromInstanceProfile",
                    "iam:DeleteInstanceProfile",
                    "iam:TagInstanceProfile",
                ],
                resources=[f"arn:{partition}:iam::{account}:instance-profile/*"],
                conditions={
                    "StringEquals": {
                        f"aws:ResourceTag/kubernetes.io/cluster/{name}": "owned",
                        "aws:ResourceTag/topology.kubernetes.io/region": region,
                    },
                    "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
                },
            ),
            iam.PolicyStatement(
                sid="AllowInstanceProfileReadActions",
                actions=["iam:GetInstanceProfile", "iam:ListInstanceProfiles"],
                resources=[f"arn:{partition}:iam::{account}:instance-profile/*"],
            ),
            iam.PolicyStatement(
                sid="AllowAPIServerEndpointDiscovery", actions=["eks:DescribeCluster"], resources=[cluster.cluster_arn]
            ),
            # Spot launches need the account's AWSServiceRoleForEC2Spot. In an account that never used Spot, EC2
            # creates it with the caller's credentials or fails with ServiceLinkedRoleCreationNotPermitted
            # (karpenter-provider-aws v1.14.1 website/content/en/docs/troubleshooting.md "Missing Service Linked
            # Role"; its getting-started step06-add-spot-role.sh creates the role). Only that role, only for Spot.
            iam.PolicyStatement(
                sid="AllowSpotServiceLinkedRoleCreation",
                actions=["iam:CreateServiceLinkedRole"],
                resources=[
                    f"arn:{partition}:iam::{account}:role/aws-service-role/{SPOT_SERVICE}/{SPOT_SERVICE_LINKED_ROLE}"
                ],
                conditions={"StringEquals": {"iam:AWSServiceName": SPOT_SERVICE}},
            ),
        ]
