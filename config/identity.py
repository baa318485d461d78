"""Where a deployment goes and how it is tagged: the account, region and tag checks every configuration model shares
(an environment, config/<name>.yaml, and an existing-cluster deployment, config/existing/<name>.yaml)."""

from __future__ import annotations

import re

from pydantic import field_validator

from ._base import ConfigModel
from .regions import HEALTH_MONITORING_AGENT_ACCOUNTS

DEPLOYMENT_NAME = re.compile(r"[a-z]([a-z0-9-]{0,14}[a-z0-9])?")
"""An environment's or existing-cluster deployment's name (its file name): it becomes part of stack, bucket and
cluster names."""


def check_deployment_name(v: str, what: str, path: str, becomes: str) -> str:
    """``v`` if it is a :data:`DEPLOYMENT_NAME`, else a message naming ``what`` (e.g. 'environment name'), the file
    ``path`` it comes from and what it ``becomes``."""
    if not DEPLOYMENT_NAME.fullmatch(v):
        raise ValueError(
            f"{what} {v!r} (the file name {path}) must be 1-16 lower-case ASCII letters, digits and '-', "
            f"starting with a letter and not ending with '-'; it becomes part of {becomes}"
        )
    return v


def check_account(v: str, field: str = "account") -> str:
    # [0-9], not \d: \d also matches non-ASCII digits such as '١٢٣'.
    if not re.fullmatch(r"[0-9]{12}", v):
        raise ValueError(
            f"{field} {v!r} is not a 12-digit AWS account ID; quote it in YAML, e.g. {field}: "
            f'"123456789012" (ASCII digits 0-9 only)'
        )
    return v


def check_region_name(v: str, field: str = "region") -> str:
    """An AWS region name (any region: the organisation's automation and logging accounts need no HyperPod)."""
    if not re.fullmatch(r"[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]", v):
        raise ValueError(f"{field} {v!r} is not an AWS region name; use e.g. 'us-east-1'")
    return v


def check_region(v: str, field: str = "region") -> str:
    """A region a platform deployment can run in (it has HyperPod's health-monitoring agent image)."""
    check_region_name(v, field)
    if v not in HEALTH_MONITORING_AGENT_ACCOUNTS:
        raise ValueError(
            f"{field} {v!r} has no SageMaker HyperPod health-monitoring agent image, which every "
            f"HyperPod EKS cluster runs; use one of "
            f"{', '.join(sorted(HEALTH_MONITORING_AGENT_ACCOUNTS))} "
            f"(or add the region's image account to config/regions.py, with its source)"
        )
    return v


def check_tags(v: dict[str, str], field: str = "tags") -> dict[str, str]:
    # AWS tag rules ("Tag naming limits and requirements", AWS General Reference, Tagging AWS resources):
    # keys 1-128 and values 0-256 Unicode characters, letters/digits/spaces and + - = . _ : / @, and the
    # `aws:` prefix is reserved for AWS. CloudFormation propagates stack tags to every resource.
    allowed = re.compile(r"[\w\s+\-=.:/@]*")
    if len(v) > 50:
        raise ValueError(f"{field} has {len(v)} entries; AWS allows at most 50 user tags per resource")
    for key, value in v.items():
        if not 1 <= len(key) <= 128 or not allowed.fullmatch(key):
            raise ValueError(
                f"{field} key {key!r} is not a valid AWS tag key; use 1-128 letters, digits, spaces and + - = . _ : / @"
            )
        if key.lower().startswith("aws:"):
            raise ValueError(
                f"{field} key {key!r} starts with 'aws:', a prefix reserved for AWS; rename it, e.g. "
                f"{key[4:] or 'project'!r}"
            )
        if len(value) > 256 or not allowed.fullmatch(value):
            raise ValueError(
                f"{field} {key!r}: value of {len(value)} characters is not a valid AWS tag value; use "
                f"at most 256 letters, digits, spaces and + - = . _ : / @"
            )
    return v


class DeploymentIdentity(ConfigModel):
    """The ``account``, ``region`` and ``tags`` checks and the derived stack/resource name prefixes of every
    deployment model (each declares ``name``, ``account``, ``region`` and ``tags`` itself, in its own order and with
    its own descriptions; these validators and properties apply to them)."""

    @field_validator("account", check_fields=False)
    @classmethod
    def _account(cls, v: str) -> str:
        return check_account(v)

    @field_validator("region", check_fields=False)
    @classmethod
    def _region(cls, v: str) -> str:
        return check_region(v)

    @field_validator("tags", check_fields=False)
    @classmethod
    def _tags(cls, v: dict[str, str]) -> dict[str, str]:
        return check_tags(v)

    # ---- derived names (one place, so every stack of every kind of deployment agrees) --------------------------
    @property
    def stack_prefix(self) -> str:
        """`dev` -> `Dev`: stacks are named `<Name>-Network`, `<Name>-Studio`, ..."""
        name: str = self.name  # type: ignore[attr-defined]  (every deployment model declares `name`)
        return name[:1].upper() + name[1:]

    @property
    def resource_prefix(self) -> str:
        """Lower-case prefix for physical names that must be unique per account/region."""
        return f"llmft-{self.name}"  # type: ignore[attr-defined]
