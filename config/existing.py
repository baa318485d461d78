"""Existing-cluster mode (issue 36, "bring your own HyperPod cluster"): one YAML file per deployment in
``config/existing/<name>.yaml``, selected with ``cdk synth -c existing=<name>``.

The deployment adds the Studio half of the platform (``<Name>-Studio``: domain, user profiles, lifecycle
configurations, per-user/team directories on FSx) to a SageMaker HyperPod cluster, its EKS cluster, VPC and FSx for
Lustre file system that someone else created. Nothing here describes resources the platform creates; every field
names something that already exists and that the deployment imports (docs/studio.md "Studio on an existing HyperPod
cluster" lists exactly what it adds to them).

Formats are those of the service APIs, read offline from the installed botocore's service models (SageMaker
``ClusterNameOrArn``, EKS ``CreateCluster.name``, FSx ``FileSystemId``, ``DNSName``, ``LustreFileSystemMountName``);
EC2 resource IDs are ``<prefix>-`` and 8 or 17 hexadecimal digits (Amazon EC2 User Guide, "Resource IDs").
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.util import find_spec
from typing import Any

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel
from .compute import HYPERPOD_KUBERNETES_VERSIONS
from .identity import DeploymentIdentity, check_deployment_name
from .kubernetes import TeamConfig
from .studio import StudioConfig

_EC2_ID = "{prefix}-[0-9a-f]{{8}}([0-9a-f]{{9}})?"
_ARN = re.compile(
    r"arn:(?P<partition>aws[a-z-]*):(?P<service>[a-z0-9-]+):(?P<region>[a-z0-9-]*):"
    r"(?P<account>[0-9]{12}):(?P<resource>.+)"
)


@lru_cache(maxsize=None)
def api_pattern(service: str, shape: str, member: str | None = None) -> re.Pattern[str]:
    """The ``pattern`` constraint of a shape (or of an operation's input member) in the installed botocore's
    service model, compiled for ``fullmatch``."""
    import botocore.session

    model = botocore.session.get_session().get_service_model(service)
    if member is None:
        meta = model.shape_for(shape).metadata
    else:
        meta = model.operation_model(shape).input_shape.members[member].metadata
    return re.compile(meta["pattern"].removeprefix("^").removesuffix("$"))


def kubectl_layer_versions() -> tuple[str, ...]:
    """Kubernetes minor versions with a kubectl/helm Lambda layer installed (``aws-cdk.lambda-layer-kubectl-vNN`` in
    requirements.txt): the kubectl handler's kubectl must be within one minor version of the cluster (Kubernetes
    version skew policy), so only these clusters can be reached."""
    return tuple(
        v
        for v in HYPERPOD_KUBERNETES_VERSIONS
        if find_spec(f"aws_cdk.lambda_layer_kubectl_v{v.split('.')[1]}") is not None
    )


def _ec2_id(field: str, prefix: str, v: str) -> str:
    if not re.fullmatch(_EC2_ID.format(prefix=prefix), v):
        raise ValueError(
            f"{field} {v!r} is not an EC2 {prefix} ID; use '{prefix}-' and 8 or 17 hexadecimal "
            f"digits, e.g. '{prefix}-0123456789abcdef0'"
        )
    return v


class ExistingEksClusterConfig(ConfigModel):
    """The EKS cluster that orchestrates the existing HyperPod cluster."""

    name: str = Field(description="EKS cluster name (or its ARN), e.g. `hyperpod-eks`.")
    kubernetes_version: str = Field(
        description='The cluster\'s Kubernetes minor version, e.g. `"1.33"`: picks the '
        "kubectl layer and the kubectl Studio installs."
    )
    security_group_id: str = Field(
        description="The cluster security group EKS created (`aws eks describe-cluster "
        "--query cluster.resourcesVpcConfig.clusterSecurityGroupId`): the "
        "kubectl handler runs in it to reach the private API endpoint."
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        arn = _ARN.fullmatch(v)
        if arn and arn["service"] == "eks":
            if not api_pattern("sagemaker", "EksClusterArn").fullmatch(v):
                raise ValueError(
                    f"eks_cluster.name {v!r} is not an EKS cluster ARN "
                    f"(arn:aws:eks:<region>:<account>:cluster/<name>); give the ARN or just the name"
                )
            return v
        if not api_pattern("eks", "CreateCluster", "name").fullmatch(v) or len(v) > 100:
            raise ValueError(
                f"eks_cluster.name {v!r} is not an EKS cluster name (1-100 letters, digits, '-' and '_', "
                f"starting with a letter or digit) or ARN; e.g. 'hyperpod-eks'"
            )
        return v

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        known = kubectl_layer_versions()
        if v not in known:
            raise ValueError(
                f"eks_cluster.kubernetes_version {v!r} has no kubectl layer pinned (kubectl must be "
                f"within one minor version of the cluster); use one of {', '.join(known)}, or add "
                f"aws-cdk.lambda-layer-kubectl-v{v.split('.')[-1]} to requirements.txt"
            )
        return v

    @field_validator("security_group_id")
    @classmethod
    def _group(cls, v: str) -> str:
        return _ec2_id("eks_cluster.security_group_id", "sg", v)

    @property
    def cluster_name(self) -> str:
        """The name, also when the ARN was given."""
        return v.rsplit("/", 1)[1] if (v := self.name).startswith("arn:") else v


class ExistingSubnetConfig(ConfigModel):
    """A private subnet of the existing VPC (Studio apps' and the kubectl handler's network interfaces)."""

    id: str = Field(description="Subnet ID, e.g. `subnet-0123456789abcdef0`.")
    availability_zone: str = Field(description="Its Availability Zone, e.g. `us-east-1a` (synthesis stays offline).")

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return _ec2_id("subnets[].id", "subnet", v)


class ExistingFileSystemConfig(ConfigModel):
    """The existing FSx for Lustre file system (what a static PersistentVolume needs: ID, DNS name, mount name)."""

    id: str = Field(description="File system ID, e.g. `fs-0123456789abcdef0`.")
    dns_name: str = Field(
        description="Its DNS name, `<id>.fsx.<region>.amazonaws.com` (`aws fsx "
        "describe-file-systems --query FileSystems[0].DNSName`)."
    )
    mount_name: str = Field(
        description="Its Lustre mount name (`...LustreConfiguration.MountName`, e.g. `abcdefgh`; `fsx` for SCRATCH_1)."
    )
    storage_capacity_gib: int = Field(
        1200, ge=1, description="Capacity written on the PersistentVolume and its claim (informational for Lustre)."
    )
    access_revision: int = Field(
        1,
        ge=1,
        description="Bump to run the custom resource that adds the Studio group to "
        "the file system's interfaces again (after a scale-up added "
        "interfaces).",
    )

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not api_pattern("fsx", "FileSystemId").fullmatch(v):
            raise ValueError(
                f"file_system.id {v!r} is not an FSx file system ID; use 'fs-' and at least 8 "
                f"lower-case hexadecimal digits, e.g. 'fs-0123456789abcdef0'"
            )
        return v

    @field_validator("dns_name")
    @classmethod
    def _dns(cls, v: str) -> str:
        if not api_pattern("fsx", "DNSName").fullmatch(v) or not 16 <= len(v) <= 275:
            raise ValueError(
                f"file_system.dns_name {v!r} is not an FSx DNS name; use the DNSName of "
                f"`aws fsx describe-file-systems`, e.g. 'fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com'"
            )
        return v

    @field_validator("mount_name")
    @classmethod
    def _mount(cls, v: str) -> str:
        if not api_pattern("fsx", "LustreFileSystemMountName").fullmatch(v):
            raise ValueError(
                f"file_system.mount_name {v!r} is not a Lustre mount name (1-8 letters, digits, '_' or "
                f"'-'); use LustreConfiguration.MountName of `aws fsx describe-file-systems`"
            )
        return v


class ExistingKubernetesConfig(ConfigModel):
    """The teams whose data scientists use Studio: namespaces that exist in the existing EKS cluster."""

    teams: tuple[TeamConfig, ...] = Field(
        min_length=1,
        description="Teams (name = namespace, `posix_uid`/`posix_gid` own their FSx tree `/teams/<name>`); "
        "only name, uid and gid are read in this mode.",
    )
    team_access: bool = Field(
        False,
        description="Also apply, in each team's namespace (which must exist), the platform's Role "
        "`team-member` and its RoleBinding to the group `llmft:team:<team>` that each Studio "
        "user's access entry carries. Default false: the cluster's owner provides that binding.",
    )

    @model_validator(mode="after")
    def _unique(self) -> ExistingKubernetesConfig:
        problems = []
        for attr in ("name", "posix_uid", "posix_gid"):
            seen: dict[Any, str] = {}
            for team in self.teams:
                value = getattr(team, attr)
                if value in seen:
                    problems.append(
                        f"kubernetes.teams[{team.name}].{attr} {value!r} is also the {attr} of team "
                        f"{seen[value]!r}; give each team its own"
                    )
                seen.setdefault(value, team.name)
        if problems:
            raise ValueError("\n  - ".join(problems))
        return self


class ExistingClusterConfig(DeploymentIdentity):
    """A Studio deployment on an existing SageMaker HyperPod cluster (one ``config/existing/<name>.yaml``)."""

    name: str = Field(description="Deployment name; set from the file name, e.g. `byo` (stack `Byo-Studio`).")
    account: str = Field(description="12-digit AWS account ID of the existing cluster.")
    region: str = Field(description="AWS region of the existing cluster, e.g. `us-east-1`.")
    protect_stateful: bool = Field(False, description="Termination protection on the Studio stack.")
    tags: dict[str, str] = Field(
        default_factory=dict, description="Tags applied to every resource the stack creates (not to the imported ones)."
    )
    hyperpod_cluster: str = Field(description="The HyperPod cluster: name or ARN (SageMaker `ClusterNameOrArn`).")
    eks_cluster: ExistingEksClusterConfig
    vpc_id: str = Field(description="The VPC of the cluster and the file system, e.g. `vpc-0123456789abcdef0`.")
    subnets: tuple[ExistingSubnetConfig, ...] = Field(
        min_length=1,
        description="Private subnets of that VPC for Studio apps and the kubectl handler (they need a "
        "route to the EKS API, STS, SageMaker and S3: NAT or VPC endpoints).",
    )
    file_system: ExistingFileSystemConfig
    kubernetes: ExistingKubernetesConfig
    studio: StudioConfig = Field(
        StudioConfig(), description="The Studio domain, as for an environment (config/studio.py)."
    )
    partition_job_node_selector: dict[str, str] = Field(
        default_factory=dict,
        description="nodeSelector of the Job that creates the FSx directories (a node with the "
        "FSx CSI driver's node plugin). Default: any node.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_deployment_name(
            v, "existing-cluster name", f"config/existing/{v}.yaml", "stack and resource names"
        )

    @field_validator("hyperpod_cluster")
    @classmethod
    def _hyperpod(cls, v: str) -> str:
        if not api_pattern("sagemaker", "ClusterNameOrArn").fullmatch(v) or len(v) > 256:
            raise ValueError(
                f"hyperpod_cluster {v!r} is neither a HyperPod cluster name (letters, digits, inner "
                f"hyphens, at most 63) nor its ARN (arn:aws:sagemaker:<region>:<account>:cluster/<12 "
                f"characters>); use `aws sagemaker list-clusters` to find it"
            )
        return v

    @field_validator("vpc_id")
    @classmethod
    def _vpc(cls, v: str) -> str:
        return _ec2_id("vpc_id", "vpc", v)

    @model_validator(mode="after")
    def _in_account_and_region(self) -> ExistingClusterConfig:
        """Every imported resource belongs to this account and region (all problems at once)."""
        problems: list[str] = []
        for field, value in (("hyperpod_cluster", self.hyperpod_cluster), ("eks_cluster.name", self.eks_cluster.name)):
            arn = _ARN.fullmatch(value)
            if arn is None:
                continue
            if arn["account"] != self.account:
                problems.append(
                    f"{field} {value!r} is in account {arn['account']}, not account {self.account}; "
                    f'deploy from the cluster\'s account (set account: "{arn["account"]}") or fix the ARN'
                )
            if arn["region"] != self.region:
                problems.append(
                    f"{field} {value!r} is in region {arn['region']}, not region {self.region}; set "
                    f"region: {arn['region']} or fix the ARN"
                )
        wrong = [
            s.availability_zone
            for s in self.subnets
            if not re.fullmatch(re.escape(self.region) + "[a-z]", s.availability_zone)
        ]
        if wrong:
            problems.append(
                f"subnets[].availability_zone {wrong!r} are not AZs of region {self.region!r}; use names "
                f"like '{self.region}a'"
            )
        ids = [s.id for s in self.subnets]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            problems.append(f"subnets lists {twice!r} more than once; list each subnet once")
        fs = self.file_system
        if not fs.dns_name.startswith(f"{fs.id}.fsx.{self.region}."):
            problems.append(
                f"file_system.dns_name {fs.dns_name!r} is not the DNS name of {fs.id} in {self.region} "
                f"('{fs.id}.fsx.{self.region}.amazonaws.com'); copy DNSName from `aws fsx "
                f"describe-file-systems --file-system-ids {fs.id}`"
            )
        if not self.studio.enabled:
            problems.append(
                "studio.enabled false: an existing-cluster deployment is its Studio stack and nothing "
                "else; remove the key (or the file)"
            )
        try:
            self.studio.check_environment(
                team_names=tuple(t.name for t in self.kubernetes.teams),
                team_gids={t.name: t.posix_gid for t in self.kubernetes.teams},
            )
        except ValueError as exc:
            problems.append(str(exc))
        if problems:
            raise ValueError("\n  - ".join(problems))
        return self

    # ---- what the Studio stack reads (the same names as EnvironmentConfig's) -----------------------------------
    @property
    def cluster_name(self) -> str:
        """Name of the existing EKS cluster."""
        return self.eks_cluster.cluster_name

    @property
    def kubernetes_version(self) -> str:
        return self.eks_cluster.kubernetes_version

    @property
    def availability_zones(self) -> tuple[str, ...]:
        return tuple(sorted({s.availability_zone for s in self.subnets}))
