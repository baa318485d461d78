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
