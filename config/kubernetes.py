"""Kubernetes section: ML teams (namespaces), job tiers, PriorityClasses and Karpenter GPU node pools.

Teams are what an ML engineer belongs to: each becomes a namespace with a GPU quota, the job tiers it may use
(and through them the PriorityClasses its pods may request), and an S3 prefix of the data bucket that its
service account (EKS Pod Identity) may read and write. SageMaker Studio user profiles name a team here.
"""

from __future__ import annotations

import re
import zlib
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel
from .instances import (  # noqa: F401  (GPU_INSTANCE_TYPES, gpu_instance_type re-exported: callers import them here)
    EBS_MAX_GIB,
    GPU_INSTANCE_TYPES,
    GpuInstanceType,
    check_ec2_instance_type,
    gpu_instance_type,
    instance_spec,
    instance_specs,
)

Tier = Literal["production", "development", "research", "experiment"]
TIERS: tuple[str, ...] = ("production", "development", "research", "experiment")

# The PriorityClasses each tier's pods may use; the first one is the tier's default.
# production -> HyperPod reserved nodes, development -> on-demand EC2, research -> spot,
# experiment -> spot at low priority (or preemptible, the first thing evicted).
TIER_PRIORITY_CLASSES: dict[str, tuple[str, ...]] = {
    "production": ("critical",),
    "development": ("high",),
    "research": ("medium",),
    "experiment": ("low", "preemptible"),
}

# Namespaces that belong to the platform, not to a team (`default` and `kube-*` are refused separately).
# `kuberay` and `amazon-cloudwatch` may reach team pods (k8s_charts/team_isolation.py), so no team may be called so.
RESERVED_NAMESPACES: tuple[str, ...] = (
    "default",
    "karpenter",
    "kubeflow",
    "ray-system",
    "kuberay",
    "aws-hyperpod",
    "amazon-cloudwatch",
    "cert-manager",
)

# Karpenter v1 accepts durations of whole seconds, minutes and hours (a subset of Go's time.ParseDuration).
_DURATION = re.compile(r"([0-9]+(s|m|h))+")

# POSIX identities of teams (owner of /teams/<team> on FSx and of every file a team's pod writes). Team uids stay
# below SageMaker Studio's uid range (CustomPosixUserConfig: 10000-4000000), so no Studio user can ever be a team;
# team gids are Studio gids too (a team's Studio users get the team's gid), so they use Studio's gid range.
TEAM_UID_RANGE = (1000, 9999)
TEAM_GID_RANGE = (1001, 4000000)
_DEFAULT_ID_BASE, _DEFAULT_ID_SPAN = 5000, 5000
# FSx for Lustre allows at most 8 data repository associations per file system, and each team has its own
# (CreateDataRepositoryAssociation, https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateDataRepositoryAssociation.html).
MAX_TEAMS = 8


def default_team_posix_id(name: str) -> int:
    """Default uid and gid of team ``name``: 5000-9999, stable under renaming other teams or reordering."""
    return _DEFAULT_ID_BASE + zlib.crc32(name.encode()) % _DEFAULT_ID_SPAN


PRIORITY_VALUE_MAX = 1_000_000_000  # larger values are reserved for system-node-critical / system-cluster-critical
# Upper bound for GPU counts in config (pool limits, team quotas): 512 eight-GPU nodes. Not a service limit but a
# sanity bound: a typo such as 1e30 would otherwise reach the NodePool as `1e+30` (jsii passes numbers as
# JavaScript doubles), which Karpenter reads as "no limit".
MAX_GPUS = 4096
# The same kind of sanity bound for the CPU pool's vCPU limit (kubernetes.cpu_node_pool.cpu_limit).
MAX_CPUS = 4096


def validate_duration(field: str, value: str, *, allow_never: bool) -> str:
    """Return ``value`` if Karpenter accepts it as a duration (``Never`` if allowed), else raise."""
    if _DURATION.fullmatch(value) or (allow_never and value == "Never"):
        return value
    never = " or 'Never'" if allow_never else ""
    raise ValueError(
        f"{field} {value!r} is not a duration; use a Go duration of whole hours, minutes and seconds "
        f"such as '30m', '720h' or '1h30m'{never}"
    )


_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_S3_PREFIX = re.compile(r"[A-Za-z0-9!_.*'()-]+(/[A-Za-z0-9!_.*'()-]+)*/")


def validate_dns_label(field: str, value: str, example: str) -> str:
    """Return ``value`` if it is a DNS-1123 label (a Kubernetes object name), else raise a message naming
    ``field`` with ``example`` as a valid value."""
    if len(value) > 63 or not _DNS1123_LABEL.fullmatch(value):
        raise ValueError(
            f"{field} {value!r} is not a DNS-1123 label; use lower-case letters, digits and '-', e.g. {example!r}"
        )
    return value


def validate_namespace_name(field: str, value: str) -> str:
    """Return ``value`` if it can be a team namespace, else raise a message naming ``field``."""
    if len(value) > 63 or not _DNS1123_LABEL.fullmatch(value):
        raise ValueError(
            f"{field} {value!r} is not a DNS-1123 label; use at most 63 lower-case letters, digits and '-', "
            f"starting and ending with a letter or digit, e.g. 'ml-research'"
        )
    if value in RESERVED_NAMESPACES or value.startswith("kube-"):
        raise ValueError(
            f"{field} {value!r} is a system namespace (reserved: {', '.join(RESERVED_NAMESPACES)}, kube-*); "
            f"pick a team name such as 'ml-research'"
        )
    return value


class TeamConfig(ConfigModel):
    """One ML team: a namespace with quotas, allowed job tiers and its own S3 prefix."""

    name: str = Field(
        description="Team name, used as the namespace name (DNS-1123 label; not `default`, "
        "`kube-*` or a platform namespace)."
    )
    gpu_quota: int = Field(
        8,
        ge=0,
        le=MAX_GPUS,
        description="Most GPUs (`requests.nvidia.com/gpu`) the team's pods may request at once, across all tiers.",
    )
    allowed_tiers: tuple[Tier, ...] = Field(
        ("development", "research", "experiment"),
        description="Job tiers the team may submit: production, development, research, experiment. The "
        "namespace's ResourceQuota lets pods use only these tiers' PriorityClasses.",
    )
    gpu_shares: dict[str, int] = Field(
        default_factory=dict,
        description="Nominal GPUs per capacity (a GPU instance group of compute.hyperpod or a "
        "kubernetes.gpu_node_pools name): the team's share, usable without borrowing. Shares of all "
        "teams on one capacity may not exceed what it holds; the rest of each capacity is a pool every "
        "borrowing team shares.",
    )
    borrowing: bool = Field(
        True,
        description="Kueue borrowing within the cohort: the team may use other teams' unused shares and the "
        "unassigned capacity (priority still decides preemption). False: at most its gpu_shares.",
    )
    s3_prefix: str | None = Field(
        None,
        description="Prefix of the data bucket the team's service account may read/write; default "
        "`teams/<name>/`. Must end with '/' and must not overlap another team's prefix.",
    )
    posix_uid: int = Field(
        None,
        validate_default=True,
        description="POSIX uid the team's pods run as (enforced) and owner of its FSx tree `/teams/<name>`; "
        "1000-9999 (below Studio's uid range), unique across teams. Default: 5000 + a stable hash of "
        "the name.",
    )
    posix_gid: int = Field(
        None,
        validate_default=True,
        description="POSIX gid of the team's pods, of its FSx tree and of its Studio users; 1001-4000000, unique "
        "across teams, not `studio.posix_gid`. Default: the same number as the default uid.",
    )

    @model_validator(mode="before")
    @classmethod
    def _default_ids(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            default = default_team_posix_id(data["name"].strip())
            data = {**data}
            for key in ("posix_uid", "posix_gid"):
                if data.get(key) is None:
                    data[key] = default
        return data

    @field_validator("posix_uid")
    @classmethod
    def _uid(cls, v: int) -> int:
        low, high = TEAM_UID_RANGE
        if not low <= v <= high:
            studio = (
                " (that is SageMaker Studio's uid range: a Studio user could own the team's files)"
                if v >= 10000
                else ""
            )
            raise ValueError(
                f"kubernetes.teams[].posix_uid {v} is outside {low}-{high}{studio}; pick an unused uid "
                f"such as 5001 (0-999 are system accounts)"
            )
        return v

    @field_validator("posix_gid")
    @classmethod
    def _gid(cls, v: int) -> int:
        low, high = TEAM_GID_RANGE
        if not low <= v <= high:
            raise ValueError(
                f"kubernetes.teams[].posix_gid {v} is outside {low}-{high} (SageMaker Studio's gid "
                f"range; the team's Studio users get this gid); pick e.g. 5001"
            )
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return validate_namespace_name("kubernetes.teams[].name", v)

    @field_validator("allowed_tiers", mode="before")
    @classmethod
    def _tiers(cls, v: object) -> object:
        if isinstance(v, (list, tuple)):
            unknown = [t for t in v if t not in TIERS]
            if unknown:
                raise ValueError(
                    f"kubernetes.teams[].allowed_tiers {unknown!r} are not job tiers; use any of {', '.join(TIERS)}"
                )
            if not v:
                raise ValueError(f"kubernetes.teams[].allowed_tiers is empty; allow at least one of {', '.join(TIERS)}")
            if len(set(v)) != len(v):
                raise ValueError(f"kubernetes.teams[].allowed_tiers {list(v)!r} lists a tier twice; list each once")
        return v

    @model_validator(mode="after")
    def _production_needs_auto_resume_namespace(self) -> TeamConfig:
        # Production PyTorchJobs rely on HyperPod job auto-resume, which HyperPod applies only to jobs in the
        # namespace `kubeflow` or in namespaces whose name starts with `hyperpod`.
        if "production" in self.allowed_tiers and not self.name.startswith("hyperpod"):
            raise ValueError(
                f"kubernetes.teams[].name {self.name!r} may run the production tier, whose jobs rely on HyperPod job "
                f"auto-resume, but HyperPod resumes jobs only in namespaces named 'kubeflow' or starting with "
                f"'hyperpod'; rename the team to 'hyperpod-{self.name}' or drop 'production' from its allowed_tiers"
            )
        return self

    @field_validator("gpu_shares")
    @classmethod
    def _shares(cls, v: dict[str, int]) -> dict[str, int]:
        negative = {k: n for k, n in v.items() if n < 0}
        if negative:
            raise ValueError(f"kubernetes.teams[].gpu_shares {negative!r} are negative; shares are GPU counts >= 0")
        return v

    @field_validator("s3_prefix")
    @classmethod
    def _prefix(cls, v: str | None) -> str | None:
        if v is not None and not _S3_PREFIX.fullmatch(v):
            raise ValueError(
                f"kubernetes.teams[].s3_prefix {v!r} is not a key prefix; use path segments of letters, digits "
                f"and !_.*'()- separated by '/', no leading '/', ending with '/', e.g. 'teams/ml-research/'"
            )
        return v

    @property
    def namespace(self) -> str:
        return self.name

    @property
    def data_prefix(self) -> str:
        """The team's S3 prefix in the data bucket (``s3_prefix`` or ``teams/<name>/``)."""
        return self.s3_prefix or f"teams/{self.name}/"

    @property
    def allowed_priority_classes(self) -> tuple[str, ...]:
        """PriorityClass names the team's pods may use (from its tiers, in tier order)."""
        return tuple(pc for tier in TIERS if tier in self.allowed_tiers for pc in TIER_PRIORITY_CLASSES[tier])


class PriorityClassConfig(ConfigModel):
    """One PriorityClass. The job tiers use critical/high/medium/low/preemptible."""

    name: str = Field(description="PriorityClass name (DNS-1123 label).")
    value: int = Field(description=f"Priority, at most {PRIORITY_VALUE_MAX:,}; higher preempts lower.")
    description: str = Field(description="What the class is for (shown by `kubectl get priorityclass -o wide`).")
    preemption_policy: Literal["PreemptLowerPriority", "Never"] = Field(
        "PreemptLowerPriority",
        description="`Never`: waits in the queue ahead of lower priorities but never evicts a running pod.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        validate_dns_label("kubernetes.priority_classes[].name", v, "critical")
        if v.startswith("system-"):
            raise ValueError(
                f"kubernetes.priority_classes[].name {v!r} uses the reserved 'system-' prefix; choose another name"
            )
        return v

    @field_validator("value")
    @classmethod
    def _value(cls, v: int) -> int:
        if not -PRIORITY_VALUE_MAX <= v <= PRIORITY_VALUE_MAX:
            raise ValueError(
                f"kubernetes.priority_classes[].value {v:,} is out of range; user-defined "
                f"PriorityClasses must be between -{PRIORITY_VALUE_MAX:,} and {PRIORITY_VALUE_MAX:,} "
                f"(larger values are reserved for system-critical pods)"
            )
        return v


DEFAULT_PRIORITY_CLASSES: tuple[PriorityClassConfig, ...] = (
    PriorityClassConfig(
        name="critical",
        value=1_000_000,
        description="Production training on HyperPod reserved capacity; preempts every other "
        "tier when the reserved nodes are full.",
    ),
    PriorityClassConfig(
        name="high",
        value=800_000,
        description="Development jobs on on-demand EC2 GPU nodes (bursting onto idle HyperPod "
        "nodes); preempts research and experiments.",
    ),
    PriorityClassConfig(
        name="medium",
        value=600_000,
        description="Research jobs on spot GPU nodes (bursting onto idle HyperPod nodes); preempts experiments.",
    ),
    PriorityClassConfig(
        name="low", value=400_000, description="Experiments on spot GPU nodes; first to be preempted after preemptible."
    ),
    PriorityClassConfig(
        name="preemptible",
        value=200_000,
        preemption_policy="Never",
        description="Opportunistic experiments: never preempt anything and are evicted first.",
    ),
)


class GpuNodePoolConfig(ConfigModel):
    """One Karpenter NodePool of GPU nodes: one GPU class and one capacity type."""

    name: str = Field(description="NodePool name (DNS-1123 label), e.g. `h100-on-demand`.")
    instance_types: tuple[str, ...] = Field(
        description="EC2 instance types, all with the same GPU type (see config.kubernetes.GPU_INSTANCE_TYPES)."
    )
    capacity_type: Literal["on-demand", "spot"] = Field(
        description="`on-demand` serves the development tier "
        "(`node-type: eks-on-demand`), `spot` the "
        "research/experiment tiers (`eks-spot`)."
    )
    gpu_limit: int = Field(
        description=f"Most GPUs the pool may run at once: the pool's spend cap (at most {MAX_GPUS})."
    )
    weight: int = Field(
        description="Karpenter weight 1-100; among pools that fit a pod the highest is tried "
        "first. Must be unique so the order is explicit."
    )
    efa: bool = Field(
        False,
        description="Attach EFA interfaces on every network card and pin the pool to the "
        "HyperPod AZ (network.hyperpod.availability_zone) for multi-node jobs.",
    )
    consolidate_after: str = Field(
        "30m",
        description="How long a node must be empty before it is removed (consolidation policy is always WhenEmpty).",
    )
    expire_after: str = Field(
        "720h",
        description="Node lifetime before replacement (patching), or `Never`. "
        "Expiry drains forcefully after termination_grace_period.",
    )
    termination_grace_period: str = Field(
        "24h",
        description="Longest a draining node waits for pods (even do-not-disrupt training pods) before terminating.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return validate_dns_label("kubernetes.gpu_node_pools[].name", v, "h100-on-demand")

    @field_validator("consolidate_after", "expire_after")
    @classmethod
    def _durations(cls, v: str, info) -> str:
        return validate_duration(f"kubernetes.gpu_node_pools[].{info.field_name}", v, allow_never=True)

    @field_validator("termination_grace_period")
    @classmethod
    def _grace(cls, v: str) -> str:
        return validate_duration("kubernetes.gpu_node_pools[].termination_grace_period", v, allow_never=False)

    @field_validator("gpu_limit")
    @classmethod
    def _gpu_limit(cls, v: int) -> int:
        if not 1 <= v <= MAX_GPUS:
            raise ValueError(
                f"kubernetes.gpu_node_pools[].gpu_limit {v} is outside 1-{MAX_GPUS}; it is the pool's "
                f"spend cap in GPUs, e.g. 16 for two 8-GPU nodes"
            )
        return v

    @field_validator("weight")
    @classmethod
    def _weight(cls, v: int) -> int:
        if not 1 <= v <= 100:
            raise ValueError(
                f"kubernetes.gpu_node_pools[].weight {v} is outside 1-100; Karpenter weights are "
                f"1 (last) to 100 (first)"
            )
        return v

    @model_validator(mode="after")
    def _instances(self) -> GpuNodePoolConfig:
        field = f"kubernetes.gpu_node_pools[{self.name}]"
        if not self.instance_types:
            raise ValueError(f"{field}.instance_types is empty; list at least one, e.g. ['p5.48xlarge']")
        infos = {t: gpu_instance_type(f"{field}.instance_types", t) for t in self.instance_types}
        if self.instance_types != tuple(t.removeprefix("ml.") for t in self.instance_types):
            raise ValueError(
                f"{field}.instance_types {list(self.instance_types)!r} name HyperPod (ml.) types; "
                f"Karpenter launches EC2 types, write them without 'ml.'"
            )
        gpu_types = sorted({i.gpu_type for i in infos.values()})
        if len(gpu_types) > 1:
            raise ValueError(
                f"{field}.instance_types mix GPU types {gpu_types}; one pool holds one GPU type, "
                f"split it into one pool per GPU type"
            )
        if self.efa:
            no_efa = [t for t, i in infos.items() if not i.efa_network_cards]
            if no_efa:
                raise ValueError(f"{field}.efa is true but {no_efa} do not support EFA; remove them or set efa: false")
            cards = sorted({i.efa_network_cards for i in infos.values()})
            if len(cards) > 1:
                raise ValueError(
                    f"{field}.instance_types have different EFA network card counts {cards}; an EFA "
                    f"pool needs one layout, split it by instance family"
                )
        smallest = min(i.gpus for i in infos.values())
        if self.gpu_limit < smallest:
            raise ValueError(
                f"{field}.gpu_limit {self.gpu_limit} is below the {smallest} GPUs of its smallest "
                f"instance type, so the pool could never launch a node; raise it to at least "
                f"{smallest}"
            )
        return self

    @property
    def gpu_type(self) -> str:
        return GPU_INSTANCE_TYPES[self.instance_types[0]].gpu_type

    @property
    def node_type(self) -> str:
        """Value of the `node-type` label: `eks-on-demand` or `eks-spot`."""
        return "eks-on-demand" if self.capacity_type == "on-demand" else "eks-spot"

    @property
    def efa_network_cards(self) -> int:
        return GPU_INSTANCE_TYPES[self.instance_types[0]].efa_network_cards if self.efa else 0

    @property
    def instance_store(self) -> bool:
        return any(GPU_INSTANCE_TYPES[t].instance_store for t in self.instance_types)


# Current-generation general-purpose families: `m` with generation 6 or later (m6i, m6a, m7i, m7a, m8g, ...). Burstable
# t* types run out of CPU credits under a steady job driver; older generations cost more per vCPU.
_GENERAL_PURPOSE_FAMILY = re.compile(r"m([6-9]|[1-9][0-9])[a-z-]*")


class CpuNodePoolConfig(ConfigModel):
    """The Karpenter NodePool of the platform's CPU job pods (Ray heads and submitters, llmft download/prepare
    steps): on-demand, general-purpose, pinned to the HyperPod AZ (where FSx and the EFA GPU nodes are), tainted so
    that only those pods (which tolerate it) ever make it launch a node. They may also run on the system nodes."""

    name: str = Field("cpu-jobs", description="NodePool and EC2NodeClass name (DNS-1123 label; not a GPU pool's name).")
    instance_types: tuple[str, ...] = Field(
        ("m7i.xlarge", "m6i.xlarge"),
        description="EC2 instance types: current-generation general-purpose (m6 or later) CPU types listed in "
        "config/data/instance_specs.yaml. Karpenter picks the cheapest that fits the pending pods.",
    )
    cpu_limit: int = Field(
        16,
        description="Most vCPUs the pool may run at once: its spend cap (`make cost` shows "
        "$/hour per node and at the limit). At least the vCPUs of one node.",
    )
    consolidate_after: str = Field(
        "5m",
        description="How long after a pod change a node is considered for "
        "consolidation (policy WhenEmptyOrUnderutilized; nodes with "
        "running job pods are never consolidated: the pods carry "
        "`karpenter.sh/do-not-disrupt`).",
    )
    expire_after: str = Field("720h", description="Node lifetime before replacement (patching), or `Never`.")
    termination_grace_period: str = Field(
        "24h", description="Longest a draining node waits for job pods before terminating."
    )
    data_volume_gib: int = Field(
        100,
        ge=20,
        le=EBS_MAX_GIB,
        description="Data volume for container images and logs (gp3, encrypted); the "
        "Ray head pulls the training image.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return validate_dns_label("kubernetes.cpu_node_pool.name", v, "cpu-jobs")

    @field_validator("instance_types")
    @classmethod
    def _types(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("kubernetes.cpu_node_pool.instance_types is empty; list at least one, e.g. ['m7i.xlarge']")
        if len(set(v)) != len(v):
            raise ValueError(f"kubernetes.cpu_node_pool.instance_types {list(v)!r} lists a type twice; list each once")
        for t in v:
            if t.startswith("ml."):
                raise ValueError(
                    f"kubernetes.cpu_node_pool.instance_types {t!r} is a SageMaker (ml.) type; Karpenter "
                    f"launches EC2 types, write it without 'ml.'"
                )
            check_ec2_instance_type("kubernetes.cpu_node_pool.instance_types", t)
            if not _GENERAL_PURPOSE_FAMILY.fullmatch(t.split(".", 1)[0]):
                raise ValueError(
                    f"kubernetes.cpu_node_pool.instance_types {t!r} is not a current-generation "
                    f"general-purpose type; use an m6 or later family such as 'm7i.xlarge' (burstable "
                    f"t* types run out of CPU credits under a job driver)"
                )
            spec = instance_spec("kubernetes.cpu_node_pool.instance_types", t)
            if spec.is_gpu:
                raise ValueError(
                    f"kubernetes.cpu_node_pool.instance_types {t!r} has GPUs; GPU types belong in "
                    f"kubernetes.gpu_node_pools"
                )
        return v

    @field_validator("consolidate_after", "expire_after")
    @classmethod
    def _durations(cls, v: str, info) -> str:
        return validate_duration(
            f"kubernetes.cpu_node_pool.{info.field_name}", v, allow_never=info.field_name == "expire_after"
        )

    @field_validator("termination_grace_period")
    @classmethod
    def _grace(cls, v: str) -> str:
        return validate_duration("kubernetes.cpu_node_pool.termination_grace_period", v, allow_never=False)

    @model_validator(mode="after")
    def _limit(self) -> CpuNodePoolConfig:
        smallest = min(instance_specs()[t].vcpus for t in self.instance_types)
        if not smallest <= self.cpu_limit <= MAX_CPUS:
            raise ValueError(
                f"kubernetes.cpu_node_pool.cpu_limit {self.cpu_limit} is outside {smallest}-{MAX_CPUS}: "
                f"below {smallest} (the vCPUs of its smallest instance type) the pool could never "
                f"launch a node; raise it to at least {smallest}, e.g. 16 for four 4-vCPU nodes"
            )
        return self


class KarpenterNodeConfig(ConfigModel):
    """Settings shared by every Karpenter node (the EC2NodeClasses of the GPU pools and of the CPU job pool, which
    sizes its own data volume: kubernetes.cpu_node_pool.data_volume_gib)."""

    ami_alias: str = Field(
        "bottlerocket@latest",
        description="EKS-optimized AMI alias `family@version`. Bottlerocket selects its NVIDIA "
        "(accelerated) variant on GPU instances and its standard variant on the CPU "
        "job pool's. `latest` drifts nodes to each new "
        "release; pin a version (e.g. `bottlerocket@v1.44.0`) for production.",
    )
    root_volume_gib: int = Field(8, ge=4, le=EBS_MAX_GIB, description="OS volume /dev/xvda (gp3, KMS-encrypted).")
    data_volume_gib: int = Field(
        500,
        ge=20,
        le=EBS_MAX_GIB,
        description="Data volume /dev/xvdb for images, logs and ephemeral "
        "storage when no instance store exists (gp3, encrypted).",
    )
    data_volume_throughput_mibps: int = Field(
        500, ge=125, le=2000, description="gp3 throughput of the data volume (container image pulls)."
    )

    @field_validator("ami_alias")
    @classmethod
    def _alias(cls, v: str) -> str:
        if not re.fullmatch(r"(al2023|bottlerocket)@(latest|v[0-9][0-9.]*)", v):
            raise ValueError(
                f"kubernetes.karpenter.ami_alias {v!r} is not an accelerated EKS AMI alias; use "
                f"'bottlerocket@latest' or a pinned 'bottlerocket@v1.44.0' (al2023@... also works)"
            )
        return v


class KubernetesConfig(ConfigModel):
    """What runs inside the EKS cluster: ML teams, job tiers' PriorityClasses and GPU node pools."""

    teams: tuple[TeamConfig, ...] = Field(
        (TeamConfig(name="ml-research"),),
        description="ML teams; each becomes a namespace with quotas and an IAM role (Pod Identity).",
    )
    priority_classes: tuple[PriorityClassConfig, ...] = Field(
        DEFAULT_PRIORITY_CLASSES,
        description="PriorityClasses; must include every class a job tier uses "
        "(critical, high, medium, low, preemptible). No global default.",
    )
    karpenter: KarpenterNodeConfig = KarpenterNodeConfig()
    gpu_node_pools: tuple[GpuNodePoolConfig, ...] = Field(
        (
            GpuNodePoolConfig(
                name="h100-on-demand",
                instance_types=("p5.48xlarge",),
                capacity_type="on-demand",
                gpu_limit=16,
                weight=50,
                efa=True,
            ),
            GpuNodePoolConfig(
                name="a100-spot", instance_types=("p4d.24xlarge",), capacity_type="spot", gpu_limit=16, weight=40
            ),
        ),
        description="Karpenter GPU NodePools (need at least one on-demand and one spot pool for the "
        "development and research tiers).",
    )
    cpu_node_pool: CpuNodePoolConfig = Field(
        CpuNodePoolConfig(),
        description="Karpenter NodePool of the CPU job pods (Ray heads and submitters, llmft "
        "CPU steps), so they never wait for room on the fixed system nodes.",
    )

    @model_validator(mode="after")
    def _cpu_pool_name(self) -> KubernetesConfig:
        if self.cpu_node_pool.name in {p.name for p in self.gpu_node_pools}:
            raise ValueError(
                f"kubernetes.cpu_node_pool.name {self.cpu_node_pool.name!r} is also the name of a GPU "
                f"pool in kubernetes.gpu_node_pools; NodePools and EC2NodeClasses need unique names, "
                f"rename one (e.g. 'cpu-jobs')"
            )
        return self

    @model_validator(mode="after")
    def _priority_classes(self) -> KubernetesConfig:
        for attr in ("name", "value"):
            seen = [getattr(p, attr) for p in self.priority_classes]
            dupes = sorted({v for v in seen if seen.count(v) > 1})
            if dupes:
                raise ValueError(
                    f"kubernetes.priority_classes {attr}s {dupes!r} are duplicated; give each class "
                    f"a unique {attr} so the order between tiers is explicit"
                )
        names = {p.name for p in self.priority_classes}
        missing = [pc for pcs in TIER_PRIORITY_CLASSES.values() for pc in pcs if pc not in names]
        if missing:
            raise ValueError(f"kubernetes.priority_classes lacks {missing!r}, which the job tiers use; add them")
        return self

    @model_validator(mode="after")
    def _pools(self) -> KubernetesConfig:
        names = [p.name for p in self.gpu_node_pools]
        weights = [p.weight for p in self.gpu_node_pools]
        if len(set(names)) != len(names):
            raise ValueError(f"kubernetes.gpu_node_pools names {names!r} repeat; give each pool a unique name")
        if len(set(weights)) != len(weights):
            raise ValueError(
                f"kubernetes.gpu_node_pools weights {weights!r} repeat; give each pool a unique "
                f"weight so the order Karpenter tries them in is explicit"
            )
        for capacity in ("on-demand", "spot"):
            if not any(p.capacity_type == capacity for p in self.gpu_node_pools):
                raise ValueError(
                    f"kubernetes.gpu_node_pools has no {capacity} pool; the "
                    f"{'development' if capacity == 'on-demand' else 'research'} tier needs one"
                )
        return self

    @model_validator(mode="after")
    def _unique_teams(self) -> KubernetesConfig:
        names = [t.name for t in self.teams]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"kubernetes.teams names {dupes!r} appear more than once; give each team a unique name")
        for a in self.teams:
            for b in self.teams:
                if a is not b and b.data_prefix.startswith(a.data_prefix):
                    raise ValueError(
                        f"kubernetes.teams[{b.name}].s3_prefix {b.data_prefix!r} lies inside team {a.name!r}'s "
                        f"prefix {a.data_prefix!r}, so {a.name!r} could read {b.name!r}'s data; give each team "
                        f"a separate prefix such as 'teams/{b.name}/'"
                    )
        return self

    @model_validator(mode="after")
    def _team_identities(self) -> KubernetesConfig:
        if len(self.teams) > MAX_TEAMS:
            raise ValueError(
                f"kubernetes.teams lists {len(self.teams)} teams; each team's FSx tree has its own data "
                f"repository association and FSx for Lustre allows at most {MAX_TEAMS} per file "
                f"system; merge teams or run another environment"
            )
        for attr in ("posix_uid", "posix_gid"):
            owners: dict[int, str] = {}
            for t in self.teams:
                value = getattr(t, attr)
                if value in owners:
                    raise ValueError(
                        f"kubernetes.teams[{t.name}].{attr} {value} is already the {attr} of team "
                        f"{owners[value]!r}; each team needs its own, or one team could read and "
                        f"write the other's files (set {attr} explicitly)"
                    )
                owners[value] = t.name
        return self

    def team(self, name: str) -> TeamConfig:
        """The team called ``name``, or a ValueError listing the known teams."""
        for t in self.teams:
            if t.name == name:
                return t
        raise ValueError(
            f"unknown team {name!r}; known teams (kubernetes.teams): {', '.join(t.name for t in self.teams)}"
        )
