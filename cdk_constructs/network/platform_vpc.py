"""The platform VPC: public, private-with-egress and isolated subnets across the configured AZs."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import (
    Acknowledgment,
    CfnResource,
    RemovalPolicy,
    Stack,
    Validations,
)
from aws_cdk import (
    aws_ec2 as ec2,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_logs as logs,
)
from constructs import Construct

from cdk_constructs.governance.compliance import annotate_cdk_managed_handlers, ignore_cfn_lint, skip_checkov


class PlatformVpc(Construct):
    """A multi-AZ VPC with NAT egress and flow logs.

    Subnet groups, one subnet of each per AZ: ``Public`` (load balancers, NAT gateways), ``Private`` (egress through
    NAT: EKS system and Karpenter nodes, Fargate tasks, interface endpoints) and ``Isolated`` (no route out:
    databases). Private subnets carry the Kubernetes internal-ELB role tag, public ones the ELB role tag.

    :param availability_zones: the AZs to span, in order. Required; the first holds the NAT gateway when there
        is only one.
    :param cidr: primary CIDR block. Default ``10.0.0.0/16``.
    :param nat_gateways: NAT gateways to create. Default 1 (one shared gateway; use one per AZ for HA).
    :param public_subnet_mask: prefix length of each public subnet. Default 24.
    :param private_subnet_mask: prefix length of each private subnet. Default 20.
    :param isolated_subnet_mask: prefix length of each isolated subnet. Default 24.
    :param flow_logs_retention: retention of the flow-log group (all traffic). Default one month.
    :param flow_logs_key: KMS key of the flow-log group; its policy must admit CloudWatch Logs. Default: none
        (CloudWatch Logs' own encryption, recorded as a checkov skip).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        availability_zones: Sequence[str],
        cidr: str = "10.0.0.0/16",
        nat_gateways: int = 1,
        public_subnet_mask: int = 24,
        private_subnet_mask: int = 20,
        isolated_subnet_mask: int = 24,
        flow_logs_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
        flow_logs_key: kms.IKey | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.nat_provider = ec2.NatProvider.gateway()
        self.vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(cidr),
            availability_zones=list(availability_zones),
            nat_gateways=nat_gateways,
            nat_gateway_provider=self.nat_provider,
            restrict_default_security_group=True,
            subnet_configuration=[
                ec2.SubnetConfiguration(
                    name="Public",
                    subnet_type=ec2.SubnetType.PUBLIC,
                    cidr_mask=public_subnet_mask,
                    map_public_ip_on_launch=False,
                ),
                ec2.SubnetConfiguration(
                    name="Private", subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, cidr_mask=private_subnet_mask
                ),
                ec2.SubnetConfiguration(
                    name="Isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=isolated_subnet_mask
                ),
            ],
        )
        Validations.of(self.vpc).acknowledge(
            Acknowledgment(
                id="CloudFormation-Validate::W3010",
                reason="AZs are pinned on purpose: the HyperPod subnet must sit in the AZ of the reserved GPU capacity "
                "and the config check proves every AZ belongs to the region.",
            )
        )
        self._annotate_default_sg_provider()
        self.flow_log_group = logs.LogGroup(
            self,
            "FlowLogs",
            retention=flow_logs_retention,
            encryption_key=flow_logs_key,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        if flow_logs_key is None:
            skip_checkov(
                self.flow_log_group,
                "CKV_AWS_158",
                "No key was given (flow_logs_key): CloudWatch Logs' service encryption",
            )
        self.flow_log = self.vpc.add_flow_log(
            "FlowLog",
            destination=ec2.FlowLogDestination.to_cloud_watch_logs(self.flow_log_group),
            traffic_type=ec2.FlowLogTrafficType.ALL,
        )

    def _annotate_default_sg_provider(self) -> None:
        """Explain the findings on aws-cdk-lib's own default-SG custom resource handler, which we do not control
        (checkov's Lambda checks: see compliance.annotate_cdk_managed_handlers)."""
        provider = Stack.of(self).node.try_find_child("Custom::VpcRestrictDefaultSGCustomResourceProvider")
        handler = provider.node.try_find_child("Handler") if provider else None
        if not isinstance(handler, CfnResource):
            return
        ignore_cfn_lint(
            handler,
            "W3005",
            "aws-cdk-lib's CustomResourceProvider adds DependsOn on its role next to "
            "the GetAtt; redundant and harmless",
        )
        annotate_cdk_managed_handlers(Stack.of(self))

    def nat_gateway_in(self, availability_zone: str) -> str:
        """ID of the NAT gateway in ``availability_zone``, or of the first one when that AZ has none."""
        gateways = self.nat_provider.configured_gateways
        for gw in gateways:
            if gw.az == availability_zone:
                return gw.gateway_id
        return gateways[0].gateway_id
