"""YAML configuration files: every step reads one (``--config``) into a typed dataclass."""

from __future__ import annotations

import argparse
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def load_yaml(path: str | Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return data


def from_mapping(cls: type[T], data: dict[str, Any], *, where: str = "config") -> T:
    """``cls(**data)`` with unknown keys reported by name (a typo must not silently fall back to a default)."""
    assert is_dataclass(cls)
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{where}: unknown setting(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    return cls(**data)


def parse_config_arg(argv: list[str] | None, prog: str, description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--config", required=True, help="YAML file with the step's settings")
    return parser.parse_args(argv)
