"""Per-environment configuration: one YAML file per environment in this folder, validated into frozen models.

Use :func:`load_config` (``-c env=NAME`` picks the file ``config/NAME.yaml``). Every error names the field,
the value and the fix, and is raised before any construct is built.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from ._base import ConfigError, ConfigModel
from .compute import ComputeConfig
from .cost import CostConfig, burst_per_hour
from .kubernetes import KubernetesConfig, TeamConfig
from .mlflow import MlflowConfig
from .network import HyperPodSubnetConfig, NetworkConfig
from .storage import EcrConfig, FsxConfig, S3LifecycleConfig, StorageConfig
from .studio import StudioConfig, StudioUserProfileConfig

CONFIG_DIR = Path(__file__).resolve().parent
DEFAULT_ENV = "dev"

__all__ = [
    "CONFIG_DIR", "DEFAULT_ENV", "ComputeConfig", "ConfigError", "EcrConfig", "EnvironmentConfig", "FsxConfig",
    "HyperPodSubnetConfig", "KubernetesConfig", "MlflowConfig", "NetworkConfig", "S3LifecycleConfig", "StorageConfig",
    "TeamConfig", "known_environments", "load_config", "parse_config",
    "StudioConfig", "StudioUserProfileConfig",
]


class EnvironmentConfig(ConfigModel):
    """The whole configuration of one environment (one ``config/<name>.yaml``)."""

    name: str = Field(description="Environment name; set from the file name, e.g. `dev`.")
    account: str = Field(description="12-digit AWS account ID the environment deploys to.")
    region: str = Field(description="AWS region, e.g. `us-east-1`.")
    protect_stateful: bool = Field(
        False, description="Production safety: termination protection on stateful stacks, deletion protection "
                           "where a service has it, one NAT gateway per AZ by default.")
    tags: dict[str, str] = Field(default_factory=dict, description="Tags applied to every resource.")
    network: NetworkConfig
    storage: StorageConfig = StorageConfig()
    kubernetes: KubernetesConfig = KubernetesConfig()
    mlflow: MlflowConfig = Field(description="MLflow tracking server (`<Env>-Mlflow`); see config/mlflow.py.")
    studio: StudioConfig = Field(StudioConfig(), description="SageMaker Studio domain on the cluster's FSx "
                                                            "(`<Env>-Studio`); see config/studio.py.")
    compute: ComputeConfig = Field(ComputeConfig(), description="EKS, HyperPod, Karpenter, KubeRay (`<Env>-Compute`); "
                                                               "see config/compute.py.")
    cost: CostConfig = Field(CostConfig(), description="GPU spend budget; see config/cost.py and `make cost`.")

    @field_validator("account")
    @classmethod
    def _account(cls, v: str) -> str:
        if not re.fullmatch(r"\d{12}", v):
            raise ValueError(f"account {v!r} is not a 12-digit AWS account ID; quote it in YAML, e.g. "
                             f"account: \"123456789012\"")
        return v

    @field_validator("region")
    @classmethod
    def _region(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d", v):
            raise ValueError(f"region {v!r} is not an AWS region name; use e.g. 'us-east-1'")
        return v

    @model_validator(mode="after")
    def _azs_in_region(self) -> EnvironmentConfig:
        wrong = [az for az in self.network.availability_zones if not re.fullmatch(re.escape(self.region) + "[a-z]", az)]
        if wrong:
            raise ValueError(
                f"network.availability_zones {wrong!r} are not AZs of region {self.region!r}; use names like "
                f"'{self.region}a', '{self.region}b'"
            )
        return self

    @model_validator(mode="after")
    def _compute_in_environment(self) -> EnvironmentConfig:
        self.compute.check_environment(protected=self.protect_stateful,
                                       hyperpod_az=self.network.hyperpod.availability_zone)
        return self

    @model_validator(mode="after")
    def _studio_in_environment(self) -> EnvironmentConfig:
        self.studio.check_environment(team_names=tuple(t.name for t in self.kubernetes.teams),
                                      team_gids={t.name: t.posix_gid for t in self.kubernetes.teams})
        return self

    @model_validator(mode="after")
    def _mlflow_in_environment(self) -> EnvironmentConfig:
        self.mlflow.check_environment(account=self.account, region=self.region,
                                      protect_stateful=self.protect_stateful)
        return self

    @model_validator(mode="after")
    def _burst_within_budget(self) -> EnvironmentConfig:
        budget = self.cost.max_burst_usd_per_hour
        if budget is None:
            return self
        pools = [(p.name, p.instance_types, p.gpu_limit) for p in self.kubernetes.gpu_node_pools]
        groups = [(g.name, g.instance_type, g.count) for g in self.compute.hyperpod.instance_groups]
        total, lines, missing = burst_per_hour(self.region, pools, groups)
        if missing:
            raise ValueError(
                f"cost.max_burst_usd_per_hour is set but instance types {sorted(set(missing))!r} have no price in "
                f"tools/cost/prices.yaml for {self.region}; add them (with source and date) so the budget can be "
                f"checked"
            )
        if total > budget:
            raise ValueError(
                f"cost.max_burst_usd_per_hour {budget:g}: the GPU pools and HyperPod groups could spend "
                f"${total:,.2f}/hour ({'; '.join(lines)}); lower kubernetes.gpu_node_pools[].gpu_limit or "
                f"compute.hyperpod.instance_groups[].count, or raise the budget"
            )
        return self

    # ---- derived names (one place, so every stack agrees) -------------------------------------------------
    @property
    def stack_prefix(self) -> str:
        """`dev` -> `Dev`: stacks are named `<Env>-Network`, `<Env>-Storage`, ..."""
        return self.name[:1].upper() + self.name[1:]

    @property
    def resource_prefix(self) -> str:
        """Lower-case prefix for physical names that must be unique per account/region."""
        return f"llmft-{self.name}"

    @property
    def cluster_name(self) -> str:
        """Name of the EKS cluster (also the Karpenter discovery tag value)."""
        return f"{self.resource_prefix}-eks"

    @property
    def nat_gateway_count(self) -> int:
        if self.network.nat_gateways is not None:
            return self.network.nat_gateways
        return len(self.network.availability_zones) if self.protect_stateful else 1


def known_environments(config_dir: Path = CONFIG_DIR) -> list[str]:
    return sorted(p.stem for p in config_dir.glob("*.yaml"))


def _format_error(err: dict[str, Any], path: str, model: type[ConfigModel]) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        parent: Any = model
        for part in err["loc"][:-1]:
            field = parent.model_fields.get(str(part)) if isinstance(parent, type) else None
            parent = getattr(field, "annotation", None) if field else None
        known = sorted(parent.model_fields) if isinstance(parent, type) and issubclass(parent, ConfigModel) else []
        hint = f"; known keys here: {', '.join(known)}" if known else ""
        return f"{loc}: unknown key (value {err['input']!r}); remove it or fix its spelling{hint}"
    if err["type"] == "missing":
        return f"{loc}: required field is missing; add it to {path}"
    if err["type"].startswith("value_error") or err["type"] == "assertion_error":
        return msg
    return f"{loc}: {msg} (got {err['input']!r}); fix the value in {path}"


def parse_config(name: str, data: Any, *, source: str = "<memory>") -> EnvironmentConfig:
    """Validate a mapping (already parsed YAML) as the config of environment ``name``."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the file must be a YAML mapping of sections, got {type(data).__name__}")
    if "name" in data and data["name"] != name:
        raise ConfigError(f"{source}: name {data['name']!r} differs from the file name {name!r}; remove the key")
    try:
        return EnvironmentConfig.model_validate({**data, "name": name})
    except ValidationError as exc:
        lines = [_format_error(e, source, EnvironmentConfig) for e in exc.errors()]
        raise ConfigError(f"invalid configuration {source}:\n  - " + "\n  - ".join(lines)) from None


def load_config(name: str | None = None, *, config_dir: Path = CONFIG_DIR) -> EnvironmentConfig:
    """Load and validate ``config/<name>.yaml`` (default ``dev``)."""
    name = name or DEFAULT_ENV
    path = config_dir / f"{name}.yaml"
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,15}", name) or not path.is_file():
        known = ", ".join(known_environments(config_dir))
        raise ConfigError(
            f"unknown environment {name!r} (-c env={name}); known environments are: {known}. "
            f"Pass one of them, or create config/{name}.yaml (copy config/dev.yaml) to add one"
        )
    with path.open(encoding="utf-8") as fh:
        try:
            data = yaml.safe_load(fh)
        except yaml.YAMLError as exc:
            raise ConfigError(f"config/{name}.yaml is not valid YAML: {exc}") from None
    return parse_config(name, data or {}, source=f"config/{name}.yaml")
