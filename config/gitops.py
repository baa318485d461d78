"""Delivery section and the GitOps repository layout (one place, shared with `llmft render` and the Argo CD objects).

Layout of an environment's Git path ``path`` (``delivery.path``) in ``delivery.repository``:

- ``platform_dir(path)`` = ``<path>/platform``: the platform's manifests, the content of ``dist/<env>/`` as
  ``make gitops`` writes it (Argo CD Application ``platform``);
- ``team_jobs_dir(path, team)`` = ``<path>/teams/<team>``: the rendered manifests of the team's job specs, one file
  per job (:func:`team_job_file`, written by ``llmft render SPEC -o <checkout>/<path>``), synced by the team's own
  Application into the team's namespace only.

``delivery.mode``: ``cdk`` (default: the compute stack applies the platform's manifests at deploy time, as before) or
``argocd`` (Argo CD in the cluster syncs both directories; docs/gitops.md "GitOps with Argo CD").
"""

from __future__ import annotations

import posixpath
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel

PLATFORM_DIR = "platform"
TEAMS_DIR = "teams"


def platform_dir(path: str) -> str:
    """Folder of the platform's manifests (the content of ``dist/<env>/``) under the environment's Git path."""
    return f"{path}/{PLATFORM_DIR}"


def platform_team_dir(path: str, team: str) -> str:
    """Folder of the platform's objects of one team (its namespace and what is labelled ``platform/team: <team>``):
    each is its own Application ``platform-<team>``, so no Application outgrows the capability's 150 resources."""
    return f"{platform_dir(path)}/{TEAMS_DIR}/{team}"


def team_jobs_dir(path: str, team: str) -> str:
    """Folder of ``team``'s rendered job manifests under the environment's Git path."""
    return f"{path}/{TEAMS_DIR}/{team}"


def team_job_file(path: str, team: str, job: str) -> str:
    """The file holding one job's rendered manifests."""
    return f"{team_jobs_dir(path, team)}/{job}.yaml"


# Repository URLs Argo CD clones: https://host/org/repo(.git) or SSH (ssh://git@host/org/repo, git@host:org/repo).
_HTTPS_URL = re.compile(r"https://(?P<userinfo>[^/@]+@)?[A-Za-z0-9.-]+(:[0-9]+)?/[^\s?#]+")
_SSH_URL = re.compile(
    r"(ssh://[A-Za-z0-9._-]+@[A-Za-z0-9.-]+(:[0-9]+)?/[^\s?#]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s?#/][^\s?#]*)"
)
# Secrets Manager: secret ARN (arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 chars>) or name
# (1-512 of letters, digits and /_+=.@-; "Secrets Manager quotas", AWS Secrets Manager User Guide).
SECRET_ARN = re.compile(
    r"arn:aws[a-z-]*:secretsmanager:(?P<region>[a-z0-9-]+):(?P<account>[0-9]{12}):secret:"
    r"[A-Za-z0-9/_+=.@-]+"
)
SECRET_NAME = re.compile(r"[A-Za-z0-9/_+=.@-]{1,512}")
# IAM Identity Center instance ARN (AWS::SSO resource ARNs: arn:aws:sso:::instance/ssoins-<16 hex>).
IDC_INSTANCE_ARN = re.compile(r"arn:aws[a-z-]*:sso:::instance/(sso)?ins-[a-zA-Z0-9-.]{16}")
ARGOCD_ROLES = ("ADMIN", "EDITOR", "VIEWER")
"""ArgoCdRoleMapping.role (EKS API reference, API_ArgoCdRoleMapping; AWS::EKS::Capability ArgoCdRoleMapping)."""


class ArgoCdRoleMappingConfig(ConfigModel):
    """One Argo CD role of the managed capability and the Identity Center groups/users that get it."""

    role: Literal["ADMIN", "EDITOR", "VIEWER"] = Field(
        description="Argo CD role of the capability: `ADMIN`, `EDITOR` or `VIEWER` (EKS API ArgoCdRoleMapping)."
    )
    groups: tuple[str, ...] = Field((), description="IAM Identity Center group IDs (SsoIdentity type `SSO_GROUP`).")
    users: tuple[str, ...] = Field((), description="IAM Identity Center user IDs (SsoIdentity type `SSO_USER`).")

    @model_validator(mode="after")
    def _someone(self) -> ArgoCdRoleMappingConfig:
        if not self.groups and not self.users:
            raise ValueError(
                f"delivery.identity_center.role_mappings: role {self.role} maps no identity; add the "
                f"Identity Center group IDs under `groups` (or user IDs under `users`), or remove it"
            )
        return self


class IdentityCenterConfig(ConfigModel):
    """IAM Identity Center settings the managed Argo CD capability signs users in with."""

    instance_arn: str = Field(
        description="Identity Center instance ARN, `arn:aws:sso:::instance/ssoins-...` "
        "(AWS::EKS::Capability AwsIdc.IdcInstanceArn)."
    )
    region: str | None = Field(
        None,
        description="Region of the Identity Center instance when it differs from the "
        "environment's (AwsIdc.IdcRegion). Default: the environment's.",
    )
    role_mappings: tuple[ArgoCdRoleMappingConfig, ...] = Field(
        description="Which Identity Center groups/users get which Argo CD role (at least one ADMIN mapping)."
    )

    @field_validator("instance_arn")
    @classmethod
    def _arn(cls, v: str) -> str:
        if not IDC_INSTANCE_ARN.fullmatch(v):
            raise ValueError(
                f"delivery.identity_center.instance_arn {v!r} is not an IAM Identity Center instance "
                f"ARN; copy it from `aws sso-admin list-instances` (arn:aws:sso:::instance/ssoins-...)"
            )
        return v

    @model_validator(mode="after")
    def _admin(self) -> IdentityCenterConfig:
        if "ADMIN" not in {m.role for m in self.role_mappings}:
            raise ValueError(
                "delivery.identity_center.role_mappings has no ADMIN mapping, so nobody could manage "
                "Argo CD; add `- {role: ADMIN, groups: [<platform engineers' group ID>]}`"
            )
        return self


class DeliveryConfig(ConfigModel):
    """How the platform's Kubernetes manifests and the teams' jobs reach the cluster."""

    mode: Literal["cdk", "argocd"] = Field(
        "cdk",
        description="`cdk`: the compute stack applies the platform's manifests at each deploy. `argocd`: "
        "Argo CD syncs them (and the teams' jobs) from `repository` (docs/gitops.md \"GitOps with Argo "
        'CD").',
    )
    repository: str | None = Field(
        None,
        description="Git repository Argo CD syncs from: `https://host/org/repo.git` or SSH "
        "(`git@host:org/repo.git`). No credentials in the URL: see `credentials_secret`.",
    )
    revision: str = Field("main", description="Branch, tag or commit Argo CD follows (`targetRevision`).")
    path: str = Field(
        "",
        description="Folder of this environment inside the repository, e.g. `environments/prod`; the platform's "
        "manifests go to `<path>/platform`, team jobs to `<path>/teams/<team>`. Default: "
        "`environments/<env>`.",
    )
    credentials_secret: str | None = Field(
        None,
        description="Secrets Manager secret (ARN or name) holding the repository's credentials as JSON "
        '(`{"username", "password"}` for HTTPS, `{"sshPrivateKey"}` for SSH), synced into '
        "the cluster by the Secrets Store CSI driver. Default: a public repository.",
    )
    argocd: Literal["capability", "helm"] | None = Field(
        None,
        description="Where Argo CD runs: `capability` (managed EKS capability, needs `identity_center`) or "
        "`helm` (upstream argo-cd chart on the system nodes). Default: `capability` when "
        "`identity_center` is set, else `helm`.",
    )
    identity_center: IdentityCenterConfig | None = Field(
        None, description="IAM Identity Center instance and group -> Argo CD role mappings (managed capability)."
    )
    team_repositories: dict[str, str] = Field(
        default_factory=dict,
        description="Team name -> the team's own Git repository (same URL forms as `repository`): the team's "
        "Application reads `<path>/teams/<team>` there and the team's AppProject allows that repository "
        "only, so merging in a team repository can never change the platform or another team. A team "
        "without an entry uses `repository` (then protect `<path>/platform/` with CODEOWNERS: "
        "docs/gitops.md).",
    )
    capability_vpc_endpoints: tuple[str, ...] = Field(
        (),
        description="Interface VPC endpoint IDs (`vpce-...`) of the service "
        "`com.amazonaws.<region>.eks-capabilities`: the managed Argo CD endpoint then resolves to "
        "private addresses (AWS::EKS::Capability ArgoCd.NetworkAccess.VpceIds). Empty: the "
        "capability's UI/API endpoint is public (sign-in still through Identity Center).",
    )

    @field_validator("repository")
    @classmethod
    def _repository(cls, v: str | None) -> str | None:
        if v is None:
            return v
        https = _HTTPS_URL.fullmatch(v)
        if https and https.group("userinfo"):
            raise ValueError(
                f"delivery.repository {v!r} carries credentials in the URL, which would end up in the "
                f"CloudFormation template; remove them and put them in a Secrets Manager secret named "
                f"by delivery.credentials_secret"
            )
        if not https and not _SSH_URL.fullmatch(v):
            raise ValueError(
                f"delivery.repository {v!r} is not a Git URL Argo CD can clone; use "
                f"https://github.com/<org>/<repo>.git or git@github.com:<org>/<repo>.git"
            )
        return v

    @field_validator("team_repositories")
    @classmethod
    def _team_repositories(cls, v: dict[str, str]) -> dict[str, str]:
        for url in v.values():
            cls._repository(url)  # same rules (no credentials, a Git URL)
        return v

    @field_validator("capability_vpc_endpoints")
    @classmethod
    def _vpce(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for e in v:
            if not re.fullmatch(r"vpce-[0-9a-f]{8,17}", e):
                raise ValueError(
                    f"delivery.capability_vpc_endpoints: {e!r} is not a VPC endpoint ID (vpce-...); "
                    f"create an interface endpoint for com.amazonaws.<region>.eks-capabilities"
                )
        return v

    @field_validator("revision")
    @classmethod
    def _revision(cls, v: str) -> str:
        # git check-ref-format rules that matter here: no spaces, no '..', no leading '-' (read as an option).
        if not v or re.search(r"\s|\.\.|[~^:?*\[\\]", v) or v.startswith("-"):
            raise ValueError(f"delivery.revision {v!r} is not a Git branch, tag or commit; use e.g. main")
        return v

    @field_validator("path")
    @classmethod
    def _path(cls, v: str) -> str:
        if v == "":
            return v
        fix = "use a folder relative to the repository root, e.g. environments/prod"
        if v.startswith("/") or re.match(r"[A-Za-z]:", v):
            raise ValueError(f"delivery.path {v!r} is absolute; Argo CD reads paths inside the repository: {fix}")
        if "\\" in v:
            raise ValueError(f"delivery.path {v!r} uses backslashes; {fix}")
        parts = v.rstrip("/").split("/")
        if ".." in parts:
            raise ValueError(f"delivery.path {v!r} leaves the repository ('..'); {fix}")
        if any(p in ("", ".") for p in parts) or posixpath.normpath(v) != v.rstrip("/"):
            raise ValueError(f"delivery.path {v!r} is not a normalized folder (empty or '.' segments); {fix}")
        if not all(re.fullmatch(r"[A-Za-z0-9._-]+", p) for p in parts):
            raise ValueError(
                f"delivery.path {v!r} has characters other than letters, digits, '.', '_', '-' and '/'; {fix}"
            )
        return v.rstrip("/")

    @field_validator("credentials_secret")
    @classmethod
    def _secret(cls, v: str | None) -> str | None:
        if v is not None and not (SECRET_ARN.fullmatch(v) or (SECRET_NAME.fullmatch(v) and not v.startswith("arn:"))):
            raise ValueError(
                f"delivery.credentials_secret {v!r} is neither a Secrets Manager secret ARN nor a "
                f"secret name; use e.g. arn:aws:secretsmanager:<region>:<account>:secret:<name> or "
                f"platform/gitops-repository"
            )
        return v

    @model_validator(mode="after")
    def _argocd_settings(self) -> DeliveryConfig:
        if self.argocd == "capability" and self.identity_center is None:
            raise ValueError(
                "delivery.argocd is capability but delivery.identity_center is not set: the managed "
                "Argo CD capability signs users in through IAM Identity Center (AWS::EKS::Capability "
                "AwsIdc is required); add identity_center.instance_arn and role_mappings, or use "
                "delivery.argocd: helm"
            )
        if self.mode == "argocd" and not self.repository:
            raise ValueError(
                "delivery.mode is argocd but delivery.repository is not set; add the Git repository "
                "Argo CD syncs from, e.g. repository: https://github.com/<org>/platform-gitops.git (or "
                "set delivery.mode: cdk)"
            )
        if self.repository and self.repository in self.team_repositories.values():
            raise ValueError(
                "delivery.team_repositories names the platform repository (delivery.repository) for a "
                "team; a team repository must be the team's own, or leave the team out (it then uses "
                "delivery.repository, guarded by CODEOWNERS)"
            )
        if self.capability_vpc_endpoints and self.install != "capability":
            raise ValueError(
                "delivery.capability_vpc_endpoints is set but Argo CD runs from the Helm chart; its "
                "server has no public endpoint (kubectl port-forward), remove the setting"
            )
        return self

    def team_repository(self, team: str) -> str | None:
        """The repository ``team``'s Application reads: its own, else ``repository``."""
        return self.team_repositories.get(team, self.repository)

    def check_teams(self, teams: tuple[str, ...]) -> None:
        unknown = sorted(set(self.team_repositories) - set(teams))
        if unknown:
            raise ValueError(
                f"delivery.team_repositories names {', '.join(unknown)}, which is no team of "
                f"kubernetes.teams ({', '.join(teams)}); fix the name or remove the entry"
            )

    @property
    def install(self) -> Literal["capability", "helm"]:
        """Where Argo CD runs (the explicit setting, else capability with Identity Center, else helm)."""
        if self.argocd is not None:
            return self.argocd
        return "capability" if self.identity_center is not None else "helm"

    def git_path(self, env: str) -> str:
        """The environment's folder in the repository (``path``, default ``environments/<env>``)."""
        return self.path or f"environments/{env}"

    def check_environment(self, *, account: str, region: str) -> None:
        """A secret ARN must be of this environment's account and region (the cluster reads it there)."""
        m = SECRET_ARN.fullmatch(self.credentials_secret or "")
        if m and (m.group("region"), m.group("account")) != (region, account):
            raise ValueError(
                f"delivery.credentials_secret {self.credentials_secret!r} is in account "
                f"{m.group('account')} region {m.group('region')}, but the cluster runs in account "
                f"{account} region {region}; replicate the secret there and use that ARN"
            )
