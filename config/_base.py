"""Shared pieces of the configuration schema.

Every model is frozen (configuration is a value, not state) and forbids unknown keys, so a
typo in a YAML file fails loudly instead of silently falling back to a default.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ConfigModel(BaseModel):
    """Base class for every configuration section."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)


class ConfigError(ValueError):
    """Configuration is invalid. The message names the field, the value and the fix."""


# CloudWatch Logs accepts only these retention values (days); cdk_constructs.log_retention maps them to the enum.
LOG_RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557,
                      2922, 3288, 3653)


def check_log_retention(field: str, days: int) -> int:
    """``days`` if CloudWatch Logs offers it as a retention, else a ValueError naming ``field``."""
    if days not in LOG_RETENTION_DAYS:
        raise ValueError(f"{field} {days} is not a CloudWatch Logs retention; use one of "
                         f"{', '.join(map(str, LOG_RETENTION_DAYS))}")
    return days
