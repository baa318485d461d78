"""Per-environment configuration: one YAML file per environment in this folder, validated into frozen models.

Use :func:`load_config` (``-c env=NAME`` picks the file ``config/NAME.yaml``). Every error names the field,
the value and the fix, and is raised before any construct is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator

from ._base import ConfigError, ConfigModel
from .accounts import ORGANIZATION_FILE, OrganizationConfig, check_organization
from .compute import ComputeConfig
from .cost import CostConfig, burst_per_hour
from .existing import ExistingClusterConfig
from .gitops import DeliveryConfig
from .identity import DeploymentIdentity, check_deployment_name
from .kubernetes import KubernetesConfig, TeamConfig
from .mlflow import MlflowConfig
from .network import HyperPodSubnetConfig, NetworkConfig
from .observability import AlarmThresholds, ObservabilityConfig
from .pipelines import PipelinesConfig
from .queueing import check_queueing
from .storage import EcrConfig, FsxConfig, S3LifecycleConfig, StorageConfig
from .strict_yaml import load_yaml
from .studio import StudioConfig, StudioUserProfileConfig

CONFIG_DIR = Path(__file__).resolve().parent
DEFAULT_ENV = "dev"

__all__ = [
    "CONFIG_DIR",
    "DEFAULT_ENV",
    "EXISTING_DIR",
    "ComputeConfig",
    "ConfigError",
    "DeliveryConfig",
    "EcrConfig",
    "EnvironmentConfig",
    "ExistingClusterConfig",
    "known_existing",
    "load_existing_config",
    "parse_existing_config",
    "FsxConfig",
    "HyperPodSubnetConfig",
    "KubernetesConfig",
    "MlflowConfig",
    "NetworkConfig",
    "S3LifecycleConfig",
    "StorageConfig",
    "AlarmThresholds",
    "ObservabilityConfig",
    "TeamConfig",
    "known_environments",
    "load_config",
    "parse_config",
    "OrganizationConfig",
    "load_organization",
    "parse_organization",
    "StudioConfig",
    "StudioUserProfileConfig",
]


class EnvironmentConfig(DeploymentIdentity):
    """The whole configuration of one environment (one ``config/<name>.yaml``)."""

    name: str = Field(description="Environment name; set from the file name, e.g. `dev`.")
    account: str = Field(description="12-digit AWS account ID the environment deploys to.")
    region: str = Field(description="AWS region, e.g. `us-east-1`.")
    protect_stateful: bool = Field(
        False,
        description="Production safety: termination protection on stateful stacks, deletion protection "
        "where a service has it, one NAT gateway per AZ by default.",
    )
    tags: dict[str, str] = Field(default_factory=dict, description="Tags applied to every resource.")
    network: NetworkConfig
    storage: StorageConfig = StorageConfig()
    kubernetes: KubernetesConfig = KubernetesConfig()
    mlflow: MlflowConfig = Field(description="MLflow tracking server (`<Env>-Mlflow`); see config/mlflow.py.")
    studio: StudioConfig = Field(
        StudioConfig(),
        description="SageMaker Studio domain on the cluster's FSx (`<Env>-Studio`); see config/studio.py.",
    )
    compute: ComputeConfig = Field(
        ComputeConfig(), description="EKS, HyperPod, Karpenter, KubeRay (`<Env>-Compute`); see config/compute.py."
    )
    cost: CostConfig = Field(CostConfig(), description="GPU spend budget; see config/cost.py and `make cost`.")
    observability: ObservabilityConfig = Field(
        ObservabilityConfig(),
        description="Logs, the CloudWatch Observability add-on, dashboard and alarms "
        "(`<Env>-Observability`); see config/observability.py.",
    )
    pipelines: PipelinesConfig = Field(
        PipelinesConfig(), description="Argo Workflows for `llmft pipeline`; see config/pipelines.py."
    )
    delivery: DeliveryConfig = Field(
        DeliveryConfig(),
        description="How manifests reach the cluster: `cdk` (default) or `argocd` (GitOps); see "
        'config/gitops.py and docs/gitops.md "GitOps with Argo CD".',
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_deployment_name(v, "environment name", f"config/{v}.yaml", "bucket, cluster and stack names")

    @model_validator(mode="after")
    def _physical_names_fit(self) -> EnvironmentConfig:
        # S3 bucket names are 3-63 characters ("General purpose bucket naming rules", Amazon S3 User Guide).
        name = self.lifecycle_bucket_name
        if len(name) > 63:
            room = 63 - (len(name) - len(self.name))
            raise ValueError(
                f"environment name {self.name!r} makes the HyperPod lifecycle bucket name {name!r} "
                f"{len(name)} characters long, over S3's 63-character limit; with account "
                f"{self.account} and region {self.region} the environment name may have at most "
                f"{room} characters (rename config/{self.name}.yaml)"
            )
        return self

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
        self.compute.check_environment(
            protected=self.protect_stateful,
            hyperpod_az=self.network.hyperpod.availability_zone,
            account=self.account,
            region=self.region,
            team_namespaces=tuple(t.namespace for t in self.kubernetes.teams),
        )
        return self

    @model_validator(mode="after")
    def _queueing_in_environment(self) -> EnvironmentConfig:
        check_queueing(self.compute, self.kubernetes)
        return self

    @model_validator(mode="after")
    def _studio_in_environment(self) -> EnvironmentConfig:
        self.studio.check_environment(
            team_names=tuple(t.name for t in self.kubernetes.teams),
            team_gids={t.name: t.posix_gid for t in self.kubernetes.teams},
        )
        return self

    @model_validator(mode="after")
    def _mlflow_in_environment(self) -> EnvironmentConfig:
        self.mlflow.check_environment(
            account=self.account,
            region=self.region,
            protect_stateful=self.protect_stateful,
            teams=tuple(t.name for t in self.kubernetes.teams),
        )
        return self

    @model_validator(mode="after")
    def _delivery_in_environment(self) -> EnvironmentConfig:
        self.delivery.check_environment(account=self.account, region=self.region)
        self.delivery.check_teams(tuple(t.name for t in self.kubernetes.teams))
        return self

    @model_validator(mode="after")
    def _burst_within_budget(self) -> EnvironmentConfig:
        """What is priced must fit the budget. Prices are advisory: instance types (or a whole region) without a
        price in config/data/prices.yaml are left out of the check, and the Observability stack warns about them at
        synth (stacks/observability_stack.py ``unpriced_gpu_types``); they never stop synthesis."""
        budget = self.cost.max_burst_usd_per_hour
        if budget is None:
            return self
        pools = [(p.name, p.instance_types, p.gpu_limit) for p in self.kubernetes.gpu_node_pools]
        groups = [(g.name, g.instance_type, g.count) for g in self.compute.hyperpod.instance_groups]
        total, lines, missing = burst_per_hour(self.region, pools, groups)
        if total > budget:
            unpriced = f"; not counted, no price: {', '.join(missing)}" if missing else ""
            raise ValueError(
                f"cost.max_burst_usd_per_hour {budget:g}: the GPU pools and HyperPod groups could spend "
                f"${total:,.2f}/hour ({'; '.join(lines)}{unpriced}); lower kubernetes.gpu_node_pools[].gpu_limit or "
                f"compute.hyperpod.instance_groups[].count, or raise the budget"
            )
        return self

    @property
    def burst_alarm_usd_per_hour(self) -> float | None:
        """Threshold of the burst-spend alarm: its own setting, else the configured GPU budget (None: no alarm)."""
        return self.observability.thresholds.burst_usd_per_hour or self.cost.max_burst_usd_per_hour

    # ---- derived names: stack_prefix and resource_prefix come from DeploymentIdentity ------------------------
    @property
    def lifecycle_bucket_name(self) -> str:
        """The HyperPod lifecycle-script bucket; HyperPod's managed policy only reads buckets named `sagemaker-*`."""
        return f"sagemaker-{self.resource_prefix}-lifecycle-{self.account}-{self.region}"

    @property
    def gitops_path(self) -> str:
        """This environment's folder in the GitOps repository (``delivery.path``, default ``environments/<env>``);
        lay it out with config.gitops.platform_dir() and team_jobs_dir()."""
        return self.delivery.git_path(self.name)

    @property
    def cluster_name(self) -> str:
        """Name of the EKS cluster (also the Karpenter discovery tag value)."""
        return f"{self.resource_prefix}-eks"

    @property
    def availability_zones(self) -> tuple[str, ...]:
        """The AZs the stacks span (offline, instead of a context lookup)."""
        return self.network.availability_zones

    @property
    def kubernetes_version(self) -> str:
        """Kubernetes minor version of the EKS cluster (kubectl in Studio's lifecycle configurations matches it)."""
        return self.compute.kubernetes_version

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
    if err["type"] == "yaml_type":
        return f"{loc}: {msg} (fix the value in {path})"
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
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,15}", name, flags=re.ASCII) or not path.is_file():
        known = ", ".join(known_environments(config_dir))
        raise ConfigError(
            f"unknown environment {name!r} (-c env={name}); known environments are: {known}. "
            f"Pass one of them, or create config/{name}.yaml (copy config/dev.yaml) to add one"
        )
    data = load_yaml(path.read_bytes(), source=f"config/{name}.yaml")
    return parse_config(name, data or {}, source=f"config/{name}.yaml")


# ---- existing-cluster mode (issue 36): config/existing/<name>.yaml, `cdk synth -c existing=<name>` ----------------
EXISTING_DIR = CONFIG_DIR / "existing"


def known_existing(existing_dir: Path = EXISTING_DIR) -> list[str]:
    return sorted(p.stem for p in existing_dir.glob("*.yaml"))


def parse_existing_config(
    name: str, data: Any, *, source: str = "<memory>", environments: Sequence[str] = ()
) -> ExistingClusterConfig:
    """Validate a mapping (already parsed YAML) as the existing-cluster deployment ``name``. ``environments``: the
    environment names whose stacks would clash with this deployment's (``<Name>-Studio``)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the file must be a YAML mapping of sections, got {type(data).__name__}")
    if "name" in data and data["name"] != name:
        raise ConfigError(f"{source}: name {data['name']!r} differs from the file name {name!r}; remove the key")
    lines: list[str] = []
    if name in environments:
        lines.append(
            f"existing-cluster name {name!r} is also the environment config/{name}.yaml: both would deploy "
            f"the stack {name[:1].upper() + name[1:]}-Studio; rename config/existing/{name}.yaml"
        )
    try:
        config = ExistingClusterConfig.model_validate({**data, "name": name})
    except ValidationError as exc:
        lines += [_format_error(e, source, ExistingClusterConfig) for e in exc.errors()]
    if lines:
        raise ConfigError(f"invalid configuration {source}:\n  - " + "\n  - ".join(lines)) from None
    return config


def load_existing_config(
    name: str, *, existing_dir: Path = EXISTING_DIR, config_dir: Path = CONFIG_DIR
) -> ExistingClusterConfig:
    """Load and validate ``config/existing/<name>.yaml``."""
    path = existing_dir / f"{name}.yaml"
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,15}", name, flags=re.ASCII) or not path.is_file():
        known = ", ".join(known_existing(existing_dir)) or "none"
        raise ConfigError(
            f"unknown existing-cluster deployment {name!r} (-c existing={name}); known ones are: {known}. Pass one of "
            f"them, or create config/existing/{name}.yaml (copy config/existing/example.yaml) to add one"
        )
    source = f"config/existing/{name}.yaml"
    data = load_yaml(path.read_bytes(), source=source)
    return parse_existing_config(name, data or {}, source=source, environments=known_environments(config_dir))


def parse_organization(
    data: Any, environments: Mapping[str, EnvironmentConfig], *, source: str = "config/organization/accounts.yaml"
) -> OrganizationConfig:
    """Validate ``data`` (the parsed organisation file, config/accounts.py) and cross-check it against
    ``environments`` (name -> config); one :class:`ConfigError` lists every problem."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the file must be a YAML mapping, got {type(data).__name__}")
    try:
        org = OrganizationConfig.model_validate(data)
    except ValidationError as exc:
        lines = [_format_error(e, source, OrganizationConfig) for e in exc.errors()]
        raise ConfigError(f"invalid configuration {source}:\n  - " + "\n  - ".join(lines)) from None
    check_organization(org, environments, source=source)
    return org


def load_organization(path: Path = ORGANIZATION_FILE) -> tuple[OrganizationConfig, dict[str, EnvironmentConfig]]:
    """Load config/organization/accounts.yaml and every environment its waves name (the delivery pipeline's input;
    ``cdk synth -c env=<name>`` never calls this)."""
    try:
        shown = str(path.relative_to(CONFIG_DIR.parent))
    except ValueError:
        shown = str(path)
    if not path.is_file():
        raise ConfigError(
            f"{shown} does not exist; the delivery pipeline needs it: copy "
            f"config/organization/accounts.example.yaml to {shown} and fill in the accounts "
            f'(docs/deploying.md "Multi-account delivery")'
        )
    data = load_yaml(path.read_bytes(), source=shown) or {}
    waves = data.get("waves") if isinstance(data, dict) else None
    names = {
        e
        for w in (waves if isinstance(waves, list) else [])
        if isinstance(w, dict)
        for e in (w.get("environments") or [])
        if isinstance(e, str)
    }
    known = set(known_environments())
    environments = {n: load_config(n) for n in sorted(names & known)}
    return parse_organization(data, environments, source=shown), environments
