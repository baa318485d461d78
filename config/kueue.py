"""The Kueue controller's settings (``compute.kueue``). The queues and flavors it admits jobs to are in
queueing.py, which reads compute and kubernetes; this module reads neither, so compute.py can hold it."""

from __future__ import annotations

import re

from pydantic import Field, field_validator, model_validator

from ._base import ConfigModel

_DURATION = re.compile(r"([0-9]+(s|m|h))+")


def validate_duration(field: str, value: str) -> str:
    if not _DURATION.fullmatch(value):
        raise ValueError(
            f"{field} {value!r} is not a duration; use whole hours, minutes and seconds such as '20m' or '1h30m'"
        )
    return value


def duration_seconds(value: str) -> int:
    """Seconds of a duration :func:`validate_duration` accepts ('1h30m' -> 5400)."""
    unit = {"s": 1, "m": 60, "h": 3600}
    return sum(int(n) * unit[u] for n, u in re.findall(r"([0-9]+)(s|m|h)", value))


class KueueConfig(ConfigModel):
    """The Kueue controller (chart values and its Configuration); queues and flavors come from `kubernetes`."""

    replicas: int = Field(
        2,
        ge=1,
        le=3,
        description="Controller replicas (leader election; 2 keeps admission and "
        "its webhooks up through a node replacement).",
    )
    pods_ready_timeout: str = Field(
        "20m",
        description="waitForPodsReady.timeout: an admitted job whose pods are not all running and ready by "
        "then is evicted and requeued (all-or-nothing). Covers a Karpenter node launch and a "
        "multi-GB image pull.",
    )
    pods_ready_recovery_timeout: str = Field(
        "45m",
        description="waitForPodsReady.recoveryTimeout: how long a running job may miss a pod before it is "
        "evicted and requeued; longer than a HyperPod node replacement, so production jobs are "
        "auto-resumed by HyperPod rather than requeued.",
    )
    requeue_limit: int | None = Field(
        None,
        ge=1,
        description="requeuingStrategy.backoffLimitCount: requeues after pod-readiness timeouts before "
        "the job is deactivated. None: requeue forever (backoff 60 s doubling to 1 h).",
    )

    development_fallback_after: str | None = Field(
        "10m",
        description="How long an admitted development job may wait on reserved (HyperPod) capacity for its pods "
        "to become ready before the platform's fallback controller moves it to the tier's burst flavors "
        "(docs/queueing.md, case 2). Below pods_ready_timeout, so it acts before Kueue's own eviction. The "
        "controller's pod every minute keeps one CPU-pool node up (`make cost` counts it as idle cost); None: no "
        "controller (no idle cost; a job stuck on reserved capacity waits for pods_ready_timeout).",
    )

    @field_validator("pods_ready_timeout", "pods_ready_recovery_timeout", "development_fallback_after")
    @classmethod
    def _durations(cls, v: str | None, info) -> str | None:
        return v if v is None else validate_duration(f"compute.kueue.{info.field_name}", v)

    @model_validator(mode="after")
    def _fallback_before_eviction(self) -> KueueConfig:
        if self.development_fallback_after is None:
            return self
        after, timeout = duration_seconds(self.development_fallback_after), duration_seconds(self.pods_ready_timeout)
        if not 0 < after < timeout:
            raise ValueError(
                f"compute.kueue.development_fallback_after {self.development_fallback_after!r} must be above zero "
                f"and below compute.kueue.pods_ready_timeout {self.pods_ready_timeout!r}: at the timeout Kueue "
                f"evicts the job and requeues it on reserved capacity again, so the fallback must act first; "
                f"use e.g. '{max(timeout // 2 // 60, 1)}m'"
            )
        return self
