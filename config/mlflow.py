"""MLflow section: Aurora PostgreSQL Serverless v2, the Fargate service and its HTTPS load balancer."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel, check_log_retention

# Aurora PostgreSQL versions this app offers (all support Serverless v2 scale-to-zero, which needs 13.15+, 14.12+,
# 15.7+ or 16.3+). The stack maps them to aws-cdk-lib's AuroraPostgresEngineVersion constants.
AURORA_POSTGRES_VERSIONS = ("16.6", "16.8", "16.9", "16.10", "16.11", "16.13", "17.4", "17.5", "17.6", "17.7", "17.9")

# Aurora Serverless v2 capacity: 0 (scale to zero, with auto-pause) to 256 ACU in steps of 0.5; a maximum of 1+.
MIN_ACU, MAX_ACU = 0.0, 256.0
AUTO_PAUSE_RANGE_SECONDS = (300, 86_400)

# Fargate task sizes (vCPU units -> allowed memory MiB) for the sizes an MLflow server sensibly uses.
FARGATE_SIZES: dict[int, tuple[int, ...]] = {
    256: (512, 1024, 2048),
    512: tuple(range(1024, 4097, 1024)),
    1024: tuple(range(2048, 8193, 1024)),
    2048: tuple(range(4096, 16385, 1024)),
    4096: tuple(range(8192, 30721, 1024)),
}

_CERT_ARN = re.compile(r"arn:(aws[a-z-]*):acm:([a-z0-9-]+):([0-9]{12}):certificate/[0-9a-f-]{36}")
_DOMAIN = re.compile(r"(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}")


class MlflowDatabaseConfig(ConfigModel):
    """Aurora PostgreSQL Serverless v2 cluster holding MLflow's tracking store and its basic-auth user store."""

    engine_version: str = Field(
        "17.9", description=f"Aurora PostgreSQL version, one of {', '.join(AURORA_POSTGRES_VERSIONS)}."
    )
    min_capacity_acu: float = Field(
        0.5,
        description="Serverless v2 floor in ACU (0 to 256, steps of 0.5). 0 lets "
        "an idle cluster pause (see auto_pause_seconds).",
    )
    max_capacity_acu: float = Field(4.0, description="Serverless v2 ceiling in ACU (1 to 256, steps of 0.5).")
    auto_pause_seconds: int = Field(
        600,
        description="With min_capacity_acu 0: pause after this many seconds "
        "without connections (300 to 86400). Ignored otherwise.",
    )
    readers: int = Field(
        0,
        ge=0,
        le=15,
        description="Serverless v2 readers that scale with the writer (failover "
        "targets in another AZ). 0 = writer only.",
    )
    backup_retention_days: int = Field(7, description="Automated backup retention, 1 to 35 days.")
    deletion_protection: bool | None = Field(
        None, description="RDS deletion protection. Default: on when `protect_stateful`; it cannot be turned off there."
    )
    log_retention_days: int = Field(30, description="CloudWatch retention of the exported PostgreSQL log.")

    @field_validator("engine_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if v not in AURORA_POSTGRES_VERSIONS:
            raise ValueError(
                f"mlflow.database.engine_version {v!r} is not offered; use one of {', '.join(AURORA_POSTGRES_VERSIONS)}"
            )
        return v

    @field_validator("min_capacity_acu", "max_capacity_acu")
    @classmethod
    def _acu(cls, v: float, info) -> float:
        low = 1.0 if info.field_name == "max_capacity_acu" else MIN_ACU
        if not low <= v <= MAX_ACU or (v * 2) != int(v * 2):
            raise ValueError(
                f"mlflow.database.{info.field_name} {v} is outside Aurora Serverless v2's range; use a "
                f"multiple of 0.5 from {low:g} to {MAX_ACU:g} ACU"
            )
        return v

    @field_validator("auto_pause_seconds")
    @classmethod
    def _pause(cls, v: int) -> int:
        low, high = AUTO_PAUSE_RANGE_SECONDS
        if not low <= v <= high:
            raise ValueError(
                f"mlflow.database.auto_pause_seconds {v} is outside {low}-{high}; Aurora pauses an idle "
                f"cluster after 5 minutes to 24 hours"
            )
        return v

    @field_validator("backup_retention_days")
    @classmethod
    def _backups(cls, v: int) -> int:
        if not 1 <= v <= 35:
            raise ValueError(
                f"mlflow.database.backup_retention_days {v} is outside 1-35; Aurora always keeps 1 to 35 "
                f"days of automated backups"
            )
        return v

    @field_validator("log_retention_days")
    @classmethod
    def _log_retention(cls, v: int) -> int:
        return check_log_retention("mlflow.database.log_retention_days", v)

    @model_validator(mode="after")
    def _range(self) -> MlflowDatabaseConfig:
        if self.min_capacity_acu > self.max_capacity_acu:
            raise ValueError(
                f"mlflow.database.min_capacity_acu {self.min_capacity_acu:g} exceeds max_capacity_acu "
                f"{self.max_capacity_acu:g}; lower the minimum or raise the maximum"
            )
        return self

    @property
    def scales_to_zero(self) -> bool:
        return self.min_capacity_acu == 0


class MlflowServiceConfig(ConfigModel):
    """The `mlflow server` Fargate service."""

    cpu: int = Field(1024, description=f"Task vCPU units: {', '.join(map(str, FARGATE_SIZES))}.")
    memory_mib: int = Field(2048, description="Task memory in MiB; must be a Fargate combination with `cpu`.")
    workers: int = Field(2, ge=1, le=16, description="uvicorn worker processes per task.")
    min_tasks: int = Field(
        1,
        ge=1,
        description="Autoscaling floor (also the initial desired count). At least 2 "
        "when `protect_stateful`, so a task in another AZ survives one.",
    )
    max_tasks: int = Field(2, ge=1, le=20, description="Autoscaling ceiling.")
    cpu_target_percent: int = Field(60, ge=10, le=90, description="Target average CPU utilization.")
    requests_per_task: int = Field(600, ge=10, description="Target ALB requests per task per minute.")
    log_retention_days: int = Field(30, description="CloudWatch retention of the server log.")
    default_permission: Literal["READ", "EDIT", "MANAGE", "NO_PERMISSIONS"] = Field(
        "NO_PERMISSIONS",
        description="basic-auth permission every user has on resources others created (creators "
        "get MANAGE on their own experiments and models). Each team logs as its own "
        "user, so anything but NO_PERMISSIONS opens every team's experiments to the "
        "others; it is refused when more than one team is configured.",
    )

    @model_validator(mode="after")
    def _sizes(self) -> MlflowServiceConfig:
        if self.cpu not in FARGATE_SIZES:
            raise ValueError(
                f"mlflow.service.cpu {self.cpu} is not a Fargate size used here; use one of "
                f"{', '.join(map(str, FARGATE_SIZES))}"
            )
        if self.memory_mib not in FARGATE_SIZES[self.cpu]:
            allowed = FARGATE_SIZES[self.cpu]
            raise ValueError(
                f"mlflow.service.memory_mib {self.memory_mib} is not valid with cpu {self.cpu}; use "
                f"{allowed[0]} to {allowed[-1]} in steps of {allowed[1] - allowed[0]}"
            )
        if self.min_tasks > self.max_tasks:
            raise ValueError(
                f"mlflow.service.min_tasks {self.min_tasks} exceeds max_tasks {self.max_tasks}; lower "
                f"the minimum or raise the maximum"
            )
        check_log_retention("mlflow.service.log_retention_days", self.log_retention_days)
        return self


class MlflowEndpointConfig(ConfigModel):
    """How clients reach MLflow: an HTTPS-only Application Load Balancer with a DNS name and a certificate.

    Give ``domain_name`` plus either ``certificate_arn`` (an existing ACM certificate for that name) or
    ``hosted_zone_id`` + ``hosted_zone_name`` of a public Route 53 zone (the stack creates a DNS-validated
    certificate and the alias record). With both, the zone - public or private - only gets the alias record.
    """

    domain_name: str = Field(
        description="DNS name clients use, e.g. `mlflow.dev.example.com`; the tracking URI is https://<domain_name>."
    )
    certificate_arn: str | None = Field(
        None, description="Existing ACM certificate covering domain_name, in the environment's account and region."
    )
    hosted_zone_id: str | None = Field(
        None,
        description="Route 53 zone of domain_name: the stack creates an alias "
        "record to the load balancer and, unless certificate_arn is "
        "set, an ACM certificate validated through this zone (which "
        "must then be public: ACM validates over public DNS).",
    )
    hosted_zone_name: str | None = Field(None, description="Name of hosted_zone_id, e.g. `dev.example.com`.")
    internet_facing: bool = Field(
        False,
        description="Internet-facing ALB in the public subnets. Default: internal, "
        "reachable from the VPC (cluster, Studio) only.",
    )
    ingress_cidrs: tuple[str, ...] = Field(
        (),
        description="Extra IPv4 CIDRs allowed to reach HTTPS (office/VPN ranges). Required for an "
        "internet-facing load balancer; never 0.0.0.0/0.",
    )
    idle_timeout_seconds: int = Field(300, ge=1, le=4000, description="ALB idle timeout (large artifact uploads).")

    @field_validator("domain_name", "hosted_zone_name")
    @classmethod
    def _domain(cls, v: str | None, info) -> str | None:
        if v is not None and not _DOMAIN.fullmatch(v):
            raise ValueError(
                f"mlflow.endpoint.{info.field_name} {v!r} is not a lower-case DNS name; write it like "
                f"'mlflow.dev.example.com' (no scheme, no trailing dot)"
            )
        return v

    @field_validator("hosted_zone_id")
    @classmethod
    def _zone_id(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"Z[A-Z0-9]{1,31}", v):
            raise ValueError(
                f"mlflow.endpoint.hosted_zone_id {v!r} is not a Route 53 zone ID; copy it from the "
                f"console, e.g. 'Z0123456789ABCDEFGHIJ'"
            )
        return v

    @field_validator("certificate_arn")
    @classmethod
    def _cert(cls, v: str | None) -> str | None:
        if v is not None and not _CERT_ARN.fullmatch(v):
            raise ValueError(
                f"mlflow.endpoint.certificate_arn {v!r} is not an ACM certificate ARN; use the form "
                f"arn:aws:acm:<region>:<account>:certificate/<uuid>"
            )
        return v

    @field_validator("ingress_cidrs")
    @classmethod
    def _cidrs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for cidr in v:
            try:
                net = ipaddress.IPv4Network(cidr, strict=True)
            except ValueError as exc:
                raise ValueError(
                    f"mlflow.endpoint.ingress_cidrs entry {cidr!r} is not an IPv4 CIDR ({exc}); write "
                    f"it as network/prefix, e.g. '203.0.113.0/24'"
                ) from None
            if net.prefixlen < 8:
                raise ValueError(
                    f"mlflow.endpoint.ingress_cidrs entry {cidr!r} opens MLflow to a /{net.prefixlen}; "
                    f"list your office or VPN ranges (/8 or narrower)"
                )
        return v

    @model_validator(mode="after")
    def _tls(self) -> MlflowEndpointConfig:
        if (self.hosted_zone_id is None) != (self.hosted_zone_name is None):
            raise ValueError(
                "mlflow.endpoint.hosted_zone_id and hosted_zone_name go together; set both (the stack "
                "references the zone without a lookup) or neither"
            )
        if self.certificate_arn is None and self.hosted_zone_id is None:
            raise ValueError(
                f"mlflow.endpoint has no certificate for {self.domain_name!r}: the load balancer serves "
                f"HTTPS only; set certificate_arn to an ACM certificate for it, or hosted_zone_id and "
                f"hosted_zone_name so the stack creates one with DNS validation"
            )
        if self.hosted_zone_name and not (
            self.domain_name == self.hosted_zone_name or self.domain_name.endswith("." + self.hosted_zone_name)
        ):
            raise ValueError(
                f"mlflow.endpoint.domain_name {self.domain_name!r} is not inside hosted_zone_name "
                f"{self.hosted_zone_name!r}; use a name under the zone, e.g. "
                f"'mlflow.{self.hosted_zone_name}'"
            )
        if self.internet_facing and not self.ingress_cidrs:
            raise ValueError(
                "mlflow.endpoint.internet_facing is true but ingress_cidrs is empty; list the public "
                "CIDRs (office, VPN) that may reach MLflow, or keep the load balancer internal"
            )
        return self


class MlflowConfig(ConfigModel):
    """The MLflow tracking server (`<Env>-Mlflow`)."""

    authentication: Literal["basic-auth", "none"] = Field(
        "basic-auth",
        description="`basic-auth`: MLflow's basic-auth app, users in Aurora, a generated admin and "
        "one generated user per team. `none` only for an internal load balancer and a "
        "single team.",
    )
    database: MlflowDatabaseConfig = MlflowDatabaseConfig()
    service: MlflowServiceConfig = MlflowServiceConfig()
    endpoint: MlflowEndpointConfig

    @model_validator(mode="after")
    def _auth(self) -> MlflowConfig:
        if self.endpoint.internet_facing and self.authentication != "basic-auth":
            raise ValueError(
                f"mlflow.authentication {self.authentication!r} with mlflow.endpoint.internet_facing "
                f"true would publish an open tracking server; set authentication: basic-auth or "
                f"internet_facing: false"
            )
        return self

    def check_environment(
        self, *, account: str, region: str, protect_stateful: bool, teams: tuple[str, ...] = ()
    ) -> None:
        """Rules that need the environment's account, region, protection level and teams. Raises ``ValueError``."""
        cert = self.endpoint.certificate_arn
        if cert:
            _, cert_region, cert_account = _CERT_ARN.fullmatch(cert).groups()  # type: ignore[union-attr]
            if cert_region != region:
                raise ValueError(
                    f"mlflow.endpoint.certificate_arn {cert!r} is in region {cert_region}, but the "
                    f"load balancer is in {region}; request or import the certificate in {region}"
                )
            if cert_account != account:
                raise ValueError(
                    f"mlflow.endpoint.certificate_arn {cert!r} belongs to account {cert_account}, not "
                    f"{account}; a load balancer can only use certificates of its own account"
                )
        if protect_stateful:
            if self.database.deletion_protection is False:
                raise ValueError(
                    "mlflow.database.deletion_protection is false in an environment with "
                    "protect_stateful: true; remove the key (it defaults to on) - production tracking "
                    "data must not be deletable by one API call"
                )
            if self.database.min_capacity_acu < 0.5:
                raise ValueError(
                    f"mlflow.database.min_capacity_acu {self.database.min_capacity_acu:g} would let the "
                    f"production database pause (cold starts of ~15 s); use 0.5 or more when "
                    f"protect_stateful is true"
                )
            if self.service.min_tasks < 2:
                raise ValueError(
                    f"mlflow.service.min_tasks {self.service.min_tasks} is a single point of failure; "
                    f"use 2 or more (spread across AZs) when protect_stateful is true"
                )
            if self.authentication != "basic-auth":
                raise ValueError(
                    "mlflow.authentication 'none' is not allowed when protect_stateful is true; use basic-auth"
                )
        if len(teams) > 1:
            if self.authentication != "basic-auth":
                raise ValueError(
                    f"mlflow.authentication {self.authentication!r} gives the {len(teams)} teams "
                    f"({', '.join(teams)}) one shared identity, so each could change the others' "
                    f"experiments; use basic-auth (one MLflow user per team)"
                )
            if self.service.default_permission != "NO_PERMISSIONS":
                raise ValueError(
                    f"mlflow.service.default_permission {self.service.default_permission!r} lets each "
                    f"of the {len(teams)} teams ({', '.join(teams)}) use the others' experiments and "
                    f"models; remove the key (default NO_PERMISSIONS) and share single experiments "
                    f"through MLflow's permissions API instead"
                )

    def deletion_protection(self, protect_stateful: bool) -> bool:
        """The effective RDS deletion protection."""
        dp = self.database.deletion_protection
        return protect_stateful if dp is None else dp

    @property
    def tracking_uri(self) -> str:
        return f"https://{self.endpoint.domain_name}"
