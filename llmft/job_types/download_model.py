"""`type: download-model`: a Hugging Face model at a pinned revision into the team's FSx tree, one CPU pod
(`llm_platform.download_model`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llmft.job_types.base import FieldContext, Fields, JobType, present, register

if TYPE_CHECKING:
    from llmft.spec import JobSpec

# A Hugging Face repository id: `org/name` (huggingface_hub validate_repo_id: letters, digits, '-', '_', '.', at
# most 96 characters, no '--' or '..', not starting or ending with '-' or '.').
HF_ID = re.compile(r"[A-Za-z0-9](?:[\w.-]{0,94}[A-Za-z0-9])?/[A-Za-z0-9](?:[\w.-]{0,94}[A-Za-z0-9])?")


def step_fields(spec: JobSpec, ctx: FieldContext) -> Fields:
    return present(repo_id=spec.model, local_dir=ctx.output), {"repo_id": "model", "local_dir": "output"}


def default_output(spec: JobSpec) -> str:
    from k8s_charts.team_storage import team_paths  # not at import: `llmft --help` loads no chart library

    models = team_paths().models
    return f"{models}/{spec.model.rsplit('/', 1)[-1]}" if spec.model else models


def rules(spec: JobSpec) -> list[str]:
    if not spec.model:
        return []
    if spec.model.startswith("/"):
        return [
            f"model {spec.model!r} is a path; download-model fetches a Hugging Face model id such as "
            f"Qwen/Qwen2.5-1.5B-Instruct into /fsx/models (set output to choose where)"
        ]
    if not HF_ID.fullmatch(spec.model) or "--" in spec.model or ".." in spec.model:
        return [f"model {spec.model!r} is not a Hugging Face model id; use org/name, e.g. Qwen/Qwen2.5-1.5B-Instruct"]
    return []


DOWNLOAD_MODEL = register(
    JobType(
        name="download-model",
        summary="a Hugging Face model at a pinned revision into /fsx/models: one CPU pod (batch/v1 Job)",
        workload="job",
        gpus=False,
        step="download-model",
        needs={"model": "hub-id"},
        default_output=default_output,
        fields=step_fields,
        rules=rules,
    )
)
