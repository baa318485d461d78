"""Shared pieces of the configuration schema.

Every model is frozen (configuration is a value, not state) and forbids unknown keys, so a
typo in a YAML file fails loudly instead of silently falling back to a default.

Types are checked before pydantic's lax coercion: YAML 1.1 reads unquoted `012345670123` as an octal int, `1:30`
as 90, `1.30` as 1.3 and `yes` as true, and pydantic would then turn `true` into 1 for a number or reject the int
for a string without saying why. :func:`yaml_type_problem` names what YAML read and says to quote it.
"""

from __future__ import annotations

import datetime
import types
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError


class ConfigError(ValueError):
    """Configuration is invalid. The message names the field, the value and the fix."""


def _described(value: Any) -> str:
    """How YAML read ``value``: 'the YAML value 1.30 was read as the float 1.3'."""
    text = getattr(value, "text", None)
    kind = type(value).__name__
    if isinstance(value, bool):
        kind = "boolean"
    elif isinstance(value, int):
        kind = "integer"
    elif isinstance(value, float):
        kind = "number"
    elif isinstance(value, datetime.datetime):
        kind = "timestamp"
    elif isinstance(value, datetime.date):
        kind = "date"
    if text and text != repr(value) and text != str(value):
        why = ""
        if ":" in text:
            why = " (YAML 1.1 base 60)"
        elif text.lstrip("+-").startswith("0") and text.lstrip("+-") not in ("0",) and "." not in text:
            why = " (YAML 1.1 octal)"
        return f"the YAML value {text} was read as the {kind} {value!r}{why}"
    return f"the YAML value {_yaml_repr(value)} was read as a {kind}"


def _yaml_repr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return getattr(value, "text", None) or str(value)


def yaml_type_problem(annotation: Any, value: Any) -> str | None:
    """Why ``value`` (as YAML produced it) must not be coerced into ``annotation``, or None.

    Strings must be strings (a number, boolean or date means YAML resolved an unquoted scalar: quote it);
    numbers must be numbers (not booleans, not quoted); booleans must be booleans.
    """
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return yaml_type_problem(typing.get_args(annotation)[0], value)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        if value is None and type(None) in args:
            return None
        problems = [yaml_type_problem(a, value) for a in args if a is not type(None)]
        return None if any(p is None for p in problems) else problems[0]
    if annotation is str or (origin is Literal and all(isinstance(a, str) for a in typing.get_args(annotation))):
        if value is None or isinstance(value, str):
            return None
        if isinstance(value, (bool, int, float, datetime.date)):
            return f'{_described(value)}, but a string is expected; quote it: "{_yaml_repr(value)}"'
        return None
    if annotation in (int, float):
        if isinstance(value, bool):
            return (
                f"{_described(value)}, but a number is expected (YAML 1.1 reads unquoted yes/no/on/off/true/"
                f"false as booleans); write a number"
            )
        if isinstance(value, str):
            return f"got the string {value!r}, but a number is expected; write it as a number without quotes"
        return None
    if annotation is bool:
        if isinstance(value, bool) or value is None:
            return None
        return f"got {value!r}, but a boolean is expected; write true or false without quotes"
    if origin in (tuple, list) and isinstance(value, (list, tuple)):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        for i, item in enumerate(value):
            item_type = args[0] if len(args) == 1 else (args[i] if i < len(args) else None)
            problem = yaml_type_problem(item_type, item) if item_type is not None else None
            if problem:
                return f"item {i + 1}: {problem}"
        return None
    if origin is dict and isinstance(value, dict):
        key_type, value_type = typing.get_args(annotation) or (Any, Any)
        for k, v in value.items():
            problem = yaml_type_problem(key_type, k)
            if problem:
                return f"key {_yaml_repr(k)}: {problem}"
            problem = yaml_type_problem(value_type, v)
            if problem:
                return f"{k}: {problem}"
        return None
    return None


class ConfigModel(BaseModel):
    """Base class for every configuration section."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _yaml_types(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name or "")
        if field is not None:
            problem = yaml_type_problem(field.annotation, value)
            if problem:
                raise PydanticCustomError("yaml_type", "{problem}", {"problem": problem})
        return value


# CloudWatch Logs accepts only these retention values (days); cdk_constructs.governance.log_retention maps them to the
# enum.
LOG_RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)


def check_log_retention(field: str, days: int) -> int:
    """``days`` if CloudWatch Logs offers it as a retention, else a ValueError naming ``field``."""
    if days not in LOG_RETENTION_DAYS:
        raise ValueError(
            f"{field} {days} is not a CloudWatch Logs retention; use one of {', '.join(map(str, LOG_RETENTION_DAYS))}"
        )
    return days
