"""Studio section: the SageMaker Studio domain (`<Env>-Studio`), its user profiles and their FSx directories.

Data scientists work in JupyterLab or Code Editor directly on the cluster's FSx for Lustre file system, in their
team's tree ``/teams/<team>`` (what the team's jobs see at ``/fsx``; k8s_charts/team_storage.py), with a private
``users/<name>/`` there in ``fsx_mode: per-user``. Each user profile belongs to one team of ``kubernetes.teams``;
its execution role gets an EKS access entry limited to that team's namespace.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel

# SageMaker's UserProfileName pattern (CreateUserProfile API and AWS::SageMaker::UserProfile), at most 63 chars.
USER_PROFILE_NAME = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}")
# STS AssumeRole RoleSessionName pattern (API reference): what aws:userid ends with for a role session.
SESSION_NAME = re.compile(r"[A-Za-z0-9_+=,.@-]{2,64}")
# CustomPosixUserConfig limits of the SageMaker API / CloudFormation schema.
UID_RANGE = (10000, 4000000)
GID_RANGE = (1001, 4000000)
# AppLifecycleManagement.IdleSettings limits (minutes).
IDLE_RANGE = (60, 525600)
FSX_MODES = ("shared", "per-user")
PARTITION_NAMESPACE = "studio-partitions"  # namespace of the Job that creates the partitions (Pod Security baseline)
DEFAULT_PARTITION_IMAGE = (
    "public.ecr.aws/docker/library/busybox:1.37.0"
    "@sha256:9db7b59979c38555a39def84a31fb98b5296952f9e3afd4f6f11f05b07adfab0"
)
_IMAGE = re.compile(r"[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+)?@sha256:[0-9a-f]{64}")


@lru_cache(maxsize=1)
def studio_instance_types() -> tuple[str, ...]:
    """Every ``AppInstanceType`` value the installed botocore's SageMaker model knows (read offline)."""
    from .instances import botocore_enum

    return tuple(t for t in botocore_enum("sagemaker", "AppInstanceType") if t.startswith("ml."))


def _check_uid(field: str, value: int) -> int:
    if value == 0:
        raise ValueError(
            f"{field} 0 is root; Studio apps must not own files as root. Use a uid from "
            f"{UID_RANGE[0]} to {UID_RANGE[1]} (Studio's default is 200001)"
        )
    if not UID_RANGE[0] <= value <= UID_RANGE[1]:
        raise ValueError(
            f"{field} {value} is outside SageMaker's POSIX uid range {UID_RANGE[0]}-{UID_RANGE[1]}; use e.g. 200001"
        )
    return value


class StudioUserProfileConfig(ConfigModel):
    """One Studio user profile: a person, their team (Kubernetes namespace) and optionally their own POSIX uid."""

    name: str = Field(
        description="User profile name: SageMaker's pattern `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}` "
        "(letters, digits, inner hyphens, at most 63). In per-user mode also the name "
        "of the user's private directory `users/<name>/` in the team's FSx tree."
    )
    team: str = Field(description="Name of a team in `kubernetes.teams`; `kubectl` works in that namespace.")
    posix_uid: int | None = Field(
        None,
        description="POSIX uid of this user's apps (and owner of their private "
        "users/<name>/ in per-user mode); default `studio.posix_uid`. Unique "
        "across the domain: at most one profile may go without.",
    )
    sign_in_name: str | None = Field(
        None,
        description="The person's IAM Identity Center user name: only an Identity "
        "Center session of that user (its role session name, the end of "
        "`aws:userid`) may open this profile through the stack's "
        "presigned-URL policy. Default: the profile name.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not USER_PROFILE_NAME.fullmatch(v):
            raise ValueError(
                f"studio.user_profiles[].name {v!r} does not match SageMaker's user profile pattern "
                f"[a-zA-Z0-9](-*[a-zA-Z0-9]){{0,62}}; use letters, digits and inner hyphens only, at most 63 "
                f"characters, e.g. 'jane-doe'"
            )
        return v

    @field_validator("posix_uid")
    @classmethod
    def _uid(cls, v: int | None) -> int | None:
        return None if v is None else _check_uid("studio.user_profiles[].posix_uid", v)

    @field_validator("sign_in_name")
    @classmethod
    def _sign_in(cls, v: str | None) -> str | None:
        # STS RoleSessionName: [\w+=,.@-]{2,64}. No IAM wildcard characters, which would widen the policy's StringLike.
        if v is not None and not SESSION_NAME.fullmatch(v):
            raise ValueError(
                f"studio.user_profiles[].sign_in_name {v!r} is not a role session name (2-64 of letters, "
                f"digits and + = , . @ _ -, no wildcards); use the Identity Center user name, e.g. "
                f"'jane.doe@example.com'"
            )
        return v

    @property
    def session_name(self) -> str:
        """What ``aws:userid`` of this person's Identity Center session ends with (after ':')."""
        return self.sign_in_name or self.name


class StudioConfig(ConfigModel):
    """SageMaker Studio domain in VPC-only mode with the cluster's FSx for Lustre and a kube context."""

    enabled: bool = Field(True, description="Deploy `<Env>-Studio`.")
    fsx_mode: Literal["shared", "per-user"] = Field(
        "shared",
        description="Every user mounts their team's FSx tree `/teams/<team>` (the `/fsx` of the team's "
        "jobs). `per-user` also gives each user a private `users/<name>/` there (mode 0700).",
    )
    posix_uid: int = Field(
        200001,
        description="Default POSIX uid of Studio apps (CustomPosixUserConfig) and owner "
        "of users' private directories; 10000-4000000.",
    )
    posix_gid: int = Field(
        1001,
        description="Domain-default POSIX gid of Studio apps (each user profile gets "
        "its team's `posix_gid` instead); 1001-4000000, no team's gid.",
    )
    idle_timeout_minutes: int = Field(
        120, description="Idle JupyterLab/Code Editor apps shut down after this many minutes (60-525600)."
    )
    max_idle_timeout_minutes: int = Field(
        480, description="Longest idle timeout a user may choose (60-525600, >= idle_timeout_minutes)."
    )
    default_instance_type: str = Field(
        "ml.t3.medium",
        description="Default instance of JupyterLab and Code Editor spaces (a SageMaker AppInstanceType).",
    )
    user_profiles: tuple[StudioUserProfileConfig, ...] = Field(
        (), description="User profiles to create; removing one keeps its FSx directory and S3 data."
    )
    partition_job_image: str = Field(
        DEFAULT_PARTITION_IMAGE,
        description="Image (pinned by digest) of the Kubernetes Job that creates and "
        "chowns the teams' FSx trees and users' directories; needs `sh`, `mkdir`, `chown`, "
        "`chmod`.",
    )
    partition_job_revision: int = Field(
        1,
        ge=1,
        description="Bump to re-run the partition Job although nothing "
        "else changed (it re-runs on every other change).",
    )

    @field_validator("fsx_mode", mode="before")
    @classmethod
    def _mode(cls, v: object) -> object:
        if v not in FSX_MODES:
            raise ValueError(
                f"studio.fsx_mode {v!r} is not a mode; use 'shared' (every user works in the team's "
                f"tree) or 'per-user' (also a private users/<name>/ directory per user)"
            )
        return v

    @field_validator("posix_uid")
    @classmethod
    def _uid(cls, v: int) -> int:
        return _check_uid("studio.posix_uid", v)

    @field_validator("posix_gid")
    @classmethod
    def _gid(cls, v: int) -> int:
        if v == 0:
            raise ValueError(
                f"studio.posix_gid 0 is the root group; use a gid from {GID_RANGE[0]} to "
                f"{GID_RANGE[1]} (Studio's default is 1001)"
            )
        if not GID_RANGE[0] <= v <= GID_RANGE[1]:
            raise ValueError(
                f"studio.posix_gid {v} is outside SageMaker's POSIX gid range {GID_RANGE[0]}-"
                f"{GID_RANGE[1]}; use e.g. 1001"
            )
        return v

    @field_validator("idle_timeout_minutes", "max_idle_timeout_minutes")
    @classmethod
    def _idle(cls, v: int, info) -> int:
        if not IDLE_RANGE[0] <= v <= IDLE_RANGE[1]:
            raise ValueError(
                f"studio.{info.field_name} {v} is outside {IDLE_RANGE[0]}-{IDLE_RANGE[1]} minutes, "
                f"the range SageMaker's idle shutdown accepts"
            )
        return v

    @field_validator("default_instance_type")
    @classmethod
    def _instance_type(cls, v: str) -> str:
        known = studio_instance_types()
        if v not in known:
            close = [t for t in known if t.split(".")[1] == (v.split(".") + ["", ""])[1]][:6]
            hint = f" (same family: {', '.join(close)})" if close else ""
            raise ValueError(
                f"studio.default_instance_type {v!r} is not a SageMaker Studio instance type; use "
                f"one such as 'ml.t3.medium'{hint}"
            )
        return v

    @field_validator("partition_job_image")
    @classmethod
    def _image(cls, v: str) -> str:
        if not _IMAGE.fullmatch(v):
            raise ValueError(
                f"studio.partition_job_image {v!r} must be pinned by digest: "
                f"'<registry>/<repository>:<tag>@sha256:<64 hex>'"
            )
        return v

    @model_validator(mode="after")
    def _consistent(self) -> StudioConfig:
        if self.max_idle_timeout_minutes < self.idle_timeout_minutes:
            raise ValueError(
                f"studio.max_idle_timeout_minutes {self.max_idle_timeout_minutes} is below "
                f"studio.idle_timeout_minutes {self.idle_timeout_minutes}; raise the maximum or lower "
                f"the default"
            )
        seen: dict[str, str] = {}
        for p in self.user_profiles:
            key = p.name.lower()
            if key in seen:
                same = "twice" if seen[key] == p.name else f"twice ({seen[key]!r} and {p.name!r} differ only in case)"
                raise ValueError(
                    f"studio.user_profiles lists {p.name!r} {same}; give each user profile a unique "
                    f"name (it is also their directory name)"
                )
            seen[key] = p.name
        uids: dict[int, str] = {}
        for p in self.user_profiles:
            if p.posix_uid is None:
                continue
            if p.posix_uid == self.posix_uid:
                raise ValueError(
                    f"studio.user_profiles[{p.name}].posix_uid {p.posix_uid} duplicates the default "
                    f"studio.posix_uid; remove it (the default applies) or pick a uid of its own"
                )
            if p.posix_uid in uids:
                raise ValueError(
                    f"studio.user_profiles[{p.name}].posix_uid {p.posix_uid} is already the uid of "
                    f"{uids[p.posix_uid]!r}; two users must not share a uid"
                )
            uids[p.posix_uid] = p.name
        # Domain-wide: one uid per person, whatever the mode and team (issue 21). Files on the shared FSx belong to
        # uids; two profiles with one uid are one identity to the file system (private directories, files a user
        # keeps 0600, the audit trail). Studio's default applies to profiles without posix_uid, so at most one may
        # go without.
        owners: dict[int, str] = {}
        for p in self.user_profiles:
            uid = self.uid_of(p)
            if uid in owners:
                taken = {self.uid_of(q) for q in self.user_profiles} | {self.posix_uid}
                free = next(u for u in range(max(taken) + 1, UID_RANGE[1] + 1) if u not in taken)
                source = "the default studio.posix_uid" if p.posix_uid is None else "its posix_uid"
                raise ValueError(
                    f"studio.user_profiles[{p.name}] has uid {uid} ({source}), which is already the uid of "
                    f"{owners[uid]!r}; uids are unique across every profile of the Studio domain (the "
                    f"shared FSx file system tells users apart by uid only). Give "
                    f"studio.user_profiles[{p.name}] a posix_uid of its own, e.g. posix_uid: {free}"
                )
            owners[uid] = p.name
        return self

    def uid_of(self, profile: StudioUserProfileConfig) -> int:
        return profile.posix_uid if profile.posix_uid is not None else self.posix_uid

    def check_environment(self, *, team_names: tuple[str, ...], team_gids: dict[str, int] | None = None) -> None:
        """Cross-section checks: teams exist; the domain's default gid is no team's gid."""
        if PARTITION_NAMESPACE in team_names:  # the FSx directories Job runs there whether Studio is on or not
            raise ValueError(
                f"kubernetes.teams names {PARTITION_NAMESPACE!r}, the namespace of Studio's partition "
                f"Job; rename the team"
            )
        for p in self.user_profiles:
            if p.team not in team_names:
                raise ValueError(
                    f"studio.user_profiles[{p.name}].team {p.team!r} is not a team in "
                    f"kubernetes.teams ({', '.join(team_names) or 'none'}); use one of them or add "
                    f"the team there"
                )
        if self.fsx_mode == "per-user":
            seen: dict[tuple[str, int], str] = {}
            for p in self.user_profiles:
                key = (p.team, self.uid_of(p))
                if key in seen:
                    raise ValueError(
                        f"studio.user_profiles[{p.name}] has the same uid {key[1]} as {seen[key]!r} in "
                        f"team {p.team!r}; in per-user mode each user's private directory is theirs "
                        f"only by uid, so give one of them a posix_uid of its own"
                    )
                seen[key] = p.name
        for team, gid in (team_gids or {}).items():
            if gid == self.posix_gid:
                raise ValueError(
                    f"kubernetes.teams[{team}].posix_gid {gid} equals studio.posix_gid, the default "
                    f"group of every Studio app; give the team a gid of its own"
                )
