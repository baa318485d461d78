"""Compute section: the EKS cluster, its add-ons and system nodes, the SageMaker HyperPod cluster and Karpenter."""

from __future__ import annotations

import difflib
import ipaddress
import re
from functools import lru_cache
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel
from .charts import ChartVersionsConfig
from .instances import (  # noqa: F401  (EBS_MAX_GIB, ec2_instance_types... re-exported: callers import them here)
    EBS_MAX_GIB,
    botocore_enum,
    botocore_shape,
    check_ec2_instance_type,
    ec2_instance_types,
    instance_family,
    instance_spec,
    is_nvidia_gpu,
)
from .instances import (
    GPU_TYPE_BY_FAMILY as _GPU_TYPE_BY_EC2_FAMILY,
)
from .kueue import KueueConfig

# SageMaker HyperPod (EKS orchestrator) supports Kubernetes 1.28-1.34 ("Getting started with Amazon EKS support in
# SageMaker HyperPod", requirements: Kubernetes version support). The app pins a kubectl Lambda layer package per
# version (requirements.txt), so only versions with a pinned layer are accepted.
HYPERPOD_KUBERNETES_VERSIONS = ("1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34")
KUBECTL_LAYER_VERSIONS = ("1.33", "1.34")
DEFAULT_KUBERNETES_VERSION = "1.34"

# HyperPod requires the Amazon VPC CNI add-on at 1.18.3 or later.
MIN_VPC_CNI = (1, 18, 3)
_ADDON_VERSION = re.compile(r"v([0-9]+)\.([0-9]+)\.([0-9]+)-eksbuild\.([0-9]+)")
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]{1,512}")
_TRAINING_PLAN_ARN = re.compile(r"arn:(aws[a-z-]*):sagemaker:([a-z0-9-]+):([0-9]{12}):training-plan/[A-Za-z0-9_.-]+")
_GROUP_NAME = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}")
_LABEL_KEY = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*"
    r"[A-Za-z0-9])?"
)
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")

# NVIDIA GPU families among HyperPod's ml.* instance types, and the value of the `gpu-type` node label for each
# (config/instances.py's table under HyperPod's names).
GPU_TYPE_BY_FAMILY = {f"ml.{family}": gpu_type for family, gpu_type in _GPU_TYPE_BY_EC2_FAMILY.items()}
_NEURON_FAMILY = re.compile(r"ml\.(trn|inf)[0-9]")

# Address blocks from which no client reaches a public EKS endpoint (RFC 1918, RFC 6598 shared, loopback,
# link-local, "this network", multicast and reserved): a public_access_cidrs entry inside one is a mistake.
NON_PUBLIC_BLOCKS = tuple(
    ipaddress.IPv4Network(c)
    for c in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
)
# Namespaces that exist in every cluster without the platform creating them. fsx_claim_namespaces may name these;
# team namespaces get their claim from the k8s charts.
PREEXISTING_NAMESPACES = ("default",)


@lru_cache(maxsize=1)
def hyperpod_instance_count_range() -> tuple[int, int]:
    """(min, max) of `ClusterInstanceCount` in the pinned botocore SageMaker model (the API's own bounds)."""
    shape = botocore_shape("sagemaker", "ClusterInstanceCount")
    return int(shape["min"]), int(shape["max"])


@lru_cache(maxsize=1)
def hyperpod_instance_types() -> tuple[str, ...]:
    """Every `ClusterInstanceType` value the installed botocore's SageMaker model knows (read offline)."""
    return botocore_enum("sagemaker", "ClusterInstanceType")


def is_accelerated(instance_type: str) -> bool:
    """GPU or Trainium/Inferentia: the instance types deep health checks run on."""
    return is_nvidia_gpu(instance_type) or bool(_NEURON_FAMILY.match(instance_type))


def nvidia_hyperpod_instance_types() -> tuple[str, ...]:
    """The ml.* NVIDIA GPU instance types HyperPod offers (device-plugin node affinity)."""
    return tuple(t for t in hyperpod_instance_types() if is_nvidia_gpu(t))


def _addon_version(field: str, value: str) -> tuple[int, int, int]:
    m = _ADDON_VERSION.fullmatch(value)
    if not m:
        raise ValueError(
            f"compute.addons.{field} {value!r} is not an EKS add-on version; write it as listed by "
            f"`aws eks describe-addon-versions`, e.g. 'v1.20.4-eksbuild.1'"
        )
    return int(m[1]), int(m[2]), int(m[3])


BROKEN_VPC_CNI = ((1, 22, 0), (1, 23, 0))
"""[from, to) of vpc-cni versions that break HyperPod nodes: v1.22.0 added secondary-ENI exclusion by subnet tags
(aws/amazon-vpc-cni-k8s 1d749c9 "pkg ipamd: implement secondary ENI exclusion logic"; not in v1.21.x), whose
IsSubnetExcluded fails for a subnet not found in the cluster's VPC - HyperPod's ENIs live in the service account's
subnets - and ad95439 "fix hyperpod cross-account subnet issue" (#3754, first tag v1.23.0) treats it as not
excluded."""


class AddonVersionsConfig(ConfigModel):
    """Pinned EKS add-on versions. Each must be offered for `compute.kubernetes_version`; check with
    `aws eks describe-addon-versions --kubernetes-version <v> --addon-name <name>` before changing the version."""

    vpc_cni: str = Field(
        "v1.20.4-eksbuild.1",
        description="`vpc-cni` (>= v1.18.3: HyperPod's minimum); network policy enforcement is turned on.",
    )
    coredns: str = Field("v1.12.3-eksbuild.1", description="`coredns`.")
    kube_proxy: str = Field(
        "v1.34.0-eksbuild.2", description="`kube-proxy`; its minor version must equal compute.kubernetes_version."
    )
    eks_pod_identity_agent: str = Field("v1.3.9-eksbuild.3", description="`eks-pod-identity-agent` (Karpenter's IAM).")
    aws_fsx_csi_driver: str = Field("v1.7.0-eksbuild.1", description="`aws-fsx-csi-driver` (the FSx volume).")

    @model_validator(mode="after")
    def _versions(self) -> AddonVersionsConfig:
        for field in type(self).model_fields:
            _addon_version(field, getattr(self, field))
        if _addon_version("vpc_cni", self.vpc_cni) < MIN_VPC_CNI:
            raise ValueError(
                f"compute.addons.vpc_cni {self.vpc_cni!r} is older than v1.18.3, the minimum SageMaker "
                f"HyperPod supports; use v1.18.3-eksbuild.1 or later"
            )
        low, high = BROKEN_VPC_CNI
        if low <= _addon_version("vpc_cni", self.vpc_cni) < high:
            raise ValueError(
                f"compute.addons.vpc_cni {self.vpc_cni!r} is in v{'.'.join(map(str, low))}-v1.22.x, which fails "
                f"ENI setup on HyperPod's cross-account subnets (aws/amazon-vpc-cni-k8s commit ad95439 \"fix hyperpod "
                f'cross-account subnet issue", released in v{".".join(map(str, high))}); stay on v1.21.x or use '
                f"v{'.'.join(map(str, high))}-eksbuild.1 or later"
            )
        return self


class SystemNodesConfig(ConfigModel):
    """The managed node group (CPU, private subnets) that runs the controllers: Karpenter, KubeRay, the training
    and MPI operators, CoreDNS."""

    instance_types: tuple[str, ...] = Field(("m7i.xlarge",), description="EC2 instance types (x86_64).")
    min_size: int = Field(2, ge=1, description="Minimum nodes (2 keeps controllers up during a node replacement).")
    desired_size: int = Field(2, ge=1, description="Initial nodes.")
    max_size: int = Field(4, ge=1, description="Maximum nodes.")
    disk_size_gib: int = Field(50, ge=20, le=1000, description="Encrypted gp3 root volume size.")

    @field_validator("instance_types")
    @classmethod
    def _types(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [t for t in v if not re.fullmatch(r"[a-z][a-z0-9-]*\.[a-z0-9-]+", t) or t.startswith("ml.")]
        if not v or bad:
            raise ValueError(
                f"compute.system_nodes.instance_types {list(v)!r} must list EC2 instance types such as "
                f"'m7i.xlarge' (not ml.* SageMaker types)"
            )
        for t in v:
            check_ec2_instance_type("compute.system_nodes.instance_types", t)
            instance_spec("compute.system_nodes.instance_types", t)  # pods on them are sized from the specs
        return v

    @model_validator(mode="after")
    def _sizes(self) -> SystemNodesConfig:
        if not self.min_size <= self.desired_size <= self.max_size:
            raise ValueError(
                f"compute.system_nodes sizes must satisfy min_size <= desired_size <= max_size; got "
                f"{self.min_size} <= {self.desired_size} <= {self.max_size}"
            )
        return self


def covers_public_internet(networks: list[ipaddress.IPv4Network]) -> bool:
    """True when ``networks`` together contain every address outside NON_PUBLIC_BLOCKS (however it is split)."""
    covered = sorted((int(n.network_address), int(n.broadcast_address)) for n in networks)
    holes = sorted((int(b.network_address), int(b.broadcast_address)) for b in NON_PUBLIC_BLOCKS)
    # Walk the address space; every public address must be inside some listed network.
    position = 0
    top = 2**32 - 1
    while position <= top:
        hole = next(((lo, hi) for lo, hi in holes if lo <= position <= hi), None)
        if hole:
            position = hole[1] + 1
            continue
        reach = max((hi for lo, hi in covered if lo <= position <= hi), default=None)
        if reach is None:
            return False
        position = reach + 1
    return True


class InstanceGroupConfig(ConfigModel):
    """One HyperPod instance group. Every node gets label `node-type: hyperpod`, a `gpu-type` label and taint
    `dedicated=hyperpod:NoSchedule`."""

    name: str = Field(description="Instance group name (letters, digits, hyphens; at most 63).")
    instance_type: str = Field(description="A HyperPod `ClusterInstanceType`, e.g. `ml.p5.48xlarge`.")
    count: int = Field(description="Instances. 0 is allowed: the cluster uses continuous provisioning.")
    threads_per_core: Literal[1, 2] = Field(
        1, description="1 disables hyper-threading (usual for training), 2 enables it."
    )
    ebs_volume_size_gb: int = Field(
        500,
        description="Secondary EBS volume per node, mounted at /opt/sagemaker; the "
        "lifecycle script puts containerd and kubelet state there.",
    )
    deep_health_checks: bool | None = Field(
        None,
        description="On-start deep health checks (InstanceStress, InstanceConnectivity). Default: on for GPU "
        "and Trainium groups; they are not offered for CPU groups.",
    )
    training_plan_arn: str | None = Field(None, description="SageMaker training plan reserving this group's capacity.")
    availability_zone: str | None = Field(
        None,
        description="AZ of the group's reserved capacity (e.g. of its training plan), if known. HyperPod "
        "nodes run in the HyperPod subnet, so it must equal network.hyperpod.availability_zone.",
    )
    gpu_type: str | None = Field(
        None,
        description="Value of the `gpu-type` node label. Default: derived from the "
        "instance family (ml.p5 -> h100, ...), `none` for CPU groups.",
    )
    labels: dict[str, str] = Field(default_factory=dict, description="Extra Kubernetes node labels.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _GROUP_NAME.fullmatch(v):
            raise ValueError(
                f"compute.hyperpod.instance_groups name {v!r} is invalid; use 1-63 letters, digits and "
                f"hyphens, starting and ending with a letter or digit, e.g. 'gpu-workers'"
            )
        return v

    @field_validator("instance_type")
    @classmethod
    def _instance_type(cls, v: str) -> str:
        known = hyperpod_instance_types()
        if v not in known:
            close = difflib.get_close_matches(v, known, n=5, cutoff=0.6)
            hint = f"close matches: {', '.join(close)}" if close else f"known types start with: {', '.join(known[:8])}"
            raise ValueError(
                f"compute.hyperpod.instance_groups instance_type {v!r} is not a SageMaker HyperPod "
                f"ClusterInstanceType known to botocore; {hint}"
            )
        instance_spec("compute.hyperpod.instance_groups instance_type", v)  # pods on it are sized from the specs
        return v

    @field_validator("count")
    @classmethod
    def _count(cls, v: int) -> int:
        low, high = hyperpod_instance_count_range()  # the API's ClusterInstanceCount bounds
        if not low <= v <= high:
            raise ValueError(
                f"compute.hyperpod.instance_groups count {v} is outside {low}-{high} (SageMaker "
                f"ClusterInstanceCount); use 0 (scale to zero; continuous provisioning allows it) or a "
                f"positive number of instances"
            )
        return v

    @field_validator("ebs_volume_size_gb")
    @classmethod
    def _ebs(cls, v: int) -> int:
        # The API field (ClusterEbsVolumeConfig.VolumeSizeInGB) is 1-16384: EBS's own maximum.
        if not 1 <= v <= EBS_MAX_GIB:
            raise ValueError(
                f"compute.hyperpod.instance_groups ebs_volume_size_gb {v} is outside 1-{EBS_MAX_GIB} GB "
                f"(the largest EBS volume is 16 TiB)"
            )
        return v

    @field_validator("training_plan_arn")
    @classmethod
    def _plan(cls, v: str | None) -> str | None:
        if v is not None and not _TRAINING_PLAN_ARN.fullmatch(v):
            raise ValueError(
                f"compute.hyperpod.instance_groups training_plan_arn {v!r} is not a training plan ARN; "
                f"expected arn:aws:sagemaker:<region>:<12-digit account>:training-plan/<name>"
            )
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not _LABEL_KEY.fullmatch(key) or not _LABEL_VALUE.fullmatch(value) or len(value) > 63:
                raise ValueError(
                    f"compute.hyperpod.instance_groups labels {key!r}: {value!r} is not a valid "
                    f"Kubernetes label; keys like 'team' or 'example.com/team', values of at most 63 "
                    f"letters, digits, '-', '_' or '.'"
                )
            if key in ("node-type", "gpu-type", "platform/capacity"):
                raise ValueError(
                    f"compute.hyperpod.instance_groups labels must not set {key!r}; the platform sets "
                    f"it (use gpu_type to override gpu-type; platform/capacity is the group name, which "
                    f"Kueue's ResourceFlavor selects nodes by)"
                )
        return v

    @model_validator(mode="after")
    def _accelerated(self) -> InstanceGroupConfig:
        if self.deep_health_checks and not is_accelerated(self.instance_type):
            raise ValueError(
                f"compute.hyperpod.instance_groups {self.name!r}: deep_health_checks is true but "
                f"{self.instance_type} is a CPU type; deep health checks run on GPU/Trainium only, "
                f"remove the key"
            )
        if (
            self.gpu_type is None
            and is_nvidia_gpu(self.instance_type)
            and instance_family(self.instance_type) not in GPU_TYPE_BY_FAMILY
        ):
            raise ValueError(
                f"compute.hyperpod.instance_groups {self.name!r}: no default gpu-type label for "
                f"{self.instance_type}; set gpu_type, e.g. gpu_type: rtx-pro-6000"
            )
        return self

    @property
    def node_gpu_type(self) -> str:
        if self.gpu_type:
            return self.gpu_type
        if is_nvidia_gpu(self.instance_type):
            return GPU_TYPE_BY_FAMILY[instance_family(self.instance_type)]
        m = _NEURON_FAMILY.match(self.instance_type)
        return instance_family(self.instance_type).removeprefix("ml.") if m else "none"

    @property
    def run_deep_health_checks(self) -> bool:
        return is_accelerated(self.instance_type) if self.deep_health_checks is None else self.deep_health_checks


class HyperPodConfig(ConfigModel):
    """The SageMaker HyperPod cluster (EKS orchestrator, continuous provisioning)."""

    instance_groups: tuple[InstanceGroupConfig, ...] = Field(
        (InstanceGroupConfig(name="gpu-workers", instance_type="ml.g5.8xlarge", count=1),),
        description="Instance groups (at least one).",
    )
    node_recovery: Literal["Automatic", "None"] = Field(
        "Automatic", description="Replace or reboot faulty nodes automatically."
    )

    @field_validator("instance_groups")
    @classmethod
    def _groups(cls, v: tuple[InstanceGroupConfig, ...]) -> tuple[InstanceGroupConfig, ...]:
        if not v:
            raise ValueError("compute.hyperpod.instance_groups is empty; list at least one instance group")
        names = [g.name for g in v]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(
                f"compute.hyperpod.instance_groups has duplicate names {dupes!r}; give each group a unique name"
            )
        return v


class KarpenterConfig(ConfigModel):
    """The Karpenter controller (NodePools and EC2NodeClasses come from the k8s charts)."""

    replicas: int = Field(2, ge=1, le=3, description="Controller replicas (leader election; 2 for availability).")


class ComputeConfig(ConfigModel):
    """EKS (native `AWS::EKS::Cluster`, authentication mode API) + SageMaker HyperPod + Karpenter + KubeRay."""

    kubernetes_version: str = Field(
        DEFAULT_KUBERNETES_VERSION,
        description="EKS Kubernetes version; one SageMaker HyperPod supports and the app has a kubectl layer for.",
    )
    admin_role_arns: tuple[str, ...] = Field(
        (), description="IAM role ARNs given cluster-admin access entries (cluster-creator admin is off)."
    )
    public_access_cidrs: tuple[str, ...] = Field(
        (),
        description="Turn on the public API endpoint for these CIDRs only. Default: private endpoint only. "
        "Public blocks only; CIDRs that together cover the whole internet (0.0.0.0/0 "
        "in any split) are rejected.",
    )
    addons: AddonVersionsConfig = Field(
        AddonVersionsConfig(),
        description="Pinned EKS add-on versions (vpc-cni, coredns, kube-proxy, "
        "eks-pod-identity-agent, aws-fsx-csi-driver), each offered for "
        "`kubernetes_version` (`aws eks describe-addon-versions`).",
    )
    system_nodes: SystemNodesConfig = Field(
        SystemNodesConfig(),
        description="Managed CPU node group in the private subnets for the controllers "
        "(Karpenter, KubeRay, training and MPI operators, CoreDNS).",
    )
    hyperpod: HyperPodConfig = Field(
        HyperPodConfig(), description="The SageMaker HyperPod cluster (EKS orchestrator, continuous provisioning)."
    )
    karpenter: KarpenterConfig = Field(
        KarpenterConfig(), description="The Karpenter controller; NodePools and EC2NodeClasses come from `kubernetes`."
    )
    kueue: KueueConfig = Field(
        KueueConfig(),
        description="The Kueue controller (job queueing and gang admission); "
        "flavors and queues come from `kubernetes`.",
    )
    charts: ChartVersionsConfig = Field(
        ChartVersionsConfig(),
        description="Helm chart versions of Karpenter, Kueue, KubeRay and the Secrets Store "
        "CSI driver's AWS provider; set one here to try an upgrade in this "
        'environment first (docs/deploying.md "Upgrading Kubernetes").',
    )
    fsx_claim_namespaces: tuple[str, ...] = Field(
        ("default",),
        description="Namespaces that get PV `fsx-<namespace>` + PVC `fsx-claim` from the compute stack "
        "(team namespaces get theirs from the k8s charts).",
    )

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if v not in KUBECTL_LAYER_VERSIONS:
            why = (
                "SageMaker HyperPod supports " + ", ".join(HYPERPOD_KUBERNETES_VERSIONS)
                if v not in HYPERPOD_KUBERNETES_VERSIONS
                else f"the app pins kubectl layers only for {', '.join(KUBECTL_LAYER_VERSIONS)}"
            )
            raise ValueError(
                f"compute.kubernetes_version {v!r} is not supported ({why}); use "
                f"'{DEFAULT_KUBERNETES_VERSION}' or one of {', '.join(KUBECTL_LAYER_VERSIONS)}"
            )
        return v

    @field_validator("admin_role_arns")
    @classmethod
    def _admins(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [a for a in v if not _ROLE_ARN.fullmatch(a)]
        if bad:
            raise ValueError(
                f"compute.admin_role_arns {bad!r} are not IAM role ARNs; use "
                f"arn:aws:iam::<12-digit account>:role/<name> (no assumed-role or user ARNs)"
            )
        return v

    @field_validator("public_access_cidrs")
    @classmethod
    def _cidrs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        networks = []
        for cidr in v:
            try:
                network = ipaddress.IPv4Network(cidr, strict=True)
            except ValueError as exc:
                raise ValueError(
                    f"compute.public_access_cidrs {cidr!r} is not an IPv4 CIDR ({exc}); write e.g. '203.0.113.0/24'"
                ) from None
            inside = next((b for b in NON_PUBLIC_BLOCKS if network.subnet_of(b)), None)
            if inside is not None:
                raise ValueError(
                    f"compute.public_access_cidrs {cidr!r} lies in the non-public block {inside}; the "
                    f"public endpoint only sees public source addresses, so list your office/VPN egress "
                    f"CIDRs (clients inside the VPC use the private endpoint)"
                )
            networks.append(network)
        if networks and covers_public_internet(networks):
            raise ValueError(
                f"compute.public_access_cidrs {list(v)!r} together cover every public IPv4 address "
                f"(e.g. 0.0.0.0/0, or 0.0.0.0/1 + 128.0.0.0/1), which opens the Kubernetes API to the "
                f"whole internet; list your office/VPN CIDRs instead, or remove the key for a "
                f"private-only endpoint"
            )
        return v

    @field_validator("fsx_claim_namespaces")
    @classmethod
    def _namespaces(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [n for n in v if not _NAMESPACE.fullmatch(n) or len(n) > 63]
        if bad or len(set(v)) != len(v):
            raise ValueError(
                f"compute.fsx_claim_namespaces {list(v)!r} must be unique Kubernetes namespace names "
                f"(lower-case letters, digits, '-')"
            )
        return v

    @model_validator(mode="after")
    def _kube_proxy_matches(self) -> ComputeConfig:
        major, minor, _ = _addon_version("kube_proxy", self.addons.kube_proxy)
        if f"{major}.{minor}" != self.kubernetes_version:
            raise ValueError(
                f"compute.addons.kube_proxy {self.addons.kube_proxy!r} is for Kubernetes {major}.{minor} "
                f"but compute.kubernetes_version is {self.kubernetes_version!r}; pin a "
                f"v{self.kubernetes_version}.x-eksbuild.N kube-proxy (and re-check the other add-ons)"
            )
        return self

    def check_environment(
        self,
        *,
        protected: bool,
        hyperpod_az: str,
        account: str = "",
        region: str = "",
        team_namespaces: tuple[str, ...] = (),
    ) -> None:
        """Rules that need the rest of the environment (called by EnvironmentConfig)."""
        for namespace in self.fsx_claim_namespaces:
            if namespace in team_namespaces:
                raise ValueError(
                    f"compute.fsx_claim_namespaces names {namespace!r}, a team namespace, which gets its "
                    f"own (team-scoped) fsx-claim from the k8s charts; a second claim of that name would "
                    f"collide, so remove it from the list"
                )
            if namespace not in PREEXISTING_NAMESPACES:
                raise ValueError(
                    f"compute.fsx_claim_namespaces names {namespace!r}, a namespace nothing creates (it "
                    f"is not a team in kubernetes.teams nor one of {', '.join(PREEXISTING_NAMESPACES)}), "
                    f"so the claim could never be applied; add a team of that name instead, or remove it"
                )
        for group in self.hyperpod.instance_groups:
            plan = _TRAINING_PLAN_ARN.fullmatch(group.training_plan_arn or "")
            if plan and (plan[3] != account or plan[2] != region):
                raise ValueError(
                    f"compute.hyperpod.instance_groups {group.name!r} training_plan_arn is in account "
                    f"{plan[3]} region {plan[2]}, but the environment deploys to account {account} "
                    f"region {region}; a HyperPod cluster can only use training plans of its own account "
                    f"and region"
                )
        for group in self.hyperpod.instance_groups:
            if group.availability_zone and group.availability_zone != hyperpod_az:
                raise ValueError(
                    f"compute.hyperpod.instance_groups {group.name!r} availability_zone "
                    f"{group.availability_zone!r} differs from network.hyperpod.availability_zone "
                    f"{hyperpod_az!r}; HyperPod nodes launch in the HyperPod subnet, so move the subnet "
                    f"(network.hyperpod.availability_zone) to the AZ of the reserved capacity"
                )
