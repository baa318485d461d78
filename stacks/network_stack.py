"""`<Env>-Network`: VPC, HyperPod subnet, security groups, endpoints, flow logs and their KMS key."""

from __future__ import annotations

from typing import Any

from aws_cdk import Aws, RemovalPolicy, Tags
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from cdk_constructs.governance.function_logs import govern_handler_logs
from cdk_constructs.governance.log_retention import retention
from cdk_constructs.network.hyperpod_subnet import HyperPodSubnet
from cdk_constructs.network.platform_security_groups import PlatformSecurityGroups
from cdk_constructs.network.platform_vpc import PlatformVpc
from cdk_constructs.network.vpc_endpoints import VpcEndpoints
from config import EnvironmentConfig

from ._base import PlatformStack


class NetworkStack(PlatformStack):
    """Everything network; other stacks receive its attributes as Python objects."""

    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, **kwargs: Any) -> None:
        super().__init__(
            scope,
            construct_id,
            config=config,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): VPC, HyperPod subnet, security "
            f"groups, VPC endpoints",
        )
        self._add_logs_key(config)
        platform_vpc = self._add_vpc(config)
        self._add_hyperpod_subnet(config, platform_vpc)
        self._add_security_groups_and_endpoints(config)
        self._add_karpenter_discovery_tags(config)

    def _add_logs_key(self, config: EnvironmentConfig) -> None:
        """The KMS key of the network stack's own log groups."""
        # The network stack comes first, before the platform key (storage stack), so its log groups (flow logs, the
        # default-SG handler) get a key of their own: rotation, CloudWatch Logs of this account and region only.
        self.logs_key = kms.Key(
            self,
            "LogsKey",
            alias=f"alias/{config.resource_prefix}-network-logs",
            enable_key_rotation=True,
            description=f"{config.resource_prefix}: network stack log groups (VPC flow logs, handlers)",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.logs_key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchLogs",
                principals=[iam.ServicePrincipal(f"logs.{config.region}.amazonaws.com")],
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                # CloudWatch Logs User Guide, "Encrypt log data in CloudWatch Logs using AWS KMS": the encryption
                # context names the log group, so the key serves only this account's groups in this region
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": (
                            f"arn:{Aws.PARTITION}:logs:{config.region}:{Aws.ACCOUNT_ID}:log-group:*"
                        )
                    }
                },
            )
        )

    def _add_vpc(self, config: EnvironmentConfig) -> PlatformVpc:
        """The platform VPC with its flow logs, and the governed logs of the stack's handlers."""
        net = config.network
        platform_vpc = PlatformVpc(
            self,
            "Network",
            availability_zones=net.availability_zones,
            cidr=net.vpc_cidr,
            nat_gateways=config.nat_gateway_count,
            public_subnet_mask=net.public_subnet_mask,
            private_subnet_mask=net.private_subnet_mask,
            isolated_subnet_mask=net.isolated_subnet_mask,
            flow_logs_retention=retention(net.flow_logs_retention_days),
            flow_logs_key=self.logs_key,
        )
        self.vpc: ec2.IVpc = platform_vpc.vpc
        self.flow_log_group = platform_vpc.flow_log_group
        govern_handler_logs(self, retention_days=config.observability.log_retention_days, encryption_key=self.logs_key)
        return platform_vpc

    def _add_hyperpod_subnet(self, config: EnvironmentConfig, platform_vpc: PlatformVpc) -> None:
        """The HyperPod subnet in its secondary CIDR, routed through the NAT gateway of its AZ."""
        net = config.network
        self.hyperpod = HyperPodSubnet(
            self,
            "HyperPod",
            vpc=self.vpc,
            secondary_cidr=net.hyperpod.secondary_cidr,
            availability_zone=net.hyperpod.availability_zone,
            nat_gateway_id=platform_vpc.nat_gateway_in(net.hyperpod.availability_zone),
            subnet_mask=net.hyperpod.subnet_mask,
        )
        self.hyperpod_subnet: ec2.ISubnet = self.hyperpod.subnet
        self.client_cidrs = [net.vpc_cidr, net.hyperpod.secondary_cidr]

    def _add_security_groups_and_endpoints(self, config: EnvironmentConfig) -> None:
        """The platform security groups and the VPC endpoints, reachable from the VPC and the HyperPod CIDR."""
        net = config.network
        self.security_groups = PlatformSecurityGroups(
            self, "SecurityGroups", vpc=self.vpc, client_cidrs=self.client_cidrs
        )
        self.endpoints = VpcEndpoints(
            self,
            "Endpoints",
            vpc=self.vpc,
            interface_services=net.interface_endpoints,
            gateway_subnets=[
                ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
                ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
                ec2.SubnetSelection(subnets=[self.hyperpod_subnet]),
            ],
            client_cidrs=self.client_cidrs,
        )
        self.endpoints.node.add_dependency(self.hyperpod.cidr_block)

    def _add_karpenter_discovery_tags(self, config: EnvironmentConfig) -> None:
        """Tag the private subnets and the node security group for Karpenter's discovery."""
        # Karpenter discovers where to launch GPU nodes by these tags (the HyperPod subnet stays HyperPod's).
        for subnet in self.vpc.private_subnets:
            Tags.of(subnet).add("karpenter.sh/discovery", config.cluster_name)
        Tags.of(self.security_groups.eks_nodes).add("karpenter.sh/discovery", config.cluster_name)

    @property
    def private_subnets(self) -> ec2.SubnetSelection:
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)
