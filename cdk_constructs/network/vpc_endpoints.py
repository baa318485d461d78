"""VPC endpoints: the S3 gateway endpoint always, interface endpoints as configured."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import aws_ec2 as ec2
from constructs import Construct


class VpcEndpoints(Construct):
    """Private routes from the VPC to AWS services.

    The S3 gateway endpoint is free and always created; it is attached to the route tables of
    ``gateway_subnets``. Each interface endpoint places one ENI per AZ in ``interface_subnets`` (billed per
    AZ-hour), with private DNS, behind one security group that admits HTTPS from ``client_cidrs``.

    :param vpc: the VPC.
    :param interface_services: service names such as ``ecr.api`` or ``sagemaker.api``. Default: none.
    :param interface_subnets: where interface endpoint ENIs go. Default: the VPC's private subnets with egress.
    :param gateway_subnets: subnets whose route tables get the S3 route. Default: all private and isolated
        subnets of the VPC.
    :param client_cidrs: CIDRs allowed to reach interface endpoints. Default: the VPC's primary CIDR.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        interface_services: Sequence[str] = (),
        interface_subnets: ec2.SubnetSelection | None = None,
        gateway_subnets: Sequence[ec2.SubnetSelection] | None = None,
        client_cidrs: Sequence[str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.s3 = vpc.add_gateway_endpoint(
            "S3",
            service=ec2.GatewayVpcEndpointAwsService.S3,
            subnets=list(gateway_subnets)
            if gateway_subnets
            else [
                ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
                ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
            ],
        )
        self._vpc = vpc
        self._client_cidrs = list(client_cidrs or [vpc.vpc_cidr_block])
        self._interface_subnets = interface_subnets or ec2.SubnetSelection(
            subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS
        )
        self.interface_endpoints: dict[str, ec2.InterfaceVpcEndpoint] = {}
        self.security_group: ec2.SecurityGroup | None = None
        for service in interface_services:
            self.add_interface_endpoint(service)

    def add_interface_endpoint(self, service: str) -> ec2.InterfaceVpcEndpoint:
        """Add an interface endpoint for ``service`` (e.g. ``ecr.dkr``) and return it."""
        if self.security_group is None:
            self.security_group = ec2.SecurityGroup(
                self,
                "SecurityGroup",
                vpc=self._vpc,
                allow_all_outbound=False,
                description="Interface VPC endpoints: HTTPS from inside the VPC",
            )
            for cidr in self._client_cidrs:
                self.security_group.add_ingress_rule(
                    ec2.Peer.ipv4(cidr), ec2.Port.tcp(443), f"HTTPS from inside the VPC ({cidr})"
                )
        construct_id = "".join(part.capitalize() for part in service.replace("-", ".").split("."))
        endpoint = ec2.InterfaceVpcEndpoint(
            self,
            construct_id,
            vpc=self._vpc,
            service=ec2.InterfaceVpcEndpointAwsService(service),
            private_dns_enabled=True,
            open=False,
            security_groups=[self.security_group],
            subnets=self._interface_subnets,
        )
        self.interface_endpoints[service] = endpoint
        return endpoint
