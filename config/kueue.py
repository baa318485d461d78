"""The Kueue controller's settings (``compute.kueue``). The queues and flavors it admits jobs to are in
queueing.py, which reads compute and kubernetes; this module reads neither, so compute.py can hold it."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from ._base import ConfigModel

_DURATION = re.compile(r"([0-9]+(s|m|h))+")


def validate_duration(field: str, value: str) -> str:
    if not _DURATION.fullmatch(value):
        raise ValueError(
            f"{field} {value!r} is not a duration; use whole hours, minutes and seconds such as '20m' or '1h30m'"
        )
    return value


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

    @field_validator("pods_ready_timeout", "pods_ready_recovery_timeout")
    @classmethod
    def _durations(cls, v: str, info) -> str:
        return validate_duration(f"compute.kueue.{info.field_name}", v)
