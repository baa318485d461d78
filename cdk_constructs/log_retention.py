"""Map a retention in days (as written in config) to CloudWatch Logs' ``RetentionDays`` enum."""

from __future__ import annotations

from aws_cdk import aws_logs as logs

_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653)
_BY_DAYS = dict(zip(_DAYS, [m for m in logs.RetentionDays if m is not logs.RetentionDays.INFINITE]))


def retention(days: int) -> logs.RetentionDays:
    """``14`` -> ``RetentionDays.TWO_WEEKS``. Raises ``ValueError`` for a value CloudWatch Logs does not offer."""
    try:
        return _BY_DAYS[days]
    except KeyError:
        raise ValueError(f"{days} is not a CloudWatch Logs retention; use one of {', '.join(map(str, _DAYS))}") from None
