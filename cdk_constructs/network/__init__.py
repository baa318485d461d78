"""Network layer (<Env>-Network): the VPC, the HyperPod subnet, security groups and VPC endpoints."""

from __future__ import annotations

from cdk_constructs.network.hyperpod_subnet import HyperPodSubnet
from cdk_constructs.network.platform_security_groups import PlatformSecurityGroups
from cdk_constructs.network.platform_vpc import PlatformVpc
from cdk_constructs.network.vpc_endpoints import VpcEndpoints

__all__ = ["HyperPodSubnet", "PlatformSecurityGroups", "PlatformVpc", "VpcEndpoints"]
