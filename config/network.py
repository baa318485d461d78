"""Network section: VPC, the HyperPod subnet in a secondary CIDR, endpoints and flow logs."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel, check_log_retention

# RFC 1918 plus the shared address space AWS accepts for secondary VPC CIDRs (often used for pods).
_PRIMARY_RANGES = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_SECONDARY_RANGES = _PRIMARY_RANGES + (ipaddress.ip_network("100.64.0.0/10"),)


# Interface endpoints of the `full` profile. Each costs per AZ-hour, so `minimal` has none.
FULL_INTERFACE_ENDPOINTS = (
    "ecr.api",
    "ecr.dkr",
    "logs",
    "monitoring",
    "sts",
    "eks",
    "eks-auth",
    "sagemaker.api",
    "ec2",
    "sqs",
    "ssm",
    "ssmmessages",
    "ec2messages",
    "secretsmanager",
)


def parse_private_cidr(field: str, value: str, *, secondary: bool = False) -> ipaddress.IPv4Network:
    """Parse ``value`` as an IPv4 CIDR in a private range, or raise a message naming ``field``."""
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        raise ValueError(
            f"{field} {value!r} is not a valid IPv4 CIDR ({exc}); write it as network/prefix with the host bits "
            f"zero, e.g. '10.0.0.0/16'"
        ) from None
    ranges = _SECONDARY_RANGES if secondary else _PRIMARY_RANGES
    if not any(net.subnet_of(r) for r in ranges):
        allowed = ", ".join(str(r) for r in ranges)
        raise ValueError(f"{field} {value!r} is not a private range; use a block inside one of {allowed}")
    if not 16 <= net.prefixlen <= 28:
        raise ValueError(f"{field} {value!r} has prefix /{net.prefixlen}; a VPC CIDR block must be /16 to /28")
    return net


class HyperPodSubnetConfig(ConfigModel):
    """The large private subnet, in a secondary VPC CIDR, where HyperPod nodes and their pods live."""

    availability_zone: str = Field(
        description="The GPU AZ: where the reserved capacity is. Must be one of network.availability_zones."
    )
    secondary_cidr: str = Field("10.1.0.0/16", description="Secondary VPC CIDR block added for HyperPod.")
    subnet_mask: int = Field(
        17,
        description="Prefix length of the HyperPod subnet carved from secondary_cidr "
        "(default /17: 32,763 usable addresses for nodes and pods).",
    )

    @field_validator("secondary_cidr")
    @classmethod
    def _cidr(cls, v: str) -> str:
        parse_private_cidr("network.hyperpod.secondary_cidr", v, secondary=True)
        return v

    @model_validator(mode="after")
    def _mask_fits(self) -> HyperPodSubnetConfig:
        net = ipaddress.IPv4Network(self.secondary_cidr)
        if not net.prefixlen <= self.subnet_mask <= 28:
            raise ValueError(
                f"network.hyperpod.subnet_mask /{self.subnet_mask} does not fit network.hyperpod.secondary_cidr "
                f"{self.secondary_cidr}; use a mask between /{net.prefixlen} and /28"
            )
        return self


class NetworkConfig(ConfigModel):
    """VPC layout. Subnets are allocated in order public, private, isolated, one of each per AZ."""

    vpc_cidr: str = Field("10.0.0.0/16", description="Primary VPC CIDR (private range, /16 to /28).")
    availability_zones: tuple[str, ...] = Field(description="AZ names the VPC spans (at least 2, all in `region`).")
    nat_gateways: int | None = Field(
        None, ge=1, description="NAT gateways; default one per AZ when `protect_stateful` (prod-like), else 1."
    )
    public_subnet_mask: int = Field(24, description="Prefix length of each public subnet (ALB, NAT).")
    private_subnet_mask: int = Field(
        20,
        description="Prefix length of each private subnet with egress "
        "(EKS system nodes, Karpenter nodes, Fargate, endpoints).",
    )
    isolated_subnet_mask: int = Field(24, description="Prefix length of each isolated subnet (Aurora).")
    hyperpod: HyperPodSubnetConfig
    endpoints: Literal["minimal", "full"] = Field(
        "minimal",
        description="`minimal`: S3 gateway endpoint only. `full`: also the interface endpoints in "
        "FULL_INTERFACE_ENDPOINTS, one ENI per AZ each (billed per AZ-hour).",
    )
    flow_logs_retention_days: int = Field(30, description="CloudWatch retention of the VPC flow logs.")

    @field_validator("vpc_cidr")
    @classmethod
    def _vpc_cidr(cls, v: str) -> str:
        parse_private_cidr("network.vpc_cidr", v)
        return v

    @field_validator("availability_zones")
    @classmethod
    def _azs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(v) < 2:
            raise ValueError(
                f"network.availability_zones {list(v)!r} has {len(v)} AZ; list at least 2 AZs of the region so "
                f"the VPC, the load balancer and Aurora survive the loss of one"
            )
        if len(set(v)) != len(v):
            raise ValueError(f"network.availability_zones {list(v)!r} lists an AZ twice; list each AZ once")
        return v

    @field_validator("flow_logs_retention_days")
    @classmethod
    def _retention(cls, v: int) -> int:
        return check_log_retention("network.flow_logs_retention_days", v)

    @model_validator(mode="after")
    def _layout(self) -> NetworkConfig:
        vpc = ipaddress.IPv4Network(self.vpc_cidr)
        needed = 0
        for field in ("public_subnet_mask", "private_subnet_mask", "isolated_subnet_mask"):
            mask = getattr(self, field)
            if not vpc.prefixlen < mask <= 28:
                raise ValueError(
                    f"network.{field} /{mask} does not fit network.vpc_cidr {self.vpc_cidr}; use a mask between "
                    f"/{vpc.prefixlen + 1} and /28"
                )
            needed += len(self.availability_zones) * 2 ** (32 - mask)
        if needed > vpc.num_addresses:
            raise ValueError(
                f"network subnets need {needed} addresses ({len(self.availability_zones)} AZs x public "
                f"/{self.public_subnet_mask} + private /{self.private_subnet_mask} + isolated "
                f"/{self.isolated_subnet_mask}) but network.vpc_cidr {self.vpc_cidr} has {vpc.num_addresses}; "
                f"use larger masks or a larger vpc_cidr"
            )
        secondary = ipaddress.IPv4Network(self.hyperpod.secondary_cidr)
        if secondary.overlaps(vpc):
            raise ValueError(
                f"network.hyperpod.secondary_cidr {self.hyperpod.secondary_cidr} overlaps network.vpc_cidr "
                f"{self.vpc_cidr}; pick a block outside it, e.g. '100.64.0.0/16' or the next /16"
            )
        # AWS restriction: a secondary block must come from the same RFC 1918 range as the primary (or 100.64/10).
        primary_range = next(r for r in _PRIMARY_RANGES if vpc.subnet_of(r))
        if not (secondary.subnet_of(primary_range) or secondary.subnet_of(_SECONDARY_RANGES[-1])):
            raise ValueError(
                f"network.hyperpod.secondary_cidr {self.hyperpod.secondary_cidr} is in a different RFC 1918 range "
                f"than network.vpc_cidr {self.vpc_cidr}, which AWS rejects; use a block inside {primary_range} or "
                f"100.64.0.0/10"
            )
        if self.hyperpod.availability_zone not in self.availability_zones:
            raise ValueError(
                f"network.hyperpod.availability_zone {self.hyperpod.availability_zone!r} is not among "
                f"network.availability_zones {list(self.availability_zones)!r}; pick one of them (the AZ of your "
                f"reserved GPU capacity) or add it to the list"
            )
        if self.nat_gateways is not None and self.nat_gateways > len(self.availability_zones):
            raise ValueError(
                f"network.nat_gateways {self.nat_gateways} exceeds the {len(self.availability_zones)} AZs; use at most "
                f"one per AZ"
            )
        return self

    @property
    def interface_endpoints(self) -> tuple[str, ...]:
        """Interface endpoint service names for the chosen profile."""
        return FULL_INTERFACE_ENDPOINTS if self.endpoints == "full" else ()
