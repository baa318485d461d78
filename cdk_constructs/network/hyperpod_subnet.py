"""A large private subnet, in a secondary VPC CIDR block, for SageMaker HyperPod nodes and their pods."""

from __future__ import annotations

import ipaddress

from aws_cdk import Acknowledgment, Tags, Validations
from aws_cdk import aws_ec2 as ec2
from constructs import Construct


class HyperPodSubnet(Construct):
    """Adds ``secondary_cidr`` to ``vpc`` and carves one private subnet from it in ``availability_zone``.

    HyperPod with EKS gives every pod a VPC IP address from the node's subnet, so a GPU cluster needs far more
    addresses than the primary CIDR holds; a secondary block keeps them apart from the rest of the platform.
    The subnet routes to the internet through ``nat_gateway_id``.

    :param vpc: the VPC to extend.
    :param secondary_cidr: the block to associate with the VPC, e.g. ``10.1.0.0/16``.
    :param availability_zone: the AZ of the reserved GPU capacity.
    :param nat_gateway_id: NAT gateway for the default route.
    :param subnet_mask: prefix length of the subnet, carved from the start of the block. Default: the whole block.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        secondary_cidr: str,
        availability_zone: str,
        nat_gateway_id: str,
        subnet_mask: int | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        block = ipaddress.IPv4Network(secondary_cidr)
        subnet_cidr = next(block.subnets(new_prefix=subnet_mask or block.prefixlen))
        self.cidr_block = ec2.CfnVPCCidrBlock(self, "CidrBlock", vpc_id=vpc.vpc_id, cidr_block=secondary_cidr)
        self.subnet = ec2.PrivateSubnet(
            self,
            "Subnet",
            vpc_id=vpc.vpc_id,
            availability_zone=availability_zone,
            cidr_block=str(subnet_cidr),
            map_public_ip_on_launch=False,
        )
        self.subnet.node.add_dependency(self.cidr_block)
        self.subnet.add_default_nat_route(nat_gateway_id)
        Tags.of(self.subnet).add("Name", f"{vpc.node.path}/HyperPod")
        Tags.of(self.subnet).add("llmft.io/subnet-role", "hyperpod")
        Validations.of(self.subnet).acknowledge(
            Acknowledgment(
                id="CloudFormation-Validate::W3010",
                reason="The HyperPod subnet must be in the AZ of the reserved GPU capacity, named in the config.",
            )
        )

    @property
    def subnet_id(self) -> str:
        return self.subnet.subnet_id

    @property
    def availability_zone(self) -> str:
        return self.subnet.availability_zone
