"""Print the configuration reference (Markdown) from the models: `python -m config`.

docs/configuration.md's "Configuration reference" section is this output (`make docs` writes it with
`--write-readme`); tests/test_readme.py keeps them in sync.
"""

from __future__ import annotations

import typing

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from . import EnvironmentConfig, ExistingClusterConfig
from .accounts import OrganizationConfig


def _models_in(annotation: typing.Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _type_name(annotation: typing.Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    text = str(annotation).replace("typing.", "")
    return text.replace("config.", "").replace("NoneType", "None")


def rows(model: type[BaseModel], prefix: str = "") -> list[str]:
    out: list[str] = []
    for name, field in model.model_fields.items():
        if not prefix and name == "name":
            continue  # set from the file name
        path = f"{prefix}{name}"
        nested = _models_in(field.annotation)
        if field.is_required():
            default = "**required**"
        elif field.default is PydanticUndefined:
            default = "(see below)" if nested else "`{}`"
        elif isinstance(field.default, BaseModel):
            default = "(see below)"
        elif isinstance(field.default, (tuple, list)) and any(isinstance(v, BaseModel) for v in field.default):
            default = f"{len(field.default)} item(s), see `config/dev.yaml`"
        else:
            default = f"`{field.default!r}`"
        # the model's first docstring paragraph, whole (its first line alone can stop mid-sentence)
        doc = " ".join((nested[0].__doc__ or "").strip().split("\n\n")[0].split()) if nested else ""
        desc = " ".join((field.description or doc).split()).replace("|", "\\|")
        typ = (
            "list of objects"
            if nested and typing.get_origin(field.annotation) in (tuple, list)
            else ("object" if nested else _type_name(field.annotation))
        )
        typ = typ.replace("|", "\\|")
        out.append(f"| `{path}` | {typ} | {default} | {desc} |")
        for sub in nested:
            suffix = "[]." if typing.get_origin(field.annotation) in (tuple, list) else "."
            out.extend(rows(sub, f"{path}{suffix}"))
    return out


def reference() -> str:
    head = ["| key | type | default | meaning |", "|---|---|---|---|"]
    organization = (
        "\n**`config/organization/accounts.yaml`** (multi-account delivery, optional: only "
        '`make synth-delivery` reads it; docs/deploying.md "Multi-account delivery"): '
        + " ".join((OrganizationConfig.__doc__ or "").split())
        + "\n"
    )
    return (
        "\n".join(head + rows(EnvironmentConfig))
        + "\n"
        + organization
        + "\n"
        + "\n".join(head + rows(OrganizationConfig))
        + "\n"
    )


def existing_reference() -> str:
    """The keys of config/existing/<name>.yaml (existing-cluster mode), the table in docs/studio.md."""
    head = ["| key | type | default | meaning |", "|---|---|---|---|"]
    return "\n".join(head + rows(ExistingClusterConfig)) + "\n"


START, END = "<!-- config-reference:start -->", "<!-- config-reference:end -->"
EXISTING_START, EXISTING_END = "<!-- existing-reference:start -->", "<!-- existing-reference:end -->"


def _replace(path: str, start: str, end: str, body: str) -> None:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{head}{start}\n{body}{end}{tail}")


def write_readme(path: str = "docs/configuration.md", studio_path: str = "docs/studio.md") -> None:
    """Replace docs/configuration.md's reference section, and docs/studio.md's table of the existing-cluster keys,
    with the current ones (`make docs`)."""
    _replace(path, START, END, reference())
    _replace(studio_path, EXISTING_START, EXISTING_END, existing_reference())


if __name__ == "__main__":
    import sys

    if "--write-readme" in sys.argv:
        write_readme()
    else:
        print(reference(), end="")
