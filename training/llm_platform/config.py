"""YAML configuration files: every step reads one (``--config``) into a typed dataclass (see
:mod:`llm_platform.steps`, which owns reading and checking them)."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, TypeVar

from llm_platform.steps import load_yaml as _load_step_file

T = TypeVar("T")


def load_yaml(path: str | Path) -> dict[str, Any]:
    """The mapping in a step file; a :class:`llm_platform.steps.StepConfigError` (a ValueError) naming the file when
    it is unreadable, not UTF-8, not YAML or not a mapping."""
    return _load_step_file(path)


def from_mapping(cls: type[T], data: dict[str, Any], *, where: str = "config") -> T:
    """``cls(**data)`` with unknown keys reported by name (a typo must not silently fall back to a default)."""
    assert is_dataclass(cls)
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{where}: unknown setting(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    return cls(**data)
