"""`type: custom`: the spec's own image and command, as a PyTorchJob (one pod per node) or a RayJob
(`custom.kind`); its step file is free-form (the spec's paths and settings, unchecked)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmft.job_types.base import JobType, register

if TYPE_CHECKING:
    from llmft.spec import JobSpec


def rules(spec: JobSpec) -> list[str]:
    out = []
    if spec.custom is None:
        out.append("type custom needs a custom section: custom: {kind: pytorch, command: [...]}")
    elif spec.custom.kind == "pytorch" and not spec.image:
        out.append(
            "type custom with kind pytorch needs image: the platform has no default image for arbitrary commands"
        )
    elif spec.custom.kind == "ray" and spec.image and not spec.custom.ray_version:
        out.append(
            f"custom.ray_version: the Ray version of image {spec.image} is unknown; set custom.ray_version "
            f"(>= 2.52.0, token authentication), or leave image out to use the platform's verl-sglang image"
        )
    return out


CUSTOM = register(
    JobType(
        name="custom",
        summary="the spec's own image and command: PyTorchJob or RayJob (custom.kind)",
        workload="custom",
        gpus=True,
        image=None,
        elastic=True,
        rules=rules,
    )
)
