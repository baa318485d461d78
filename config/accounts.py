"""Organisation-level accounts: the automation account (the delivery pipeline), the central logging account, the
pipeline's source and waves. One file, ``config/organization/accounts.yaml``, validated into :class:`OrganizationConfig`
(``config.load_organization``/``config.parse_organization``; the environments are ``config.EnvironmentConfig``).

Why a subfolder: every ``config/*.yaml`` is an environment (``config.known_environments``, which tests/conftest.py
turns into the environments every check runs on); this file describes no environment, so it lives one level down,
where that glob never looks, instead of teaching ``known_environments`` an exception list.

The file is optional: ``cdk synth -c env=<name>`` never reads it (an environment synthesizes alone, with no accounts
configured); ``cdk synth -c delivery=pipeline`` (``make synth-delivery``) does, and refuses to start without it.
Each environment's *workload* account is the ``account`` of its own ``config/<env>.yaml``; the waves name environments,
and the cross-checks below (:func:`check_organization`) compare those accounts with the organisation's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ._base import ConfigError, ConfigModel
from .identity import check_account, check_region_name

ORGANIZATION_FILE = Path(__file__).resolve().parent / "organization" / "accounts.yaml"
EXAMPLE_FILE = ORGANIZATION_FILE.with_name("accounts.example.yaml")


def _check_account(field: str, v: str) -> str:
    return check_account(v, field)


def _check_region(field: str, v: str) -> str:
    return check_region_name(v, field)


class AutomationAccountConfig(ConfigModel):
    """The automation account: it holds the delivery pipeline (`Delivery-Pipeline`) and nothing else."""

    account: str = Field(description="12-digit ID of the automation account (the pipeline's home).")
    region: str = Field(description="Region of the pipeline, e.g. `us-east-1`.")

    @field_validator("account")
    @classmethod
    def _account(cls, v: str) -> str:
        return _check_account("automation.account", v)

    @field_validator("region")
    @classmethod
    def _region(cls, v: str) -> str:
        return _check_region("automation.region", v)


class LogArchiveConfig(ConfigModel):
    """The log archive bucket in the logging account (CloudTrail and VPC flow logs of every workload account)."""

    retention_days: int = Field(
        2557, ge=1, le=36500, description="Days an object is kept before it expires (default 7 years)."
    )
    object_lock_mode: Literal["GOVERNANCE", "COMPLIANCE"] | None = Field(
        "GOVERNANCE",
        description="S3 Object Lock default retention mode (`null`: no object lock). COMPLIANCE cannot "
        "be shortened by anyone, the root user included, until it expires.",
    )
    object_lock_days: int = Field(
        365, ge=1, le=36500, description="Default object-lock retention in days; at most `retention_days`."
    )
    kms_key_alias: str = Field(
        "alias/llmft-log-archive",
        description="Alias of the customer-managed KMS key (rotated yearly) that encrypts the archive.",
    )

    @model_validator(mode="after")
    def _lock_within_retention(self) -> LogArchiveConfig:
        if self.object_lock_mode and self.object_lock_days > self.retention_days:
            raise ValueError(
                f"logging.archive.object_lock_days {self.object_lock_days} exceeds "
                f"logging.archive.retention_days {self.retention_days}: a locked object cannot expire; "
                f"lower object_lock_days or raise retention_days"
            )
        return self

    @field_validator("kms_key_alias")
    @classmethod
    def _alias(cls, v: str) -> str:
        if not re.fullmatch(r"alias/[A-Za-z0-9/_-]{1,250}", v) or v.startswith("alias/aws/"):
            raise ValueError(
                f"logging.archive.kms_key_alias {v!r} is not a KMS alias name; use 'alias/<name>' "
                f"(letters, digits, / _ -; not 'alias/aws/', reserved for AWS managed keys)"
            )
        return v


class LoggingAccountConfig(ConfigModel):
    """The central logging account: the CloudWatch cross-account observability sink, the cross-environment dashboard,
    one alarm topic for every environment and the log archive bucket (`Delivery-Logging`)."""

    account: str = Field(description="12-digit ID of the logging (monitoring) account.")
    region: str = Field(
        description="Region of the sink, topic and archive; every environment in the waves must be in "
        "this region (an OAM link joins a sink of its own region)."
    )
    sink_arn: str | None = Field(
        None,
        description="ARN of the OAM sink the first deploy of `Delivery-Logging` prints (output `SinkArn`); "
        "until it is set the workload accounts create no OAM link (docs/deploying.md, first run).",
    )
    alarm_emails: tuple[str, ...] = Field((), description="Addresses subscribed to the central alarm topic.")
    archive: LogArchiveConfig = Field(LogArchiveConfig(), description="The log archive bucket.")

    @field_validator("account")
    @classmethod
    def _account(cls, v: str) -> str:
        return _check_account("logging.account", v)

    @field_validator("region")
    @classmethod
    def _region(cls, v: str) -> str:
        return _check_region("logging.region", v)

    @field_validator("alarm_emails")
    @classmethod
    def _emails(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [a for a in v if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", a)]
        if bad:
            raise ValueError(f"logging.alarm_emails {bad!r} are not e-mail addresses; use e.g. 'oncall@example.com'")
        return v

    @model_validator(mode="after")
    def _sink_in_account(self) -> LoggingAccountConfig:
        if self.sink_arn is not None:
            pattern = rf"arn:aws[a-z-]*:oam:{re.escape(self.region)}:{self.account}:sink/[A-Za-z0-9-]+"
            if not re.fullmatch(pattern, self.sink_arn):
                raise ValueError(
                    f"logging.sink_arn {self.sink_arn!r} is not an OAM sink of account {self.account} in "
                    f"{self.region}; copy the `SinkArn` output of the Delivery-Logging stack, like "
                    f"arn:aws:oam:{self.region}:{self.account}:sink/<id>, or remove the key"
                )
        return self


class SourceConfig(ConfigModel):
    """Where the pipeline reads the repository: a CodeConnections connection (GitHub, GitLab, Bitbucket)."""

    repository: str = Field(description="`owner/name` of the repository.")
    branch: str = Field("main", description="Branch the pipeline delivers.")
    connection_arn: str = Field(
        description="ARN of the CodeConnections connection in the automation account "
        "(created and authorised once in the console)."
    )

    @field_validator("repository")
    @classmethod
    def _repository(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+", v):
            raise ValueError(f"source.repository {v!r} is not 'owner/name'")
        return v

    @field_validator("connection_arn")
    @classmethod
    def _connection(cls, v: str) -> str:
        if not re.fullmatch(
            r"arn:aws[a-z-]*:(codeconnections|codestar-connections):[a-z0-9-]+:[0-9]{12}:"
            r"connection/[A-Za-z0-9-]+",
            v,
        ):
            raise ValueError(
                f"source.connection_arn {v!r} is not a connection ARN; copy it from the console "
                f"(Developer Tools > Settings > Connections), like arn:aws:codeconnections:us-east-1:"
                f"111111111111:connection/<id>"
            )
        return v

    @field_validator("branch")
    @classmethod
    def _branch(cls, v: str) -> str:
        if not v or v.startswith(("-", "/")) or re.search(r"\s|\.\.|[~^:?*\[\\]", v):
            raise ValueError(f"source.branch {v!r} is not a valid git branch name")
        return v


class WaveConfig(ConfigModel):
    """One wave of the pipeline: environments deployed in parallel, after the previous wave succeeded."""

    name: str = Field(description="Wave name, e.g. `dev`; a pipeline stage name.")
    environments: tuple[str, ...] = Field(description="Environments (config/<name>.yaml) deployed in this wave.")
    approval: bool = Field(
        False,
        description="A manual approval before the wave. Forced on for a wave with a "
        "production environment (`protect_stateful: true`).",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", v):
            raise ValueError(f"waves[].name {v!r} must be 1-64 letters, digits, '-' or '_' (a CodePipeline stage name)")
        return v

    @field_validator("environments")
    @classmethod
    def _environments(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("waves[].environments is empty; name at least one environment or remove the wave")
        return v


class OrganizationConfig(ConfigModel):
    """The accounts of the organisation and the delivery pipeline's waves (``config/organization/accounts.yaml``)."""

    automation: AutomationAccountConfig
    logging: LoggingAccountConfig
    source: SourceConfig
    waves: tuple[WaveConfig, ...] = Field(description="Waves in delivery order, e.g. `dev` then `prod`.")
    allow_shared_production_account: bool = Field(
        False,
        description="Let a production environment (`protect_stateful: true`) share its workload account "
        "with a non-production one; off by default.",
    )
    cloudformation_execution_policy: str = Field(
        "LlmftCdkExecution",
        description="Name of the customer-managed IAM policy each workload account's CDK "
        "bootstrap passes to `--cloudformation-execution-policies` "
        "(docs/deploying.md).",
    )

    @model_validator(mode="after")
    def _waves(self) -> OrganizationConfig:
        problems: list[str] = []
        names = [w.name for w in self.waves]
        for dup in sorted({n for n in names if names.count(n) > 1}):
            problems.append(f"waves: name {dup!r} is used twice; give every wave its own name")
        seen: dict[str, int] = {}
        for i, wave in enumerate(self.waves):
            for env in wave.environments:
                if env in seen:
                    problems.append(
                        f"waves[{i}].environments: {env!r} is already in waves[{seen[env]}]; deploy an "
                        f"environment in one wave only"
                    )
                seen.setdefault(env, i)
        if not self.waves:
            problems.append("waves is empty; list at least one wave, e.g. [{name: dev, environments: [dev]}]")
        parts = self.source.connection_arn.split(":")
        if parts[4] != self.automation.account or parts[3] != self.automation.region:
            problems.append(
                f"source.connection_arn {self.source.connection_arn!r} is in account {parts[4]} region "
                f"{parts[3]}; the pipeline uses a connection of its own account and region "
                f"({self.automation.account}, {self.automation.region}): create one there"
            )
        if self.automation.account == self.logging.account:
            problems.append(
                f"automation.account {self.automation.account} is also logging.account; the pipeline "
                f"and the log archive belong in separate accounts"
            )
        if problems:
            raise ValueError("\n  - ".join(problems))
        return self

    @property
    def environment_names(self) -> tuple[str, ...]:
        return tuple(e for w in self.waves for e in w.environments)


def check_organization(
    org: OrganizationConfig, environments: Mapping[str, Any], *, source: str = "config/organization/accounts.yaml"
) -> None:
    """The checks that need the environments' own files: names exist, the workload accounts are apart from the
    logging and automation accounts, production apart from the rest, one region with the sink. Raises one
    :class:`ConfigError` listing every problem."""
    problems: list[str] = []
    for i, wave in enumerate(org.waves):
        for j, name in enumerate(wave.environments):
            env = environments.get(name)
            where = f"waves[{i}].environments[{j}]"
            if env is None:
                problems.append(
                    f"{where}: unknown environment {name!r}; known: {', '.join(sorted(environments))} "
                    f"(create config/{name}.yaml or fix the name)"
                )
                continue
            if env.account == org.logging.account:
                problems.append(
                    f"{where}: environment {name!r} deploys to account {env.account} (config/{name}.yaml "
                    f"account), which is logging.account; give the environment its own workload account"
                )
            if env.account == org.automation.account:
                problems.append(
                    f"{where}: environment {name!r} deploys to account {env.account} (config/{name}.yaml "
                    f"account), which is automation.account; the pipeline's account deploys nowhere else "
                    f"than itself"
                )
            if env.region != org.logging.region:
                problems.append(
                    f"{where}: environment {name!r} is in {env.region} (config/{name}.yaml region), the "
                    f"logging sink in {org.logging.region}; CloudWatch cross-account observability links "
                    f"an account to a sink of the same region: set logging.region to {env.region} or move "
                    f"the environment"
                )
    in_waves = [environments[n] for n in org.environment_names if n in environments]
    if not org.allow_shared_production_account:
        for prod in (e for e in in_waves if e.protect_stateful):
            for other in (e for e in in_waves if not e.protect_stateful and e.account == prod.account):
                problems.append(
                    f"account: production environment {prod.name!r} (protect_stateful: true) and "
                    f"{other.name!r} both deploy to account {prod.account} (config/{prod.name}.yaml and "
                    f"config/{other.name}.yaml account); give production its own account, or set "
                    f"allow_shared_production_account: true in {source}"
                )
    if problems:
        raise ConfigError(f"invalid configuration {source}:\n  - " + "\n  - ".join(problems))


def approval_before(wave: WaveConfig, environments: Mapping[str, Any]) -> bool:
    """Whether the pipeline waits for a manual approval before ``wave``: asked for, or a production environment in
    it."""
    return wave.approval or any(environments[e].protect_stateful for e in wave.environments)
