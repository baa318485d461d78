"""Observability section: logs retention, the CloudWatch Observability add-on, alarm recipients and thresholds.

Every alarm of `<Env>-Observability` takes its threshold from :class:`AlarmThresholds`; ranges are checked here so
a typo (a percentage of 900, an idle window of 0 hours) fails before synthesis with the field, the value and the fix.
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from ._base import ConfigModel, check_log_retention

# Pod Identity for the add-on exists from v3.1.0 (CloudWatch User Guide, "Quick start with the Amazon CloudWatch
# Observability EKS add-on"); Kueue metrics from v2.4.0 ("Enable Kueue metrics").
MIN_ADDON_VERSION = (3, 1, 0)
_ADDON_VERSION = re.compile(r"v(\d+)\.(\d+)\.(\d+)-eksbuild\.\d+")
# A pragmatic address check (local@domain.tld); SNS itself only sends a confirmation mail.
_EMAIL = re.compile(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


class AlarmThresholds(ConfigModel):
    """When each alarm of `<Env>-Observability` fires (docs/observability.md "Alarms and runbooks")."""

    fsx_free_capacity_percent: float = Field(
        10,
        ge=1,
        le=90,
        description="FSx free capacity low: alarm when free storage falls below this share of the "
        "file system (1-90 %).",
    )
    mlflow_5xx_per_5_minutes: int = Field(
        5,
        ge=1,
        le=100000,
        description="MLflow errors: alarm when the ALB and the targets return at least this many "
        "HTTP 5xx in 5 minutes.",
    )
    mlflow_unhealthy_targets: int = Field(
        1,
        ge=1,
        le=100,
        description="MLflow unhealthy: alarm when at least this many MLflow tasks fail the ALB "
        "health check for 5 minutes.",
    )
    aurora_acu_percent: float = Field(
        95,
        ge=50,
        le=100,
        description="Aurora at max ACU: alarm when ACUUtilization (share of max_capacity_acu) "
        "stays at or above this for 15 minutes (50-100 %).",
    )
    hyperpod_node_events_per_hour: int = Field(
        1,
        ge=1,
        le=1000,
        description="HyperPod node replaced or unhealthy: alarm when this many instance Warning/"
        "Error events (replacement, reboot, failed health check) arrive in an hour.",
    )
    reserved_idle_gpus: int = Field(
        1,
        ge=1,
        le=10000,
        description="GPUs idle on reserved capacity: alarm when at least this many HyperPod GPUs "
        "are requested by no pod ...",
    )
    reserved_idle_hours: int = Field(
        4, ge=1, le=72, description="... for this many consecutive hours (1-72): the reservation is paid for nothing."
    )
    gpu_metrics_missing_hours: int = Field(
        2,
        ge=1,
        le=24,
        description="No GPU metrics: alarm when the Prometheus scraper has published no HyperPod GPU "
        "gauge for this many consecutive hours (scraper or Karpenter down, or no HyperPod "
        "GPU node joined); ReservedGpusIdle cannot see anything then.",
    )
    pending_minutes: int = Field(
        60,
        ge=10,
        le=1440,
        description="Jobs pending too long: alarm when a ClusterQueue has had at least one "
        "workload pending (active or inadmissible) in every 5 minutes for this many "
        "minutes (10-1440; rounded up to 5).",
    )
    pods_ready_timeout_evictions_per_hour: int = Field(
        1,
        ge=1,
        le=1000,
        description="PodsReadyTimeout evictions: alarm when Kueue evicts this many workloads of "
        "one ClusterQueue in an hour because their pods were not all ready by "
        "compute.kueue.pods_ready_timeout (no capacity, image pull, unschedulable).",
    )
    failed_pipelines_per_hour: int = Field(
        1,
        ge=1,
        le=1000,
        description="Failed pipelines (pipelines.enabled): alarm when this many Argo Workflows of "
        "one team namespace end Failed or Error in an hour.",
    )
    training_hangs_per_hour: int = Field(
        1,
        ge=1,
        le=1000,
        description="Training hangs (per team namespace): alarm when the hang watchdog of the team's "
        "training pods fires this many times in an hour (one line per hung rank; the pod exits "
        "142 and restarts from its last checkpoint).",
    )
    serving_queued_requests: float = Field(
        1,
        gt=0,
        le=100000,
        description="Served models queueing (per team namespace): alarm when the team's endpoints "
        "have on average at least this many requests waiting in the engines' queues "
        "...",
    )
    serving_queue_minutes: int = Field(
        15,
        ge=5,
        le=1440,
        description="... in every 5 minutes for this many minutes (5-1440; rounded up to 5): the "
        "endpoints are at max_replicas or their quota admits no more replicas, so "
        "requests wait (the engines export no latency CloudWatch keeps).",
    )
    serving_aborted_requests_per_15_minutes: int = Field(
        10,
        ge=1,
        le=1000000,
        description="Served models aborting requests (per team namespace): alarm when the "
        "team's engines abort this many requests in 15 minutes (clients giving up "
        "or cancelling, timeouts).",
    )
    burst_usd_per_hour: float | None = Field(
        None,
        gt=0,
        description="Burst spend: alarm when the running Karpenter GPUs cost more than this per hour "
        "(on-demand list price, config/data/prices.yaml). Default: "
        "cost.max_burst_usd_per_hour.",
    )
    karpenter_errors_per_15_minutes: int = Field(
        5,
        ge=1,
        le=100000,
        description="Karpenter controller errors: alarm when the controllers report this many "
        "reconcile errors in 15 minutes.",
    )
    spot_interruptions_per_hour: int = Field(
        3,
        ge=1,
        le=10000,
        description="Spot interruption rate high: alarm when this many EC2 Spot interruption "
        "warnings arrive in an hour.",
    )


class ObservabilityConfig(ConfigModel):
    """`<Env>-Observability`: CloudWatch Observability add-on, log groups, dashboard, alarms (see
    docs/observability.md)."""

    log_retention_days: int = Field(
        30,
        description="CloudWatch retention of the logs the platform creates: EKS control plane, container logs "
        "(application/host/dataplane/performance), HyperPod cluster logs, Lambda handlers.",
    )
    addon_version: str = Field(
        "v6.4.0-eksbuild.1",
        description="Pinned `amazon-cloudwatch-observability` EKS add-on version (>= v3.1.0 "
        "for Pod Identity); check `aws eks describe-addon-versions "
        "--kubernetes-version <compute.kubernetes_version>` before bumping.",
    )
    alarm_emails: tuple[str, ...] = Field(
        (), description="E-mail addresses subscribed to the alarm topic (each confirms the subscription once)."
    )
    thresholds: AlarmThresholds = Field(AlarmThresholds(), description="When each alarm fires.")

    @field_validator("log_retention_days")
    @classmethod
    def _retention(cls, v: int) -> int:
        try:
            return check_log_retention("observability.log_retention_days", v)
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("addon_version")
    @classmethod
    def _version(cls, v: str) -> str:
        m = _ADDON_VERSION.fullmatch(v)
        if not m:
            raise ValueError(
                f"observability.addon_version {v!r} is not an EKS add-on version; use the form "
                f"'v6.4.0-eksbuild.1' as listed by `aws eks describe-addon-versions`"
            )
        if tuple(int(x) for x in m.groups()) < MIN_ADDON_VERSION:
            raise ValueError(
                f"observability.addon_version {v!r} predates EKS Pod Identity support in the add-on; "
                f"use v{'.'.join(map(str, MIN_ADDON_VERSION))}-eksbuild.1 or later"
            )
        return v

    @field_validator("alarm_emails")
    @classmethod
    def _emails(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [e for e in v if not _EMAIL.fullmatch(e)]
        if bad:
            raise ValueError(
                f"observability.alarm_emails {bad!r} are not e-mail addresses; use the form 'oncall@example.com'"
            )
        dupes = sorted({e.lower() for e in v if [x.lower() for x in v].count(e.lower()) > 1})
        if dupes:
            raise ValueError(f"observability.alarm_emails lists {dupes!r} more than once; keep one of each")
        return v
