"""`type: grpo`: reinforcement learning with VeRL + SGLang as a RayJob; its settings are the `grpo:` section
(`llm_platform.grpo_config.GrpoParameters`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmft.job_types.base import FieldContext, Fields, JobType, files, present, register

if TYPE_CHECKING:
    from llmft.spec import JobSpec


def step_fields(spec: JobSpec, ctx: FieldContext) -> Fields:
    train, test = files(spec.dataset or "", ("train.parquet", "test.parquet"))
    data = present(
        model_path=spec.model,
        train_files=train,
        val_files=test,
        checkpoint_dir=ctx.output,
        nodes=spec.node_range[1],
        gpus_per_node=ctx.gpus_per_node,
        project_name=ctx.experiment,
        experiment_name=spec.name,
    )
    origin = {
        "model_path": "model",
        "train_files": "dataset",
        "val_files": "dataset",
        "checkpoint_dir": "output",
        "nodes": "nodes",
        "gpus_per_node": "gpus_per_node",
        "project_name": "experiment",
        "experiment_name": "name",
    }
    return data, origin


GRPO = register(
    JobType(
        name="grpo",
        summary="GRPO with VeRL + SGLang: RayJob running VeRL's main_ppo with the typed GRPO settings",
        workload="ray",
        gpus=True,
        step="grpo",
        image="verl-sglang",
        mlflow=True,
        needs={"model": "path", "dataset": "path"},
        settings_section="grpo",
        fields=step_fields,
        # GrpoParameters insists on /fsx paths (what every Ray pod mounts): a local run only checks the step file
        local_check_only=True,
    )
)
