"""The configuration reference (`python -m config`, docs/configuration.md) gives each object its whole summary."""

from __future__ import annotations

import typing

from config import EnvironmentConfig
from config.__main__ import _models_in, reference


def test_object_rows_carry_the_whole_first_paragraph_of_their_model() -> None:
    text = reference()
    checked = 0

    def walk(model, prefix: str = "") -> None:
        nonlocal checked
        for name, field in model.model_fields.items():
            nested = _models_in(field.annotation)
            if nested and not field.description and nested[0].__doc__:
                summary = " ".join(nested[0].__doc__.strip().split("\n\n")[0].split()).replace("|", "\\|")
                row = next(r for r in text.splitlines() if r.startswith(f"| `{prefix}{name}` |"))
                assert row.endswith(f"| {summary} |"), row
                checked += 1
            for sub in nested:
                many = typing.get_origin(field.annotation) in (tuple, list)
                walk(sub, f"{prefix}{name}[]." if many else f"{prefix}{name}.")

    walk(EnvironmentConfig)
    assert checked
