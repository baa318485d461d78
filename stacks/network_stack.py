"""`<Env>-Network`: VPC, HyperPod subnet, security groups, endpoints, flow logs."""

from __future__ import annotations

from typing import Any

from aws_cdk import Tags, aws_ec2 as ec2
from constructs import Construct

from cdk_constructs.log_retention import retention
from cdk_constructs.hyperpod_subnet import HyperPodSubnet
from cdk_constructs.platform_security_groups import PlatformSecurityGroups
from cdk_constructs.function_logs import govern_handler_logs
from cdk_constructs.platform_vpc import PlatformVpc
from cdk_constructs.vpc_endpoints import VpcEndpoints
from config import EnvironmentConfig

from ._base import PlatformStack


class NetworkStack(PlatformStack):
    """Everything network; other stacks receive its attributes as Python objects."""

    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, config=config, **kwargs,
                         description=f"LLM fine-tuning platform ({config.name}): VPC, HyperPod subnet, security "
                                     f"groups, VPC endpoints")
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
        )
        self.vpc: ec2.IVpc = platform_vpc.vpc
        self.flow_log_group = platform_vpc.flow_log_group
        govern_handler_logs(self, retention_days=config.observability.log_retention_days,
                            no_key_reason="Deploy-time handler log of the network stack, which precedes the platform "
                                          "key (storage stack); CloudWatch Logs encrypts it with its own key")

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

        self.security_groups = PlatformSecurityGroups(self, "SecurityGroups", vpc=self.vpc,
                                                      client_cidrs=self.client_cidrs)
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

        # Karpenter discovers where to launch GPU nodes by these tags (the HyperPod subnet stays HyperPod's).
        for subnet in self.vpc.private_subnets:
            Tags.of(subnet).add("karpenter.sh/discovery", config.cluster_name)
        Tags.of(self.security_groups.eks_nodes).add("karpenter.sh/discovery", config.cluster_name)

    @property
    def private_subnets(self) -> ec2.SubnetSelection:
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)
