"""Map a retention in days (as written in config) to CloudWatch Logs' ``RetentionDays`` enum."""

from __future__ import annotations

from aws_cdk import aws_logs as logs

from config._base import LOG_RETENTION_DAYS as _DAYS

# RetentionDays lists its members in ascending order, like _DAYS (INFINITE aside).
_BY_DAYS = dict(zip(_DAYS, [m for m in logs.RetentionDays if m is not logs.RetentionDays.INFINITE], strict=True))


def retention(days: int) -> logs.RetentionDays:
    """``14`` -> ``RetentionDays.TWO_WEEKS``. Raises ``ValueError`` for a value CloudWatch Logs does not offer."""
    try:
        return _BY_DAYS[days]
    except KeyError:
        raise ValueError(
            f"{days} is not a CloudWatch Logs retention; use one of {', '.join(map(str, _DAYS))}"
        ) from None
