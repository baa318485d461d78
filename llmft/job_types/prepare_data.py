"""`type: prepare-data`: a built-in dataset or a file under /fsx into train/test splits, one CPU pod
(`llm_platform.prepare_data`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmft.job_types.base import FieldContext, Fields, JobType, present, register

if TYPE_CHECKING:
    from llmft.spec import JobSpec


def step_fields(spec: JobSpec, ctx: FieldContext) -> Fields:
    return present(source=spec.dataset, output_dir=ctx.output), {"source": "dataset", "output_dir": "output"}


def rules(spec: JobSpec) -> list[str]:
    if not spec.dataset or spec.dataset.startswith("/"):
        return []
    from llm_platform.prepare_data import BUILTINS

    if spec.dataset in BUILTINS:
        return []
    return [
        f"dataset {spec.dataset!r} is neither a built-in dataset ({', '.join(sorted(BUILTINS))}) "
        f"nor a file under /fsx; prepare-data reads those (a file needs settings.format)"
    ]


PREPARE_DATA = register(
    JobType(
        name="prepare-data",
        summary="a dataset into train/test splits under /fsx/datasets: one CPU pod (batch/v1 Job)",
        workload="job",
        gpus=False,
        step="prepare-data",
        needs={"dataset": "source"},
        output_root="datasets",
        fields=step_fields,
        rules=rules,
    )
)
