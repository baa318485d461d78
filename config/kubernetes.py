"""Kubernetes section: ML teams (namespaces), job tiers and their priority classes.

Teams are what an ML engineer belongs to: each becomes a namespace with a GPU quota, the job tiers it may use
(and through them the PriorityClasses its pods may request), and an S3 prefix of the data bucket that its
service account (EKS Pod Identity) may read and write. SageMaker Studio user profiles name a team here.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel

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
RESERVED_NAMESPACES: tuple[str, ...] = ("default", "karpenter", "kubeflow", "ray-system", "aws-hyperpod",
                                        "amazon-cloudwatch", "cert-manager")

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_S3_PREFIX = re.compile(r"[A-Za-z0-9!_.*'()-]+(/[A-Za-z0-9!_.*'()-]+)*/")


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

    name: str = Field(description="Team name, used as the namespace name (DNS-1123 label; not `default`, "
                                  "`kube-*` or a platform namespace).")
    gpu_quota: int = Field(8, ge=0, description="Most GPUs (`requests.nvidia.com/gpu`) the team's pods may "
                                                "request at once, across all tiers.")
    allowed_tiers: tuple[Tier, ...] = Field(
        ("development", "research", "experiment"),
        description="Job tiers the team may submit: production, development, research, experiment. The "
                    "namespace's ResourceQuota lets pods use only these tiers' PriorityClasses.")
    s3_prefix: str | None = Field(
        None, description="Prefix of the data bucket the team's service account may read/write; default "
                          "`teams/<name>/`. Must end with '/' and must not overlap another team's prefix.")

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
                raise ValueError(f"kubernetes.teams[].allowed_tiers {unknown!r} are not job tiers; use any of "
                                 f"{', '.join(TIERS)}")
            if not v:
                raise ValueError("kubernetes.teams[].allowed_tiers is empty; allow at least one of "
                                 f"{', '.join(TIERS)}")
            if len(set(v)) != len(v):
                raise ValueError(f"kubernetes.teams[].allowed_tiers {list(v)!r} lists a tier twice; list each once")
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


class KubernetesConfig(ConfigModel):
    """What runs inside the EKS cluster: ML teams and their job tiers."""

    teams: tuple[TeamConfig, ...] = Field(
        (TeamConfig(name="ml-research"),),
        description="ML teams; each becomes a namespace with quotas and an IAM role (Pod Identity).")

    @model_validator(mode="after")
    def _unique_teams(self) -> KubernetesConfig:
        names = [t.name for t in self.teams]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"kubernetes.teams names {dupes!r} appear more than once; give each team a unique "
                             f"name")
        for a in self.teams:
            for b in self.teams:
                if a is not b and b.data_prefix.startswith(a.data_prefix):
                    raise ValueError(
                        f"kubernetes.teams[{b.name}].s3_prefix {b.data_prefix!r} lies inside team {a.name!r}'s "
                        f"prefix {a.data_prefix!r}, so {a.name!r} could read {b.name!r}'s data; give each team "
                        f"a separate prefix such as 'teams/{b.name}/'"
                    )
        return self

    def team(self, name: str) -> TeamConfig:
        """The team called ``name``, or a ValueError listing the known teams."""
        for t in self.teams:
            if t.name == name:
                return t
        raise ValueError(f"unknown team {name!r}; known teams (kubernetes.teams): "
                         f"{', '.join(t.name for t in self.teams)}")
